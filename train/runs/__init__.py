"""A run's folder and what is written into it: ownership marker and lock (``run_folder``), CSV
log and config (``run_log``), tables and ``metrics.json`` (``reporting``), plots (``plot``)."""

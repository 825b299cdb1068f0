"""Running a fit: the plan that turns a parsed method into its fitter, data check, trainer and
callbacks (``plan``), fits inside a larger job (``in_process``), bootstrapping's refits
(``bootstrap``), the quiet trainer and multi-process ends (``trainer``, ``distributed``)."""

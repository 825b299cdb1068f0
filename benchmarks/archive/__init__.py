"""One-off probes and decision records: each measured something once and a page of ``docs/``
keeps what it found and the command that made it. Kept so a decision can be replayed (``python
-m benchmarks.archive.NAME``); not imported by the tests, not run by CI, not maintained as
product."""

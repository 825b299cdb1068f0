"""The floor every other part of ``train`` stands on: what the pieces of a fit promise each other
(``contracts``), the quiet trainer (``trainer``) and multi-process ends (``distributed``)."""

"""Experiments built on the library and the fitting layer: the Bible test bed, the demo, the
Table-2-shaped comparison and the CBLI simulation."""

"""Benchmarks: scripts that measure the product through its public names and print a table and
write JSON (``python benchmarks/NAME.py``); ``harness`` holds what they share. Installed with
the package, so they import each other as ``benchmarks.NAME`` without touching ``sys.path``."""

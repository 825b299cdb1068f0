"""Package version; part of every signature."""
__version__ = "0.2.0"

"""Package version; part of every signature."""
__version__ = "0.3.0"

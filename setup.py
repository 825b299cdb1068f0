"""The wheel carries what ships by name — the exports and the recipes — inside the package
(``alignment/shipped_data/``, where ``alignment.shipped`` finds them once installed); everything
else is in pyproject.toml."""
import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

SHIPPED = ("exports", "recipes")


class BuildWithShipped(build_py):
    """``build_py``, then the shipped folders copied into the built package (hidden files,
    such as an export's manifest of its own files, included)."""

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):  # an editable install reads the clone's
            return
        here = Path(__file__).resolve().parent
        for kind in SHIPPED:
            target = Path(self.build_lib) / "alignment" / "shipped_data" / kind
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(here / kind, target, ignore=shutil.ignore_patterns("__pycache__"))


setup(cmdclass={"build_py": BuildWithShipped})

"""Mappings between two languages' vector spaces; all share the ``Mapping`` interface."""
from .affine import AffineMapping, Composition, Identity, compose_affine
from .base import MAPPINGS, Mapping, load_mapping, mapping_from_config
from .centering import Center, Norm
from .fcnn import FCNN
from .flow import RealNVPMapping
from .least_squares import LeastSquares
from .procrustes import CLP, procrustes
from .umd import UMD, top_direction

CLOSED_FORM = ("identity", "center", "norm", "clp", "umd", "linear")


def parse_stages(spec: str | list[str]) -> list[str]:
    """``"center → clp"`` / ``"center>clp"`` / ``["center", "clp"]`` → validated stage names."""
    from ..errors import InputError

    if isinstance(spec, str):
        spec = [s.strip() for s in spec.replace("→", ">").replace("->", ">").split(">")]
    stages = [s for s in spec if s]
    for s in stages:
        if s not in CLOSED_FORM:
            raise InputError(f"unknown closed-form stage '{s}' (choose from {CLOSED_FORM})",
                             parameter="method")
    return stages or ["identity"]


def fit_closed_form(moments, spec: str | list[str]) -> Composition:
    """Fit a composition of closed-form stages from pair moments."""
    return Composition.fit_stages(moments, parse_stages(spec))


__all__ = ["FCNN", "RealNVPMapping", "LeastSquares", "Mapping", "AffineMapping", "Identity", "Composition", "Center", "Norm", "CLP", "UMD",
           "MAPPINGS", "load_mapping", "mapping_from_config", "procrustes", "top_direction",
           "compose_affine", "parse_stages", "fit_closed_form", "CLOSED_FORM"]

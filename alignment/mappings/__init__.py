"""Mappings between two languages' vector spaces; all share the ``Mapping`` interface, and the
method registry knows every method by one canonical name."""
from .affine import AffineMapping, Composition, Identity, compose_affine
from .base import MAPPINGS, Mapping, load_mapping, mapping_from_config
from .centering import Center, Norm
from .fcnn import FCNN, regression_loss
from .flow import RealNVPMapping, constant_dimensions, density_matching_loss
from .least_squares import LeastSquares
from .linear_map import LinearMap, LinearStage
from .procrustes import CLP, procrustes
from .method import DataKind
from .registry import (BASELINE, CLOSED_FORM, METHODS, PRESETS, TRAINED, Method, MethodSpec, Preset,
                       get_method, parse_method, parse_methods, register_method,
                       register_preset, unregister_method)
from .staged import StagedMapping
from .umd import UMD, top_direction


def fit_composition(moments, spec: str | list[str] | MethodSpec) -> Composition:
    """Fit a closed-form composition (``"center > clp"``) exactly from pair moments."""
    from alignment.errors import InputError

    parsed = parse_method(spec)
    if parsed.trained is not None:  # (its closed-form pre-stages alone: parse them separately)
        raise InputError(f"'{parsed.name}' is a trained method: fit it with the training layer "
                         "(crossalign fit / train.modules)", parameter="method")
    return Composition.fit_stages(moments, [m.mapping for m in parsed.methods])


__all__ = ["FCNN", "RealNVPMapping", "constant_dimensions", "LeastSquares", "LinearMap", "LinearStage", "Mapping", "AffineMapping", "Identity",
           "Composition", "Center", "Norm", "CLP", "UMD", "MAPPINGS", "load_mapping",
           "mapping_from_config", "procrustes", "top_direction", "compose_affine",
           "fit_composition", "density_matching_loss", "regression_loss", "Method", "MethodSpec",
           "METHODS", "CLOSED_FORM", "TRAINED", "get_method", "parse_method", "parse_methods",
           "register_method", "unregister_method", "StagedMapping", "PRESETS", "Preset",
           "register_preset", "BASELINE", "DataKind"]

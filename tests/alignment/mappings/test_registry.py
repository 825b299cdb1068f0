"""The method registry: one canonical spelling, aliases parsed in one place, and a new method
added by its own module plus one registration line."""
import numpy as np
import pytest
import torch

from alignment.errors import InputError
from alignment.mappings import (BASELINE, METHODS, AffineMapping, Method, fit_composition, get_method,
                                parse_method, register_method, unregister_method)
from alignment.mappings.moments import PairMoments


@pytest.mark.parametrize("text", ["center > clp", "center>clp", "center → clp", "center->clp",
                                  "center_clp", "center-clp", "center > rotation",
                                  ["center", "clp"]])
def test_every_spelling_parses_to_one_canonical_name(text):
    spec = parse_method(text)
    assert spec.name == "center > clp" and spec.slug == "center-clp" and spec.trained is None


def test_the_baseline_is_written_as_its_own_label():
    # tables name its row by the constant, without parsing it again
    assert parse_method(BASELINE).label == BASELINE


def test_aliases_resolve_to_the_registered_method():
    assert get_method("rotation").name == "clp" and get_method("gbdd").name == "umd"
    assert parse_method("realnvp").trained is METHODS["realnvp"]


def test_a_trained_method_may_only_come_last_and_the_error_names_the_spec():
    spec = parse_method("center > clp > realnvp")
    assert spec.pre_stages == ("center", "clp") and spec.trained is METHODS["realnvp"]
    for bad in ("realnvp > clp", "fcnn > realnvp"):
        with pytest.raises(InputError, match=f"'{bad}': a trained method .* only be the last"):
            parse_method(bad)


def test_every_registered_method_has_a_mapping_class_and_a_fitter_and_a_recipe():
    from pathlib import Path

    recipes = Path(__file__).resolve().parents[3] / "recipes" / "method"
    for name, method in METHODS.items():
        assert method.summary and method.fitter.isidentifier()  # a family name, not a path
        assert method.loss is None or method.trained  # closed-form methods have no loss
        assert (recipes / f"{name}.yaml").is_file(), name


class Scale(AffineMapping):
    """A trivial closed-form method for the test: scale the source to the target's RMS norm."""

    kind = "test_scale"

    def solve(self, moments: PairMoments):
        n = float(moments.n)
        ratio = (torch.trace(moments.syy) / torch.trace(moments.sxx)).sqrt() if n else 1.0
        eye = torch.eye(moments.dim, dtype=torch.float64)
        zero = torch.zeros(moments.dim, dtype=torch.float64)
        return ratio * eye, zero, eye, zero


@pytest.fixture
def scale_method():
    register_method(Method("test_scale", Scale, summary="scale to the target's norm"))
    yield
    unregister_method("test_scale")


def test_a_new_method_needs_its_class_and_one_registry_line(scale_method, tmp_path):
    """Parsing, composition, the Lightning fit, save/load and variants work with nothing else."""
    from alignment.mappings import load_mapping
    from train.fitting.in_process import fit_arrays

    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 6)).astype(np.float32)
    y = 3.0 * x
    spec = parse_method("test_scale > clp")
    assert spec.name == "test_scale > clp" and spec.slug == "test_scale-clp"
    mapping = fit_arrays(x, y, "test_scale > clp", tmp_path / "run", batch_size=64)
    np.testing.assert_allclose(mapping.map_array(x), y, atol=1e-4)
    again = load_mapping(tmp_path / "run" / "mapping")
    assert again.fingerprint() == mapping.fingerprint() and again.describe() == "test_scale > clp"
    direct = fit_composition(PairMoments.of(torch.from_numpy(x), torch.from_numpy(y)), spec)
    t = torch.from_numpy(x[:20])
    assert torch.allclose(direct(t), mapping(t), atol=1e-5)  # streamed moments = in-memory ones

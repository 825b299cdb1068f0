"""The method registry: every method crossalign can fit, under one canonical name.

``compare``, ``simulate``, method variants, the CLI and the recipes all ask this registry;
adding a method is its own module plus one ``register_method`` line at the bottom of this file."""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from alignment.catalogue import Registry, unknown_name
from alignment.errors import InputError
from .method import CLOSED_FORM, TRAINED, DataKind, Method

METHODS: Registry[Method] = Registry("method")


def register_method(method: Method) -> Method:
    """Add ``method`` (and its aliases) to the registry; a name may be registered once."""
    if method.kind not in (CLOSED_FORM, TRAINED):
        raise ValueError(f"method kind must be '{CLOSED_FORM}' or '{TRAINED}', not '{method.kind}'")
    for name in (method.name, *method.aliases):
        if not re.fullmatch(r"[a-z][a-z0-9_]*", name):
            raise ValueError(f"method name '{name}' must be lower-case letters, digits and '_'")
    return METHODS.add(method.name, method, method.aliases)


def unregister_method(name: str) -> None:
    """Remove a method and its aliases (for plug-ins and tests)."""
    METHODS.remove(name)


def get_method(name: str) -> Method:
    """The registered method called ``name`` (or one of its aliases)."""
    return METHODS.lookup(name)


@dataclass(frozen=True)
class MethodSpec:
    """A parsed method string: ordered stages and, for a trained method, setting overrides.

    ``name`` is the canonical spelling (``center > clp``), ``slug`` its file-name form
    (``center-clp``), ``label`` the name with its overrides (``realnvp:dual=false``)."""

    stages: tuple[str, ...]
    overrides: dict[str, Any] = field(default_factory=dict)
    text: str = ""

    @property
    def name(self) -> str:
        return " > ".join(self.stages)

    @property
    def slug(self) -> str:
        return "-".join(self.stages)

    @property
    def label(self) -> str:
        if not self.overrides:
            return self.name
        return self.name + ":" + ",".join(f"{k}={_scalar(v)}" for k, v in self.overrides.items())

    @property
    def methods(self) -> list[Method]:
        return [METHODS[s] for s in self.stages]

    @property
    def trained(self) -> Method | None:
        """The trained method (always the last stage), or None for a closed-form composition."""
        last = METHODS[self.stages[-1]]
        return last if last.trained else None

    @property
    def pre_stages(self) -> tuple[str, ...]:
        """The closed-form stages before a trained one (empty when there are none)."""
        return self.stages[:-1] if self.trained else ()

    @property
    def fitter(self) -> str:
        return self.methods[-1].fitter

    @property
    def data(self) -> DataKind:
        """What it trains on: its trained stage's data; a closed-form composition, word pairs."""
        last = self.trained
        return last.data if last is not None else DataKind.PAIRED

    def fits_on(self, kind: DataKind) -> bool:
        """Whether data of ``kind`` can fit it: its own kind, or unpaired pools for a
        composition of per-language statistics only (``center``, ``norm``)."""
        return kind is self.data or (kind is DataKind.UNPAIRED and
                                     all(m.pairless for m in self.methods))


def _scalar(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


_SEPARATORS = re.compile(r"\s*(?:>|→|->)\s*")


def _split_stages(text: str) -> list[str]:
    """``center > clp``, ``center→clp``, ``center->clp``: by arrow; ``center-clp`` /
    ``center_clp`` (recipe and folder names): by dash or underscore where every part is a
    registered name and the whole is not."""
    if _SEPARATORS.search(text):
        return _SEPARATORS.split(text.strip())  # an empty part is an error for the caller
    word = text.strip()
    if METHODS.taken(word) or not word:
        return [word] if word else []
    for sep in ("-", "_"):
        parts = word.split(sep)
        if len(parts) > 1 and all(METHODS.taken(p) for p in parts):
            return parts
    return [word]


@dataclass(frozen=True)
class Preset:
    """A short name for a whole method string (stages and settings)."""

    name: str
    method: str
    summary: str = ""


PRESETS: Registry[Preset] = Registry("preset", "method")


def register_preset(preset: Preset) -> Preset:
    """Add a preset; its name may not be a method's, and its method string must parse."""
    if METHODS.taken(preset.name):
        raise ValueError(f"name '{preset.name}' is already registered")
    parse_method(preset.method, "preset")
    return PRESETS.add(preset.name, preset)


def parse_method(spec: str | list[str] | MethodSpec, parameter: str = "method") -> MethodSpec:
    """Parse ``"center > clp"``, ``"realnvp:nll_weight=0,dual=false"``, a preset name
    (``"clp_flow"``, ``"clp_flow:lr=1e-4"``) and the accepted aliases into a canonical
    ``MethodSpec``; every error names the spec and ``parameter``."""

    if isinstance(spec, MethodSpec):
        return spec
    if isinstance(spec, (list, tuple)):
        text, rest = " > ".join(spec), ""
    else:
        text, _, rest = str(spec).partition(":")
    if text.strip() in PRESETS:
        base = parse_method(PRESETS[text.strip()].method, parameter)
        extra = parse_method(f"{base.stages[-1]}:{rest}", parameter).overrides if rest.strip() \
            else {}
        return MethodSpec(base.stages, {**base.overrides, **extra}, str(spec))
    raw = _split_stages(text)
    if not raw:
        raise InputError(f"'{spec}': no method given", parameter=parameter)
    if any(not stage.strip() for stage in raw):
        raise InputError(f"'{spec}': a '>' with no method on one side", parameter=parameter)
    stages: list[str] = []
    for stage in raw:
        if not METHODS.taken(stage):
            raise unknown_name("method", stage, [*METHODS, *PRESETS], parameter, f"'{spec}': ",
                               similar=METHODS.spellings())
        stages.append(METHODS.canonical(stage))
    trained = [s for s in stages if METHODS[s].trained]
    if trained and (len(trained) > 1 or stages[-1] != trained[0]):
        raise InputError(f"'{spec}': a trained method ('{trained[0]}') can only be the last "
                         "stage, after closed-form ones (center > clp > realnvp)",
                         parameter=parameter)
    overrides: dict[str, Any] = {}
    if rest.strip():
        if not trained:
            raise InputError(f"'{spec}': only trained methods "
                             f"({', '.join(n for n, m in METHODS.items() if m.trained)}) take "
                             "settings", parameter=parameter)
        for item in rest.split(","):
            key, eq, value = (part.strip() for part in item.partition("="))
            if not eq or not key:
                raise InputError(f"'{spec}': expected key=value, got '{item.strip()}'",
                                 parameter=parameter)
            if key in overrides:
                raise InputError(f"'{spec}': setting '{key}' given twice", parameter=parameter)
            if value.startswith(("[", "{")):
                raise InputError(f"'{spec}': setting '{key}' takes a list, which a method string "
                                 f"cannot hold: give --model.init_args.{key} or a recipe",
                                 parameter=parameter)
            overrides[key] = _setting_value(value, f"'{spec}': setting {key}={value}", parameter)
    return MethodSpec(tuple(stages), overrides, str(spec))


def _setting_value(text: str, what: str, parameter: str) -> Any:
    """A setting's value: YAML's reading (true, null, 0.1), and numbers YAML leaves as words
    (1e-4, nan, inf) as numbers, so that a later check can judge them."""
    import yaml

    try:
        value = yaml.safe_load(text)
    except yaml.YAMLError:
        raise InputError(f"{what} is not a value (a number, true/false or a word)",
                         parameter=parameter) from None
    if isinstance(value, str):
        for kind in (int, float):
            try:
                return kind(value)
            except ValueError:
                pass
    return value


def parse_methods(specs: list[str], parameter: str = "methods") -> dict[str, MethodSpec]:
    """Parse every spec up front (a typo fails before any training), keyed by canonical label;
    the same method listed twice (in any spelling) is refused."""
    out: dict[str, MethodSpec] = {}
    for spec in specs:
        parsed = parse_method(spec, parameter)
        if parsed.label in out:
            raise InputError(f"'{spec}': method listed twice (as '{parsed.label}')",
                             parameter=parameter)
        out[parsed.label] = parsed
    return out


# --- the registered methods (one line each) -------------------------------------------------
from .affine import Identity
from .centering import Center, Norm
from .fcnn import FCNN, regression_loss
from .flow import RealNVPMapping, density_matching_loss
from .least_squares import LeastSquares
from .procrustes import CLP
from .umd import UMD

register_method(Method("identity", Identity, pairless=True, summary="no change (the unmapped encoder)"))
register_method(Method("center", Center, pairless=True, summary="subtract each language's mean"))
register_method(Method("norm", Norm, pairless=True,
                       summary="per-language mean/variance normalisation (NORM)"))
register_method(Method("clp", CLP, aliases=("rotation", "procrustes"),
                       summary="orthogonal Procrustes on the source side (CLP)"))
register_method(Method("umd", UMD, aliases=("gbdd",),
                       summary="remove the top pair-difference direction from both sides (UMD)"))
register_method(Method("linear", LeastSquares, aliases=("least_squares",),
                       summary="unconstrained least-squares linear map"))
register_method(Method("realnvp", RealNVPMapping, TRAINED, "flow",
                       density_matching_loss, summary="Real-NVP density matching"))
register_method(Method("fcnn", FCNN, TRAINED, "regression", regression_loss,
                       summary="three fully connected tanh layers, squared error"))

from .linear_map import LinearMap

# trained by their own loops (adversarial, self-learning): no pair loss
register_method(Method("gan_realnvp", RealNVPMapping, TRAINED, "gan_realnvp",
                       data=DataKind.UNPAIRED,
                       summary="Real-NVP trained adversarially (Wasserstein critic), no pairs"))
register_method(Method("muse", LinearMap, TRAINED, "muse",
                       data=DataKind.UNPAIRED,
                       defaults={"objective": "gan", "critic_hidden": 2048, "critic_dropout": 0.1,
                                 "critic_steps": 1, "lr": 1e-3, "critic_lr": 1e-3},
                       summary="MUSE-style adversarial orthogonal linear map, no pairs"))
register_method(Method("vecmap", LinearMap, TRAINED, "self_learning",
                       data=DataKind.UNPAIRED,
                       summary="VecMap-style unsupervised self-learning (orthogonal), no pairs"))
register_method(Method("mining", LinearMap, TRAINED, "mining",
                       data=DataKind.UNPAIRED,
                       summary="iterated pseudo-parallel mining: mined sentence pairs, their "
                       "words aligned, a closed-form map fitted (fit=center > clp), no pairs"))

# The strongest simple baseline, written canonically (it is its own label): every comparison
# table has it.
BASELINE = "center > clp"

register_preset(Preset(
    "clp_flow", "center > clp > realnvp:warm_start=true,dual=false,transforms=8,nll_weight=0",
    summary="center > clp, refined by a warm-started Real-NVP without the density term (the "
    "best trained map measured on the Bible; docs/results.md)"))

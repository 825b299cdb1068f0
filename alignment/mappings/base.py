"""The one interface every mapping implements, and its safetensors + JSON persistence."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch
from torch import nn

from alignment.atomic import atomic_path, write_text
from alignment.catalogue import Registry
from alignment.errors import InputError

MAPPINGS: Registry[type["Mapping"]] = Registry("mapping type", "mapping")
WEIGHTS_FILE = "mapping.safetensors"
CONFIG_FILE = "mapping.json"


class Mapping(nn.Module):
    """A map between two languages' vector spaces.

    ``forward(x)`` maps source-language vectors of shape (..., d); ``map_target(y)`` is what
    the map does to target-language vectors (the identity unless a method changes both sides).
    """

    kind: ClassVar[str] = "mapping"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            old = MAPPINGS.get(cls.kind)
            if old is not None and (old.__module__, old.__qualname__) == (cls.__module__,
                                                                          cls.__qualname__):
                MAPPINGS.remove(cls.kind)  # the same class defined again (a module reloaded)
            MAPPINGS.add(cls.kind, cls)

    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def map_target(self, y: torch.Tensor) -> torch.Tensor:
        return y

    def is_source_only(self) -> bool:
        """True when the target side is left unchanged (what a ``.BAM`` file can express)."""
        return type(self).map_target is Mapping.map_target

    def map_array(self, vectors: np.ndarray, side: str = "src") -> np.ndarray:
        """Map a NumPy array with the source (``"src"``) or target side, in the mapping's own
        precision, returning the input's dtype."""
        param = next(iter(self.parameters()), None)
        dtype = param.dtype if param is not None else torch.float64
        fn = self if side == "src" else self.map_target
        with torch.no_grad():
            out = fn(torch.from_numpy(np.ascontiguousarray(vectors)).to(dtype))
        return out.numpy().astype(vectors.dtype, copy=False)

    def config(self) -> dict[str, Any]:
        """Constructor arguments, JSON-serialisable; ``type(self)(**config())`` rebuilds it."""
        return {"dim": self.dim}

    def describe(self) -> str:
        """Short name used in signatures and tables."""
        return self.kind

    def tensors(self) -> dict[str, torch.Tensor]:
        """Every parameter and buffer, flattened to a dict (nested names for compositions)."""
        return {k: v.detach().contiguous().cpu() for k, v in self.state_dict().items()}

    def applied_fingerprint(self) -> str:
        """What a score signature names: the map as the encoder applies it (float32), the
        same however it was built or loaded (16 hex digits)."""
        return self.fingerprint(torch.float32)

    def fingerprint(self, precision: torch.dtype = torch.float64) -> str:
        """Content hash of type, config and weights (rounded to ``precision`` first: float32
        identifies a map as the encoder applies it, so a map and its float32 XMoverScore file
        agree); 16 hex digits."""
        h = hashlib.sha256(json.dumps({"type": self.kind, "config": self.config()},
                                      sort_keys=True).encode())
        for name, t in sorted(self.tensors().items()):
            h.update(name.encode())
            h.update(t.to(precision).to(torch.float64).numpy().tobytes())
        return h.hexdigest()[:16]

    def save(self, directory: str | Path) -> Path:
        """Write ``mapping.safetensors`` and ``mapping.json`` into ``directory`` (atomically),
        each tensor once (``alignment.mappings.compact``)."""
        from safetensors.torch import save_file

        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        from .compact import FORMAT, compact

        stored, declared = compact(self.tensors())
        with atomic_path(directory / WEIGHTS_FILE) as tmp:
            save_file(stored, str(tmp))
        write_text(directory / CONFIG_FILE, json.dumps(
            {"format": FORMAT, "type": self.kind, "config": self.config(),
             "fingerprint": self.fingerprint(), "declared": declared}, indent=2))
        return directory


def weighted_mean(values: torch.Tensor, weight: torch.Tensor | None = None) -> torch.Tensor:
    """Mean over rows; with ``weight``, rows of weight 0 (padding of distributed shards) count
    for nothing."""
    if weight is None:
        return values.mean()
    weight = weight.to(values.dtype)
    return (values * weight).sum() / weight.sum().clamp_min(1.0)


def mapping_from_config(spec: dict[str, Any]) -> Mapping:
    return MAPPINGS.lookup(str(spec.get("type")))(**spec.get("config", {}))


MAX_WEIGHT = 1e12  # far above any trained or fitted map's weights


def load_mapping(directory: str | Path, dim: int | None = None) -> Mapping:
    """Rebuild a saved mapping; refuses one whose dimension differs from ``dim`` when given,
    weights that are not finite, and weights that do not match the fingerprint recorded at
    save time (an edited or corrupt file). Safetensors and JSON only: nothing is unpickled."""
    from safetensors import SafetensorError
    from safetensors.torch import load_file

    directory = Path(directory)
    cfg_path = directory / CONFIG_FILE
    if not cfg_path.is_file():
        raise InputError(f"no {CONFIG_FILE} here: not a saved mapping", path=directory)
    try:
        spec = json.loads(cfg_path.read_text(encoding="utf-8"))
        check_sizes(spec, cfg_path)  # before any tensor of those sizes is allocated
        mapping = mapping_from_config(spec)
    except json.JSONDecodeError as err:
        raise InputError(f"invalid JSON ({err.msg})", path=cfg_path, line=err.lineno) from None
    except (TypeError, AttributeError, ValueError, RuntimeError) as err:
        if isinstance(err, InputError):
            raise
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(f"not a valid {CONFIG_FILE} ({first})", path=cfg_path) from None
    if dim is not None and mapping.dim != dim:
        raise InputError(f"mapping has dimension {mapping.dim} but the encoder has {dim}",
                         path=cfg_path)
    weights = directory / WEIGHTS_FILE
    try:
        state = load_file(str(weights))
        if "declared" in spec:  # crossalign-mapping-2: identities, zeros and copies declared
            from .compact import expand

            state = expand(state, spec["declared"], cfg_path, mapping.state_dict())
        floats = {t.dtype for t in state.values() if t.is_floating_point()}
        if len(floats) == 1 and all(p.is_floating_point() for p in mapping.parameters()):
            mapping.to(floats.pop())  # a float64 model comes back in float64, bit for bit
        mapping.load_state_dict(state)
    except (SafetensorError, OSError) as err:
        raise InputError(f"unreadable weights ({err})", path=weights) from None
    except RuntimeError as err:  # missing / unexpected / mis-shaped tensors
        first = str(err).strip().splitlines()[0]
        raise InputError(f"weights do not fit {CONFIG_FILE} ({first})", path=weights) from None
    for name, tensor in mapping.tensors().items():
        if tensor.is_floating_point() and not torch.isfinite(tensor).all():
            raise InputError(f"tensor '{name}' holds NaN or infinite values", path=weights)
        if tensor.is_floating_point() and tensor.numel() and tensor.abs().max() > MAX_WEIGHT:
            raise InputError(f"tensor '{name}' holds values up to {float(tensor.abs().max()):.3g}"
                             ", which would overflow when applied", path=weights)
    recorded = spec.get("fingerprint")
    if recorded is not None and recorded != mapping.fingerprint():
        raise InputError(f"weights do not match the fingerprint {recorded} in {CONFIG_FILE} "
                         "(edited or corrupt)", path=weights)
    return mapping.eval()


# bounds of a saved mapping's sizes: far above any real encoder's (d <= 8,192) or map's
SIZE_LIMITS = {"dim": 65_536, "hidden": 65_536, "transforms": 1_024, "layers": 256}


def check_sizes(config: object, path: Path) -> None:
    """Refuse a mapping config whose sizes are not whole numbers in their bounds (a crafted
    ``"dim": -1`` or ``10**7`` would fail or allocate gigabytes), naming the file."""
    if isinstance(config, dict):
        for key, value in config.items():
            if key in SIZE_LIMITS and (isinstance(value, bool) or not isinstance(value, int)
                                       or not 1 <= value <= SIZE_LIMITS[key]):
                raise InputError(f"'{key}': {value!r} is not a size in [1, "
                                 f"{SIZE_LIMITS[key]:,}]", path=path)
            check_sizes(value, path)
    elif isinstance(config, list):
        for value in config:
            check_sizes(value, path)

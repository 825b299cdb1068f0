"""The device a model runs on, checked against what this torch build has before anything loads."""
from __future__ import annotations

import re

from alignment.catalogue import unknown_name
from alignment.errors import InputError

DEVICE = re.compile(r"cpu|cuda(?::\d+)?|mps")


def resolve_device(device: str | None, parameter: str = "device"):
    """``torch.device`` for ``device`` (None: a GPU if there is one, else the CPU); a name
    torch does not know, or a GPU this machine or torch build lacks, is one clear error."""
    import torch

    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    name = str(device).strip().lower()
    if name == "gpu":
        name = "cuda"
    if not DEVICE.fullmatch(name):
        raise unknown_name("device", device, ("cpu", "cuda", "cuda:N", "mps"), parameter)
    if name.startswith("cuda"):
        if not torch.cuda.is_available():
            build = "a CPU-only torch" if torch.version.cuda is None else "no visible GPU"
            raise InputError(f"'{device}' asked for, but this machine has {build}; use "
                             "--device cpu", parameter=parameter)
        index = int(name.split(":")[1]) if ":" in name else 0
        if index >= torch.cuda.device_count():
            raise InputError(f"'{device}': only {torch.cuda.device_count()} GPU(s) here",
                             parameter=parameter)
    if name == "mps" and not torch.backends.mps.is_available():
        raise InputError("'mps' asked for, but this machine has no Apple GPU; use --device cpu",
                         parameter=parameter)
    return torch.device(name)

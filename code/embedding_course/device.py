"""Choosing where tensors live: a GPU when there is one, else the CPU."""

from __future__ import annotations

import os
import platform
from pathlib import Path

import numpy as np
import torch

from embedding_course import checks  # checks reads arrays with to_numpy (below): each imports the other

DEVICE_ENV_VAR = "COURSE_DEVICE"
ALLOWED_DEVICES = ("cuda", "mps", "cpu")


def _mps_available() -> bool:
    backend = getattr(torch.backends, "mps", None)
    return bool(backend is not None and backend.is_available())


def pick_device(preferred: str | None = None) -> torch.device:
    """Return the device the course computes on.

    The order is ``cuda``, then ``mps`` (Apple GPUs), then ``cpu``. The environment
    variable ``COURSE_DEVICE`` (or ``preferred``) forces a choice, e.g. ``cpu``.

    Args:
        preferred: ``"cuda"``, ``"mps"``, ``"cpu"`` or ``None`` to read ``COURSE_DEVICE``
            and fall back to the automatic choice.

    Returns:
        A ``torch.device``.
    """
    if preferred is not None and not isinstance(preferred, str):
        raise ValueError(f"preferred must be one of {', '.join(ALLOWED_DEVICES)} or None, got {preferred!r}")
    requested = preferred if preferred is not None else os.environ.get(DEVICE_ENV_VAR, "")
    requested = requested.strip().lower()
    if requested:
        if requested not in ALLOWED_DEVICES:
            raise ValueError(
                f"unknown device {requested!r} (from {'argument' if preferred else DEVICE_ENV_VAR}); "
                f"allowed: {', '.join(ALLOWED_DEVICES)}"
            )
        if requested == "cuda" and not torch.cuda.is_available():
            raise ValueError("device 'cuda' was requested but torch sees no CUDA GPU; use 'cpu'")
        if requested == "mps" and not _mps_available():
            raise ValueError("device 'mps' was requested but torch sees no Apple GPU; use 'cpu'")
        return torch.device(requested)
    if torch.cuda.is_available():
        return torch.device("cuda")
    if _mps_available():
        return torch.device("mps")
    return torch.device("cpu")


def cpu_name(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name where Linux gives it ("AMD EPYC"), else what Python knows.

    ``platform.processor()`` is empty or the architecture ("x86_64") on Linux.
    """
    cpuinfo = checks.path(cpuinfo, "cpuinfo")
    try:
        for line in cpuinfo.read_text().splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:  # no such file: not Linux
        pass
    return platform.processor() or platform.machine() or "CPU"


def build_info() -> dict[str, str]:
    """Describe the machine that ran the code: device, its name, torch and Python versions."""
    device = pick_device()
    if device.type == "cuda":
        device_name = torch.cuda.get_device_name(device)
    elif device.type == "mps":
        device_name = "Apple GPU (Metal)"
    else:
        device_name = cpu_name()
    return {
        "device": device.type,
        "device_name": device_name,
        "torch": torch.__version__,
        "python": platform.python_version(),
    }


def to_numpy(values, dtype=None) -> np.ndarray:
    """A NumPy array of ``values``; a tensor is detached and copied to the CPU first.

    NumPy cannot read a tensor that lives on a GPU or that requires a gradient (an
    ``nn.Embedding`` weight, say); this works for both, and for lists and arrays.
    """
    if isinstance(values, torch.Tensor):
        values = values.detach().cpu().numpy()
    return np.asarray(values, dtype=dtype)

"""Run a kernel on a real GPU: CUDA (``cuda-bindings``) or HIP (``hip-python``).

``gpu.launch(..., device="cuda")`` compiles the kernel's gpu IR as ``to_ptx`` does, loads
it through the CUDA driver, copies the numpy arguments to the device, launches, times the
launch with events and copies the arrays back in place (``device="hip"``: the AMDGPU code
object through HIP). Nothing here imports a GPU package until a launch asks for one:

1. ``device_unavailable(device)``: why ``device`` cannot run here (package, driver, GPU
   missing), or ``None``; ``DeviceUnavailable`` is the error a launch raises then.
2. ``run_on_device(device, module, name, grid, block, args)``: one launch (``cuda.py``,
   ``hip.py``; the parameter list from ``arguments.py``), a ``DeviceRun``.

>>> device_unavailable("sim") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tinycomp.ir import Operation

__all__ = ["DEVICES", "DeviceRun", "DeviceUnavailable", "device_unavailable", "run_on_device"]

DEVICES = ("sim", "cuda", "hip")


class DeviceUnavailable(RuntimeError):
    """A launch asked for a device this machine cannot run on; the message says why.

    >>> str(DeviceUnavailable("no GPU"))
    'no GPU'
    """


@dataclass(frozen=True)
class DeviceRun:
    """What one launch on a real GPU measured."""

    device: str
    """The GPU's name as its driver reports it."""
    seconds: float
    """The kernel's time between two events around the launch (the fastest of repeats)."""


def _backend(device: str) -> Any:
    if device == "cuda":
        from tinycomp.gpu.devices import cuda

        return cuda
    if device == "hip":
        from tinycomp.gpu.devices import hip

        return hip
    raise ValueError(f"launch: device={device!r}: expected one of {', '.join(DEVICES)}")


def device_unavailable(device: str) -> str | None:
    """Step 1: why ``device`` ("sim", "cuda", "hip") cannot run here, or ``None``.

    >>> device_unavailable("sim") is None
    True
    """
    if device == "sim":
        return None
    try:
        _backend(device).open_device()
    except DeviceUnavailable as error:
        return str(error)
    return None


def run_on_device(
    device: str,
    module: Operation,
    name: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: Sequence[Any],
    *,
    repeats: int = 1,
) -> DeviceRun:
    """Step 2: launch ``@name`` of the gpu IR ``module`` on ``device``; arrays in place.

    >>> run_on_device("tpu", None, "k", (1, 1, 1), (1, 1, 1), [])
    Traceback (most recent call last):
    ...
    ValueError: launch: device='tpu': expected one of sim, cuda, hip
    """
    return _backend(device).run(module, name, grid, block, list(args), repeats=repeats)

"""One kernel launch through HIP (``hip-python``, ``pip install "tinycomp[hip]"``).

1. ``open_device``: import ``hip.hip``, the first GPU and its ``gcnArchName``;
   ``DeviceUnavailable`` names what is missing (the package, the runtime, a GPU).
2. The AMDGPU code object for that architecture (``amdgpu_object`` of the IR prepared as
   for PTX), linked into a shared object by ``ld.lld`` (the HIP loader wants one), loaded
   with ``hipModuleLoadData``.
3. Arrays copied with ``hipMalloc``/``hipMemcpy``; the parameter list of ``arguments.py``
   passed as ``extra`` (hip-python packs it into the kernel argument segment).
4. ``hipModuleLaunchKernel`` between two events; arrays copied back in place.

>>> open_device.__name__
'open_device'
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from tinycomp.codegen.gpu import AMDGPU_ARCHES, amdgpu_object
from tinycomp.gpu.devices import DeviceRun, DeviceUnavailable
from tinycomp.gpu.devices.arguments import kernel_parameters, with_pointers
from tinycomp.gpu.ptx import prepared_for_ptx
from tinycomp.ir import Operation
from tinycomp.targets.gpu_sim.simulator import find_kernel

__all__ = ["open_device", "run"]


def _check(hip: Any, result: Any, what: str) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != hip.hipError_t.hipSuccess:
        raise RuntimeError(f"device='hip': {what} failed with {err}")
    return rest[0] if len(rest) == 1 else (rest or None)


@cache
def open_device() -> tuple[Any, str, str]:
    """Step 1: the ``hip`` module, the first GPU's name and architecture."""
    try:
        from hip import hip
    except ImportError:
        raise DeviceUnavailable(
            "device='hip' needs hip-python: pip install \"tinycomp[hip]\""
        ) from None
    except Exception as error:  # the package is there, the ROCm runtime is not
        raise DeviceUnavailable(f"device='hip': no HIP runtime found ({error})") from None
    try:
        count = _check(hip, hip.hipGetDeviceCount(), "hipGetDeviceCount")
    except Exception as error:
        raise DeviceUnavailable(f"device='hip': no GPU ({error})") from None
    if not count:
        raise DeviceUnavailable("device='hip': no GPU (the HIP runtime sees none)")
    props = hip.hipDeviceProp_t()
    _check(hip, hip.hipGetDeviceProperties(props, 0), "hipGetDeviceProperties")
    arch = props.gcnArchName.decode().split(":")[0]
    if arch not in AMDGPU_ARCHES:
        raise DeviceUnavailable(
            f"device='hip': expected a {' or '.join(AMDGPU_ARCHES)}, found {arch}"
        )
    if shutil.which("ld.lld") is None:
        raise DeviceUnavailable("device='hip': ld.lld is not on PATH (it links the code object)")
    return hip, props.name.decode(), arch


def _linked(code: bytes) -> bytes:
    """Step 2: the relocatable code object as the shared object HIP loads."""
    with tempfile.TemporaryDirectory() as directory:
        source, target = Path(directory) / "k.o", Path(directory) / "k.hsaco"
        source.write_bytes(code)
        subprocess.run(["ld.lld", "-shared", str(source), "-o", str(target)], check=True)
        return target.read_bytes()


def run(
    module: Operation,
    name: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: Sequence[Any],
    *,
    repeats: int = 1,
) -> DeviceRun:
    """Steps 1-4: launch ``@name`` of gpu IR ``module`` on the first HIP GPU."""
    hip, device_name, arch = open_device()
    prepared = prepared_for_ptx(module, clean=False)
    params = kernel_parameters(find_kernel(prepared, name), args)
    loaded = _check(hip, hip.hipModuleLoadData(_linked(amdgpu_object(prepared, arch))), "load")
    function = _check(hip, hip.hipModuleGetFunction(loaded, name.encode()), "get function")
    arrays = {i: a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
    buffers = {
        i: _check(hip, hip.hipMalloc(max(a.nbytes, 1)), "hipMalloc") for i, a in arrays.items()
    }
    try:
        bound = with_pointers(params, {i: int(b) for i, b in buffers.items()})
        values = tuple(p.c_value() for p in bound)
        start = _check(hip, hip.hipEventCreate(), "hipEventCreate")
        end = _check(hip, hip.hipEventCreate(), "hipEventCreate")
        best = float("inf")
        for _ in range(max(repeats, 1)):
            for i, a in arrays.items():
                _check(
                    hip,
                    hip.hipMemcpy(buffers[i], a, a.nbytes, hip.hipMemcpyKind.hipMemcpyHostToDevice),
                    "hipMemcpy",
                )
            _check(hip, hip.hipEventRecord(start, None), "hipEventRecord")
            _check(
                hip,
                hip.hipModuleLaunchKernel(
                    function,
                    *grid,
                    *block,
                    sharedMemBytes=0,
                    stream=None,
                    kernelParams=None,
                    extra=values,
                ),
                "hipModuleLaunchKernel",
            )
            _check(hip, hip.hipEventRecord(end, None), "hipEventRecord")
            _check(hip, hip.hipEventSynchronize(end), "hipEventSynchronize")
            best = min(best, _check(hip, hip.hipEventElapsedTime(start, end), "elapsed") / 1e3)
        for i, a in arrays.items():
            _check(
                hip,
                hip.hipMemcpy(a, buffers[i], a.nbytes, hip.hipMemcpyKind.hipMemcpyDeviceToHost),
                "hipMemcpy",
            )
    finally:
        for buffer in buffers.values():
            hip.hipFree(buffer)
        hip.hipModuleUnload(loaded)
    return DeviceRun(device_name, best)

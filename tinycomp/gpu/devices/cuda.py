"""One kernel launch through the CUDA driver (``cuda-bindings``, ``pip install "tinycomp[cuda]"``).

1. ``open_device``: import the driver bindings, ``cuInit``, the first GPU's primary
   context; ``DeviceUnavailable`` names what is missing (the package, the driver, a GPU).
2. PTX for the GPU's architecture (``prepared_for_ptx`` and ``ptx_kernel``, as ``to_ptx``),
   loaded with ``cuModuleLoadData`` (the driver assembles it).
3. Each array copied to a device buffer; the parameter list of ``arguments.py``.
4. ``cuLaunchKernel`` between two events, ``repeats`` times (inputs copied again before
   each), synchronised; the fastest time; the arrays copied back in place.

>>> open_device.__name__
'open_device'
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from functools import cache
from typing import Any

import numpy as np

from tinycomp.codegen.gpu import NVPTX_ARCHES
from tinycomp.gpu.devices import DeviceRun, DeviceUnavailable
from tinycomp.gpu.devices.arguments import kernel_parameters, with_pointers
from tinycomp.gpu.ptx import prepared_for_ptx, ptx_kernel
from tinycomp.ir import Operation
from tinycomp.targets.gpu_sim.simulator import find_kernel

__all__ = ["open_device", "run"]

INSTALL = 'pip install "tinycomp[cuda]"'


def _driver() -> Any:
    try:
        from cuda.bindings import driver
    except ImportError:
        try:
            from cuda import cuda as driver  # cuda-python before 12.6
        except ImportError:
            raise DeviceUnavailable(
                f"device='cuda' needs the CUDA Python bindings: {INSTALL}"
            ) from None
    return driver


def _check(driver: Any, result: Any, what: str) -> Any:
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != driver.CUresult.CUDA_SUCCESS:
        _, name = driver.cuGetErrorName(err)
        raise RuntimeError(f"device='cuda': {what} failed with {name.decode()}")
    return rest[0] if len(rest) == 1 else rest


@cache
def open_device() -> tuple[Any, Any, str, str]:
    """Step 1: the driver module, the first GPU's primary context, its name and PTX arch."""
    driver = _driver()
    try:
        (err,) = driver.cuInit(0)
    except Exception as error:  # the bindings are there, libcuda is not
        raise DeviceUnavailable(f"device='cuda': no CUDA driver found ({error})") from None
    if err != driver.CUresult.CUDA_SUCCESS:
        raise DeviceUnavailable(f"device='cuda': no CUDA driver found (cuInit: {err})")
    if _check(driver, driver.cuDeviceGetCount(), "cuDeviceGetCount") == 0:
        raise DeviceUnavailable("device='cuda': no GPU (the CUDA driver sees none)")
    dev = _check(driver, driver.cuDeviceGet(0), "cuDeviceGet")
    name = _check(driver, driver.cuDeviceGetName(64, dev), "cuDeviceGetName")
    attribute = driver.CUdevice_attribute
    major = _check(
        driver,
        driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
        "cuDeviceGetAttribute",
    )
    minor = _check(
        driver,
        driver.cuDeviceGetAttribute(attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
        "cuDeviceGetAttribute",
    )
    context = _check(driver, driver.cuDevicePrimaryCtxRetain(dev), "cuDevicePrimaryCtxRetain")
    fitting = [a for a in NVPTX_ARCHES if int(a[3:]) <= major * 10 + minor]
    arch = max(fitting, key=lambda a: int(a[3:])) if fitting else "sm_80"
    return driver, context, name.split(b"\0")[0].decode(), arch


def run(
    module: Operation,
    name: str,
    grid: tuple[int, int, int],
    block: tuple[int, int, int],
    args: Sequence[Any],
    *,
    repeats: int = 1,
) -> DeviceRun:
    """Steps 1-4: launch ``@name`` of gpu IR ``module`` on the first CUDA GPU."""
    driver, context, device_name, arch = open_device()
    _check(driver, driver.cuCtxSetCurrent(context), "cuCtxSetCurrent")
    prepared = prepared_for_ptx(module, clean=False)
    text = ptx_kernel(prepared, name, arch, assemble=False).ptx
    params = kernel_parameters(find_kernel(prepared, name), args)
    loaded = _check(driver, driver.cuModuleLoadData(text.encode() + b"\0"), "cuModuleLoadData")
    buffers: dict[int, Any] = {}
    try:
        function = _check(driver, driver.cuModuleGetFunction(loaded, name.encode()), "get")
        arrays = {i: a for i, a in enumerate(args) if isinstance(a, np.ndarray)}
        for i, array in arrays.items():
            buffers[i] = _check(driver, driver.cuMemAlloc(max(array.nbytes, 1)), "cuMemAlloc")
        values = [
            p.c_value() for p in with_pointers(params, {i: int(b) for i, b in buffers.items()})
        ]
        addresses = np.array([ctypes.addressof(v) for v in values], dtype=np.uint64)
        start = _check(driver, driver.cuEventCreate(0), "cuEventCreate")
        end = _check(driver, driver.cuEventCreate(0), "cuEventCreate")
        best = float("inf")
        for _ in range(max(repeats, 1)):
            for i, array in arrays.items():
                _check(
                    driver,
                    driver.cuMemcpyHtoD(buffers[i], array.ctypes.data, array.nbytes),
                    "cuMemcpyHtoD",
                )
            _check(driver, driver.cuEventRecord(start, 0), "cuEventRecord")
            _check(
                driver,
                driver.cuLaunchKernel(function, *grid, *block, 0, 0, addresses.ctypes.data, 0),
                "cuLaunchKernel",
            )
            _check(driver, driver.cuEventRecord(end, 0), "cuEventRecord")
            _check(driver, driver.cuEventSynchronize(end), "cuEventSynchronize")
            ms = _check(driver, driver.cuEventElapsedTime(start, end), "cuEventElapsedTime")
            best = min(best, ms / 1e3)
        for i, array in arrays.items():
            _check(
                driver,
                driver.cuMemcpyDtoH(array.ctypes.data, buffers[i], array.nbytes),
                "cuMemcpyDtoH",
            )
        driver.cuEventDestroy(start)
        driver.cuEventDestroy(end)
    finally:
        for buffer in buffers.values():
            driver.cuMemFree(buffer)
        driver.cuModuleUnload(loaded)
    return DeviceRun(device_name, best)

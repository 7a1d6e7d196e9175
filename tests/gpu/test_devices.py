"""Launching on a real GPU: the parameter list, the errors without one, a real run."""

from __future__ import annotations

import builtins
import re

import numpy as np
import pytest

import tinycomp
from tinycomp import gpu
from tinycomp.codegen.gpu import amdgpu_assembly
from tinycomp.gpu.compiled_ptx import compiled_ptx, device_module_of
from tinycomp.gpu.devices import DeviceUnavailable, device_unavailable
from tinycomp.gpu.devices import cuda as cuda_backend
from tinycomp.gpu.devices import hip as hip_backend
from tinycomp.gpu.devices.arguments import kernarg, kernel_parameters, with_pointers
from tinycomp.gpu.devices.launching import run_program
from tinycomp.gpu.ptx import prepared_for_ptx
from tinycomp.targets.gpu_sim.simulator import find_kernel


@gpu.kernel
def axpy(x, y, a, n):
    i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
    if i < n:
        y[i] = a * x[i] + y[i]


def _args(rng):
    x = rng.standard_normal(100).astype(np.float32)
    y = rng.standard_normal(100).astype(np.float32)
    return [x, y, np.float32(rng.uniform(1, 2)), np.int32(100)]


def _ptx_params(ptx: str, name: str) -> list[int]:
    entry = ptx[ptx.index(f".entry {name}(") :]
    header = entry[: entry.index(")")]
    return [int(width) for width in re.findall(r"\.param\s+\.[a-z]+(\d+)", header)]


def test_dsl_kernel_parameters_match_the_ptx_entry():
    args = _args(np.random.default_rng(0))
    compiled = gpu.to_ptx(axpy, args, assemble=False)
    module = prepared_for_ptx(axpy.specialize(*args))
    params = kernel_parameters(find_kernel(module), args)
    assert [p.size * 8 for p in params] == _ptx_params(compiled.ptx, "axpy")
    assert [p.name for p in params][-2:] == ["a", "n"]
    assert params[-2].value == pytest.approx(float(args[2])) and params[-1].value == 100
    assert params[3].value == 100 and params[4].value == 1  # x's size and stride


def test_compiled_kernel_parameters_match_the_ptx_entry():
    x = np.random.default_rng(1).standard_normal((4, 32)).astype(np.float32)
    program = tinycomp.compile(lambda x: x * 2.0 + 1.0, x, target="gpu-sim")
    module = prepared_for_ptx(device_module_of(program))
    func = find_kernel(module, "main_kernel")
    args = [np.zeros(t.shape, np.float32) for t in (a.type for a in func.arguments)]
    params = kernel_parameters(func, args)
    ptx = compiled_ptx(program, assemble=False)["main_kernel"].ptx
    assert [p.size * 8 for p in params] == _ptx_params(ptx, "main_kernel")


def test_kernarg_offsets_match_the_amdgpu_metadata():
    args = _args(np.random.default_rng(2))
    module = prepared_for_ptx(axpy.specialize(*args))
    params = with_pointers(kernel_parameters(find_kernel(module), args), {0: 4096, 1: 8192})
    data, offsets = kernarg(params)
    text = amdgpu_assembly(module, "gfx90a")
    metadata = text[text.index("amdhsa.kernels") :]
    found = [int(o) for o in re.findall(r"\.offset:\s+(\d+)", metadata)]
    assert len(offsets) == 12 and found[: len(offsets)] == offsets
    size = int(re.search(r"\.amdhsa_kernarg_size\s+(\d+)", text).group(1))
    assert len(data) <= size


def _no_module(prefix):
    real = builtins.__import__

    def fake(name, *args, **kwargs):
        if name == prefix or name.startswith(prefix + "."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    return fake


@pytest.mark.parametrize(("device", "package", "backend"), [
    ("cuda", "cuda", cuda_backend), ("hip", "hip", hip_backend)])  # fmt: skip
def test_without_the_package_the_launch_says_what_to_install(monkeypatch, device, package, backend):
    backend.open_device.cache_clear()
    monkeypatch.setattr(builtins, "__import__", _no_module(package))
    try:
        reason = device_unavailable(device)
        assert reason is not None and f"tinycomp[{device}]" in reason
        x = np.random.default_rng(3).standard_normal(32).astype(np.float32)
        y = np.zeros_like(x)
        with pytest.raises(DeviceUnavailable, match=re.escape(f"tinycomp[{device}]")):
            gpu.launch(axpy, 1, 32, [x, y, np.float32(2), np.int32(32)], device=device)
        assert not y.any()  # nothing ran
    finally:
        backend.open_device.cache_clear()


def test_an_unknown_device_is_named():
    x = np.ones(32, np.float32)
    with pytest.raises(ValueError, match="device='tpu'"):
        gpu.launch(axpy, 1, 32, [x, x.copy(), np.float32(2), np.int32(32)], device="tpu")


CUDA_REASON = device_unavailable("cuda")


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_axpy_on_a_cuda_gpu_equals_numpy():
    x, y, a, n = _args(np.random.default_rng(4))
    expected = a * x + y
    result = gpu.launch(axpy, 4, 32, [x, y, a, n], device="cuda")
    np.testing.assert_allclose(y, expected, rtol=1e-6)
    assert result.measured_seconds > 0 and result.device != "sim"


@pytest.mark.skipif(CUDA_REASON is not None, reason=str(CUDA_REASON))
def test_a_compiled_program_on_a_cuda_gpu_equals_numpy():
    x = np.random.default_rng(5).standard_normal((64, 256)).astype(np.float32)
    program = tinycomp.compile(lambda x: x * 2.0 + 1.0, x, target="gpu-sim")
    np.testing.assert_allclose(run_program(program, x, device="cuda"), x * 2 + 1, rtol=1e-6)

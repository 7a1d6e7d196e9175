"""Errors through ``gpu.launch``: each names the kernel and what was wrong, and leaves
every array as it was."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from frontend.simt import kernels

from tinycomp import gpu

RNG = np.random.default_rng(11)


@gpu.kernel
def spin(out, n):
    i = 0
    while i < n:
        out[i] = 1.0
        i = i * 1


@gpu.kernel
def too_much_shared(out):
    staging = gpu.shared.array(8192, gpu.float32)  # 32 KiB: classroom allows 16 KiB
    staging[gpu.thread_idx.x] = out[gpu.thread_idx.x]
    gpu.syncthreads()
    out[gpu.thread_idx.x] = staging[gpu.thread_idx.x] * 2.0


def _spin_line() -> int:
    lines, first = inspect.getsourcelines(spin.fn)
    return first + next(n for n, text in enumerate(lines) if "while" in text)


@pytest.mark.parametrize("optimize", [True, False])
def test_a_loop_that_never_ends_is_stopped_at_its_line(optimize):
    out = RNG.standard_normal(32).astype(np.float32)
    original = out.copy()
    with pytest.raises(gpu.SanitizerError, match="step_limit = 1000") as error:
        gpu.launch(spin, 1, 32, (out, np.int32(5)), step_limit=1000, optimize=optimize)
    message = str(error.value)
    assert "kernel 'spin'" in message and "'scf.while'" in message
    assert error.value.line == _spin_line() and f":{_spin_line()}" in message
    assert message.endswith("no array was changed")
    np.testing.assert_array_equal(out, original)


def test_shared_memory_over_the_preset_limit():
    out = RNG.standard_normal(32).astype(np.float32)
    original = out.copy()
    with pytest.raises(gpu.LaunchError, match="32768 bytes of shared memory .* 16384 bytes"):
        gpu.launch(too_much_shared, 1, 32, (out,), preset="classroom")
    np.testing.assert_array_equal(out, original)
    gpu.launch(too_much_shared, 1, 32, (out,), preset="h100")  # 228 KiB there
    np.testing.assert_array_equal(out, 2 * original)


@pytest.mark.parametrize(
    ("grid", "block", "message"),
    [
        (10**10, 32, "grid dimension x = 10000000000 is more than the largest grid dimension x"),
        (1, 2048, "a block of 2048 threads .* more than the 256 threads per block"),
    ],
)
def test_launch_shapes_over_the_preset_limits(grid, block, message):
    args = kernels.saxpy_args(64)
    before = [np.copy(a) for a in args]
    with pytest.raises(gpu.LaunchError, match=message) as error:
        gpu.launch(kernels.saxpy, grid, block, args)
    assert "kernel 'saxpy'" in str(error.value) and "'classroom'" in str(error.value)
    for now, then in zip(args, before, strict=True):
        np.testing.assert_array_equal(now, then)


def test_wrong_arguments_name_the_kernel_and_the_argument():
    a, x, y, n = kernels.saxpy_args(64)
    y_before = y.copy()
    with pytest.raises(gpu.KernelArgumentError, match=r"takes 4 arguments \(a, x, y, n\), got 3"):
        gpu.launch(kernels.saxpy, 1, 64, (a, x, y))
    with pytest.raises(TypeError, match="argument 'x': expected an array of float32"):
        gpu.launch(kernels.saxpy, 1, 64, (a, x.astype(np.float64), y, n))
    np.testing.assert_array_equal(y, y_before)


def test_wrong_arguments_for_ir_passed_directly():
    a, x, y, n = kernels.saxpy_args(64)
    module = kernels.saxpy.specialize(a, x, y, n)
    y_before = y.copy()
    with pytest.raises(gpu.ArgumentError, match=r"argument 1 \(%x\) expected a numpy array"):
        gpu.launch(module, 1, 64, (a, list(x), y, n))
    np.testing.assert_array_equal(y, y_before)
    gpu.launch(module, 1, 64, (a, x, y, n))
    np.testing.assert_array_equal(y, a * x + y_before)

"""What ``gpu.launch`` keeps between launches of one specialisation (the cleaned IR, the
compiled program, the counted access patterns) changes neither results nor counters: a
second launch on new random inputs matches numpy, and its counters are those of a
simulation that keeps nothing."""

from __future__ import annotations

import numpy as np
import pytest
from frontend.simt import kernels

from tinycomp import gpu
from tinycomp.targets.gpu_sim.compiled_cache import _PROGRAMS
from tinycomp.targets.gpu_sim.errors import ArgumentError
from tinycomp.targets.gpu_sim.simulator import simulate

from .launches import LAUNCHES, redrawn


def _check(name: str, before: tuple, after: tuple) -> None:
    expected = LAUNCHES[name].expected(before)
    for position, want in expected.items():
        if LAUNCHES[name].exact:
            np.testing.assert_array_equal(after[position], want)
        else:
            np.testing.assert_allclose(after[position], want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", sorted(kernels.KERNELS))
def test_a_second_launch_matches_numpy_and_a_simulation_that_keeps_nothing(name):
    kernel, make_args = kernels.KERNELS[name]
    plan = LAUNCHES[name]
    first_args = make_args()
    first = gpu.launch(kernel, plan.grid(first_args), plan.block, first_args)
    args = redrawn(make_args(), seed=11)
    before = tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)
    second = gpu.launch(kernel, plan.grid(args), plan.block, args)
    _check(name, before, args)
    assert second.module is first.module  # cleaned once
    assert second.registers is first.registers
    reference_args = [np.copy(a) if isinstance(a, np.ndarray) else a for a in before]
    reference = simulate(second.module, plan.grid(args), plan.block, reference_args)
    for counter, values in reference.counters.per_block.items():
        np.testing.assert_array_equal(second.counters.per_block[counter], values, err_msg=counter)
    assert second.counters.footprint_sectors == reference.counters.footprint_sectors


def test_the_program_is_kept_per_scalar_value_and_each_is_right():
    kernel, make_args = kernels.KERNELS["saxpy"]
    plan = LAUNCHES["saxpy"]
    for n in (1000, 600, 1000):
        a, x, y, _ = make_args()
        x = np.random.default_rng(n).standard_normal(1000).astype(np.float32)
        want = y.copy()
        want[:n] = a * x[:n] + y[:n]
        args = (a, x, y, np.int32(n))
        result = gpu.launch(kernel, plan.grid(args), plan.block, args)
        np.testing.assert_array_equal(y, want)
    func = next(op for op in result.module.walk() if op.name == "gpu.func")
    assert len(_PROGRAMS[func]) == 2  # n = 1000 and n = 600


def test_the_kept_program_still_checks_its_arguments():
    kernel, make_args = kernels.KERNELS["saxpy"]
    plan = LAUNCHES["saxpy"]
    args = make_args()
    gpu.launch(kernel, plan.grid(args), plan.block, args)
    a, x, y, n = make_args()
    y.flags.writeable = False
    with pytest.raises(ArgumentError, match=r"argument 2 \(%y\) expected a writeable array"):
        gpu.launch(kernel, plan.grid(args), plan.block, (a, x, y, n))


def test_a_kept_program_reports_an_out_of_bounds_access_of_a_later_launch():
    kernel, make_args = kernels.KERNELS["saxpy"]
    a, x, y, _ = make_args()
    gpu.launch(kernel, 4, 256, (a, x, y, np.int32(1000)))
    message = r"kernels.py:29, block \(3, 0, 0\).*read of size 4 bytes at x\[1000\]"
    with pytest.raises(gpu.SanitizerError, match=message) as error:
        gpu.launch(kernel, 5, 256, (a, x, y, np.int32(1100)))
    assert error.value.kind == "out-of-bounds"

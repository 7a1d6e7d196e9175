"""Structural values kept between launches of a kept program (``structural.py``): a
relaunch on new random arrays restores the index arithmetic and masks of the first
launch, and gives results equal to numpy and counters equal to the first launch's."""

from __future__ import annotations

import numpy as np
import pytest
from frontend.simt import kernels
from gpu.launches import LAUNCHES, redrawn

from tinycomp import gpu
from tinycomp.ir import parse
from tinycomp.targets.gpu_sim.compiled_cache import _PROGRAMS
from tinycomp.targets.gpu_sim.simulator import find_kernel, simulate

from .sim_kernels import GLOBAL_INDEX, kernel


def _copied(args: tuple) -> tuple:
    return tuple(np.copy(a) if isinstance(a, np.ndarray) else a for a in args)


def _check_against_numpy(name: str, before: tuple, after: tuple) -> None:
    for position, want in LAUNCHES[name].expected(before).items():
        if LAUNCHES[name].exact:
            np.testing.assert_array_equal(after[position], want)
        else:
            np.testing.assert_allclose(after[position], want, rtol=1e-4, atol=1e-4)


DATA_DEPENDENT = {"histogram"}
"""Kernels whose addresses come from the data (their counters change with it)."""


def _assert_same_counters(got, want) -> None:
    for counter, values in want.per_block.items():
        np.testing.assert_array_equal(got.per_block[counter], values, counter)
    assert got.footprint_sectors == want.footprint_sectors


@pytest.mark.parametrize("name", sorted(kernels.KERNELS))
def test_relaunches_match_numpy_and_count_as_the_first_launch(name):
    kernel_fn, make_args = kernels.KERNELS[name]
    plan = LAUNCHES[name]
    runs = []
    for seed in (3, 4, 5):  # the second restores the values, the third finds them by identity
        args = redrawn(make_args(), seed)
        before = _copied(args)
        run = gpu.launch(kernel_fn, plan.grid(args), plan.block, args)
        _check_against_numpy(name, before, args)
        fresh = simulate(run.module, plan.grid(args), plan.block, list(_copied(before)))
        _assert_same_counters(run.counters, fresh.counters)  # as a program that keeps nothing
        runs.append(run)
    if name not in DATA_DEPENDENT:
        for later in runs[1:]:
            _assert_same_counters(later.counters, runs[0].counters)
    programs = _PROGRAMS[find_kernel(runs[-1].module)].values()
    assert any(program.structural.layouts for program in programs)


SCALE = kernel(
    GLOBAL_INDEX
    + """
    %n = memref.dim %x, %c0 : memref<?xf32>
    %ok = arith.cmpi slt, %i, %n : index
    scf.if %ok {
      %v = memref.load %x[%i] : memref<?xf32>
      %w = arith.mulf %v, %v : f32
      memref.store %w, %x[%i] : memref<?xf32>
    }""",
    "%x: memref<?xf32>",
).replace("%bx = gpu.block_id  x", "%c0 = arith.constant 0 : index\n    %bx = gpu.block_id  x")


def test_the_index_and_the_mask_are_kept_read_only_and_count_as_a_fresh_run():
    module = parse(SCALE)
    func = find_kernel(module)
    rng = np.random.default_rng(9)
    for _ in range(2):
        x = rng.standard_normal(100).astype(np.float32)
        expected = x * x
        simulate(module, grid=4, block=32, args=[x], keep_compiled=True)
        np.testing.assert_array_equal(x, expected)
    (program,) = _PROGRAMS[func].values()
    (layout,) = program.structural.layouts.values()
    names = {program.slots[r]: r for r in program.slots}
    kept = {names[slot].name_hint: value for slot, value in layout.values if slot in names}
    assert kept["i"].tolist() == list(range(128))
    assert kept["ok"].tolist() == [i < 100 for i in range(128)]
    assert not kept["i"].flags.writeable and layout.offsets
    kept_run = simulate(module, grid=4, block=32, args=[x.copy()], keep_compiled=True)
    fresh_run = simulate(module, grid=4, block=32, args=[x.copy()])
    for counter, values in fresh_run.counters.per_block.items():
        np.testing.assert_array_equal(kept_run.counters.per_block[counter], values, counter)

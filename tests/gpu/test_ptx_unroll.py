"""``to_ptx(..., unroll=True)``: the SGEMM worklog's register-tiled kernels keep their
per-thread arrays in registers (no stack frame, no local memory), still compute
``alpha * A @ B + beta * C`` on the simulator once unrolled, and their PTX issues as
many FFMAs in the main loop as the simulator counts for it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tinycomp import gpu
from tinycomp.codegen.gpu.ptxas import ptxas_unavailable
from tinycomp.gpu.cleanup import cleaned_once
from tinycomp.gpu.ptx import fully_unrolled
from tinycomp.ir import Operation
from tinycomp.passes.unroll import constant_trip_count, is_fully_unrollable
from tinycomp.targets.gpu_sim.emitted_code import UNROLL_LIMIT, EmittedCode
from tinycomp.targets.gpu_sim.simulator import find_kernel
from tinycomp.testing.sgemm_worklog import SGEMM_KERNELS, sgemm_kernel

requires_ptxas = pytest.mark.skipif(
    ptxas_unavailable() is not None, reason=str(ptxas_unavailable())
)

REGISTER_TILED = ["blocktile_2d", "vectorized", "warptile"]
"""The worklog kernels whose results live in a per-thread array."""

SIZE = 128


def _sgemm_arguments(seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    a, b, c = rng.standard_normal((3, SIZE, SIZE)).astype(np.float32)
    n = np.int32(SIZE)
    return a, b, c, n, n, n, np.float32(1.5), np.float32(-0.5)


def _cleaned(name: str, args: tuple) -> Operation:
    return cleaned_once(sgemm_kernel(name).kernel.specialize(*args))


def _main_loop(func: Operation) -> Operation:
    """The one ``scf.for`` over the tiles of K (its bound is ``K``, known at run time)."""
    (loop,) = [op for op in func.walk() if op.name == "scf.for" and constant_trip_count(op) is None]
    return loop


def _simulated_fp32_per_iteration(func: Operation) -> int:
    """The fp32 instructions the simulator counts for one iteration of the main loop:
    each op's class from ``EmittedCode``, times the trips of the unrolled loops around it."""
    code = EmittedCode(func)
    loop = _main_loop(func)
    total = 0
    for op in loop.walk():
        if op is loop or code.instruction_class(op) != "fp32":
            continue
        copies = 1
        parent = op.parent_op()
        while parent is not loop:
            if parent in code.unrolled:
                copies *= constant_trip_count(parent) or 0
            parent = parent.parent_op()
        total += copies
    return total


def _ptx_loop_bodies(ptx: str) -> list[list[str]]:
    """The instructions between each label and a later branch back to it."""
    lines = [line.strip() for line in ptx.splitlines()]
    bodies = []
    for start, line in enumerate(lines):
        label = re.fullmatch(r"(\$L__\w+):", line)
        if label is None:
            continue
        for end in range(start + 1, len(lines)):
            if re.search(rf"\bbra(\.uni)?\s+{re.escape(label.group(1))};", lines[end]):
                bodies.append(lines[start + 1 : end])
                break
    return bodies


@requires_ptxas
@pytest.mark.parametrize("name", REGISTER_TILED)
def test_unrolled_register_tiles_need_no_stack_frame(name: str):
    compiled = gpu.to_ptx(sgemm_kernel(name).kernel, _sgemm_arguments(0), "a6000")
    resources = compiled.resources
    assert resources is not None, compiled.note
    assert resources.stack_frame == 0
    assert resources.spill_stores == 0 and resources.spill_loads == 0
    assert not compiled.lines("ld.local", "st.local")


@requires_ptxas
def test_without_unrolling_llvm_leaves_the_arrays_in_local_memory():
    compiled = gpu.to_ptx(sgemm_kernel("warptile").kernel, _sgemm_arguments(0), "a6000",
                          unroll=False)  # fmt: skip
    assert compiled.resources is not None and compiled.resources.stack_frame > 0
    assert compiled.lines("ld.local", "st.local")


@pytest.mark.parametrize("name", REGISTER_TILED)
def test_the_unrolled_kernels_still_compute_the_gemm(name: str):
    step = sgemm_kernel(name)
    args = _sgemm_arguments(1)
    a, b, c = (x.copy() for x in args[:3])
    expected = 1.5 * a.astype(np.float64) @ b - 0.5 * c
    unrolled = fully_unrolled(_cleaned(name, args))
    gpu.launch(unrolled, step.grid(SIZE, SIZE, SIZE), step.block, args, "a6000")
    np.testing.assert_allclose(args[2], expected, rtol=1e-4, atol=1e-4)
    assert not [op for op in unrolled.walk() if is_fully_unrollable(op)]


@pytest.mark.parametrize("name", REGISTER_TILED)
def test_the_ptx_main_loop_has_the_ffmas_the_simulator_counts(name: str):
    args = _sgemm_arguments(2)
    cleaned = _cleaned(name, args)
    counted = _simulated_fp32_per_iteration(find_kernel(cleaned))
    unrolled = _simulated_fp32_per_iteration(find_kernel(fully_unrolled(cleaned)))
    compiled = gpu.to_ptx(sgemm_kernel(name).kernel, args, "a6000", assemble=False)
    (body,) = _ptx_loop_bodies(compiled.ptx)
    ffmas = sum(line.startswith("fma.rn.f32") for line in body)
    others = [line for line in body if re.match(r"(add|sub|mul)(\.rn)?\.f32", line)]
    assert counted == unrolled == ffmas and not others
    assert ffmas == {"blocktile_2d": 512, "vectorized": 512, "warptile": 2048}[name]


@pytest.mark.parametrize("step", SGEMM_KERNELS, ids=lambda step: step.name)
def test_the_pass_unrolls_exactly_the_loops_the_simulator_counts_as_unrolled(step):
    func = find_kernel(_cleaned(step.name, _sgemm_arguments(3)))
    code = EmittedCode(func)
    loops = [op for op in func.walk() if op.name == "scf.for"]
    assert loops and UNROLL_LIMIT == 64
    assert [is_fully_unrollable(op) for op in loops] == [op in code.unrolled for op in loops]


@gpu.kernel
def warp_sums(x, out):
    t = gpu.block_idx.x * 32 + gpu.thread_idx.x
    v = x[t]
    for step in range(5):
        v += gpu.shfl_xor_sync(0xFFFFFFFF, v, 1 << step)
    out[t] = v


def test_loops_of_shuffles_unroll_and_keep_every_shuffle():
    rng = np.random.default_rng(4)
    x = rng.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    unrolled = fully_unrolled(cleaned_once(warp_sums.specialize(x, out)))
    shuffles = [op for op in unrolled.walk() if op.is_convergent]
    assert len(shuffles) == 5 and not [op for op in unrolled.walk() if op.name == "scf.for"]
    gpu.launch(unrolled, 2, 32, (x, out))
    expected = np.repeat(x.reshape(2, 32).astype(np.float64).sum(axis=1), 32)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-5)
    compiled = gpu.to_ptx(warp_sums, (x, out), assemble=False)
    assert len(compiled.lines("shfl.sync.bfly")) == 5

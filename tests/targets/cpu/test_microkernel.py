"""The micro-kernel: its tile equals the product of its packed slivers (full and edge
tiles, store and accumulate), in native code and in the interpreter; its inner loop is
vector FMAs on full-width registers with no spills."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.codegen.cpu import jit
from tinycomp.codegen.cpu.assembly_stats import hot_loop
from tinycomp.codegen.errors import CodegenError
from tinycomp.interp import interpret
from tinycomp.targets.cpu.blis import Blocking, choose_blocking
from tinycomp.targets.cpu.blis.microkernel import microkernel_ir
from tinycomp.targets.cpu.machine import detect_machine

TINY = Blocking(mr=3, nr=8, kc=6, mc=3, nc=8, lanes=4)


def module_text(blocking: Blocking) -> str:
    return "module {\n" + microkernel_ir(blocking) + "\n}"


def packed_slivers(blocking: Blocking, kc: int, seed: int):
    """Random MR x kc and kc x NR slivers in packed order, and their plain matrices."""
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((blocking.mr, kc)).astype(np.float32)
    b = rng.standard_normal((kc, blocking.nr)).astype(np.float32)
    return np.ascontiguousarray(a.T).ravel(), b.ravel().copy(), a, b


@pytest.fixture(scope="module")
def tiny_kernel():
    return jit(module_text(TINY))["microkernel"]


@pytest.mark.parametrize("overwrite", [True, False])
@pytest.mark.parametrize(("rows", "cols"), [(3, 8), (2, 8), (3, 5), (1, 1)])
def test_tile_equals_the_product(tiny_kernel, overwrite, rows, cols):
    kc = 6
    packed_a, packed_b, a, b = packed_slivers(TINY, kc, seed=rows * 10 + cols)
    rng = np.random.default_rng(1)
    c = rng.standard_normal((5, 12)).astype(np.float32)  # the tile sits at (1, 2) inside C
    before = c.copy()
    tiny_kernel(kc, packed_a, 0, packed_b, 0, c, 1, 2, rows, cols, overwrite)
    product = (a.astype(np.float64) @ b)[:rows, :cols]
    expected = before.astype(np.float64)
    expected[1 : 1 + rows, 2 : 2 + cols] = product + (
        0 if overwrite else before[1 : 1 + rows, 2 : 2 + cols]
    )
    np.testing.assert_allclose(c, expected, rtol=1e-5, atol=1e-5)  # nothing outside the tile


def test_interpreter_gives_the_same_tile(tiny_kernel):
    kc = 6
    packed_a, packed_b, _, _ = packed_slivers(TINY, kc, seed=7)
    native = np.random.default_rng(2).standard_normal((4, 9)).astype(np.float32)
    interpreted = native.copy()
    tiny_kernel(kc, packed_a, 0, packed_b, 0, native, 1, 1, 3, 8, False)
    interpret(module_text(TINY), kc, packed_a, 0, packed_b, 0, interpreted, 1, 1, 3, 8, False,
              entry="microkernel")  # fmt: skip
    np.testing.assert_array_equal(native, interpreted)


def test_host_microkernel_is_vector_fmas_without_spills():
    blocking = choose_blocking(detect_machine())
    module = jit(module_text(blocking))
    loop = hot_loop(module.assembly("microkernel"))
    register = {16: "zmm", 8: "ymm", 4: "xmm"}[blocking.lanes]
    assert loop.fma_registers == register
    assert loop.fmas % blocking.accumulators == 0  # one FMA per accumulator per k step
    steps = loop.fmas // blocking.accumulators
    assert loop.spills == 0
    assert loop.loads == steps * (blocking.mr + blocking.vectors_per_row)  # B vectors + A
    assert loop.broadcasts == steps * blocking.mr
    assert "vfmadd231ps" in loop.text


def test_avx2_tile_uses_ymm_registers():
    blocking = Blocking(mr=6, nr=16, kc=64, mc=6, nc=16, lanes=8)
    loop = hot_loop(jit(module_text(blocking)).assembly("microkernel"))
    assert loop.fma_registers == "ymm" and loop.fmas % 12 == 0 and loop.spills == 0


def test_hot_loop_needs_a_loop():
    with pytest.raises(CodegenError, match="found no loop"):
        hot_loop("f:\n  vaddps %zmm0, %zmm1, %zmm2\n  retq")

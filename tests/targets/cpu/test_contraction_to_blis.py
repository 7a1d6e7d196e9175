"""cpu-contraction-to-blis: contractions through the BLIS strategy inside ``compile``.

Every test compiles for ``target="cpu"`` with the pass after bufferization, checks the
result against numpy in float64 on random inputs, and checks that the strategy ran: the
decision says ``blis`` and the loops stage calls the generated driver, with no
``linalg.generic`` contraction left for the loops.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.codegen.cpu import jit
from tinycomp.compiler import CompileOptions
from tinycomp.ir import parse
from tinycomp.passes import LinalgToLoopsPass
from tinycomp.targets.cpu.blis import Blocking
from tinycomp.targets.cpu.contraction import match_contraction
from tinycomp.targets.cpu.contraction_to_blis import CpuContractionToBlisPass
from tinycomp.targets.cpu.machine import PRESETS
from tinycomp.testing import KERNELS, TOLERANCES, check_against_reference

SMALL = Blocking(mr=4, nr=16, kc=8, mc=8, nc=32, lanes=8)
"""Tiny blocks, so small shapes cross every block edge: several KC, MC and NC blocks,
partial micro-tiles and partial packed slivers."""

RTOL, ATOL = TOLERANCES["f32"]
FAST = (Phase.explicit, Phase.generate)
"""No shrinking: each example compiles a program (a second or so)."""
SIZES = st.sampled_from([1, 2, 7, 13, 16, 17, 31, 40])


def compile_blis(fn, *arrays, blocking: Blocking | None = SMALL, machine=None):
    blis = CpuContractionToBlisPass(machine=machine, blocking=blocking)
    options = CompileOptions(extra_passes={"bufferized": [blis]}, strategies={"blis": False})
    return tinycomp.compile(fn, *arrays, target="cpu", options=options), blis


def assert_blis_ran(program, blis, count: int = 1) -> None:
    chosen = [d for d in blis.decisions if d.chosen]
    assert len(chosen) == count, [str(d) for d in blis.decisions]
    assert all(d.strategy == "blis" for d in chosen)
    entry = program.stages["loops"].split("func.func private")[0]  # @main comes first
    assert entry.count("call @blis_") == count
    assert "linalg" not in entry and "func.func private @blis_" in program.stages["loops"]


def random(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


@settings(max_examples=10, deadline=None, phases=FAST)
@given(m=SIZES, n=SIZES, k=SIZES, a_t=st.booleans(), b_t=st.booleans(), seed=st.integers(0, 99))
def test_matmul_with_either_operand_transposed(m, n, k, a_t, b_t, seed):
    rng = np.random.default_rng(seed)
    a = random(rng, k, m) if a_t else random(rng, m, k)
    b = random(rng, n, k) if b_t else random(rng, k, n)

    def fn(x, y):
        return (x.T if a_t else x) @ (y.T if b_t else y)

    program, blis = compile_blis(fn, a, b)
    expected = fn(a.astype(np.float64), b.astype(np.float64))
    np.testing.assert_allclose(program(a, b), expected, rtol=RTOL, atol=ATOL)
    assert_blis_ran(program, blis)
    reason = blis.decisions[0].reason
    notes = {(False, False): "", (True, False): " (A transposed)",
             (False, True): " (B transposed)", (True, True): " (A and B transposed)"}  # fmt: skip
    note = notes[a_t, b_t]
    assert reason.startswith(f"f32 matmul {m}x{n}x{k}{note}, beta=0"), reason


@settings(max_examples=5, deadline=None, phases=FAST)
@given(batch=st.integers(1, 4), m=SIZES, n=SIZES, k=SIZES, seed=st.integers(0, 99))
def test_batch_matmul(batch, m, n, k, seed):
    rng = np.random.default_rng(seed)
    a, b = random(rng, batch, m, k), random(rng, batch, k, n)
    program, blis = compile_blis(lambda x, y: x @ y, a, b)
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(program(a, b), expected, rtol=RTOL, atol=ATOL)
    assert_blis_ran(program, blis)
    assert blis.decisions[0].reason.startswith(f"f32 batch matmul {batch} x {m}x{n}x{k}")
    assert "scf.for %batch" in program.stages["loops"] or batch == 1


@pytest.mark.parametrize(("m", "n", "k"), [(1, 1, 1), (1000, 7, 13), (13, 1000, 7), (7, 13, 1000)])
def test_odd_and_long_edges_with_the_machine_blocking(m, n, k):
    rng = np.random.default_rng(m + n + k)
    a, b = random(rng, m, k), random(rng, k, n)
    program, blis = compile_blis(lambda x, y: x @ y, a, b, blocking=None,
                                 machine=PRESETS["laptop-avx2"])  # fmt: skip
    expected = a.astype(np.float64) @ b.astype(np.float64)
    np.testing.assert_allclose(program(a, b), expected, rtol=RTOL, atol=ATOL)
    assert_blis_ran(program, blis)
    assert "MR=6 NR=16 KC=168 MC=192 NC=2720" in blis.decisions[0].reason


def test_two_matmuls_with_one_blocking_share_the_functions():
    rng = np.random.default_rng(3)
    a, b, c = random(rng, 9, 20), random(rng, 20, 11), random(rng, 11, 5)
    program, blis = compile_blis(lambda x, y, z: (x @ y) @ z, a, b, c)
    expected = (a.astype(np.float64) @ b) @ c
    np.testing.assert_allclose(program(a, b, c), expected, rtol=RTOL, atol=ATOL)
    assert_blis_ran(program, blis, count=2)
    assert program.stages["loops"].count("func.func private @blis_4x16_kc8_mc8_nc32_gemm_bn(") == 1


ACCUMULATE = """
func.func @main(%a: memref<9x21xf32>, %b: memref<21x17xf32>, %c: memref<9x17xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
      affine_map<(i, j, k) -> (k, j)>, affine_map<(i, j, k) -> (i, j)>],
      iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%a, %b : memref<9x21xf32>, memref<21x17xf32>) outs(%c : memref<9x17xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }
  return
}"""


def test_without_a_zero_fill_the_kernel_accumulates():
    module = parse(ACCUMULATE)
    blis = CpuContractionToBlisPass(blocking=SMALL)
    blis.run(module)
    LinalgToLoopsPass().run(module)
    assert "beta=1" in blis.decisions[0].reason
    rng = np.random.default_rng(5)
    a, b, c = random(rng, 9, 21), random(rng, 21, 17), random(rng, 9, 17)
    expected = c.astype(np.float64) + a.astype(np.float64) @ b
    jit(str(module))["main"](a, b, c)
    np.testing.assert_allclose(c, expected, rtol=RTOL, atol=ATOL)


@pytest.mark.parametrize("name", ["attention", "mlp2"])
def test_attention_and_mlp2_equal_numpy(name):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(7), "f32")
    program, blis = compile_blis(kernel.fn, *inputs)
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    chosen = [d for d in blis.decisions if d.chosen]
    assert chosen, [str(d) for d in blis.decisions]
    entry = program.stages["loops"].split("func.func private")[0]
    assert entry.count("call @blis_") == len(chosen)
    assert len(chosen) == 2 and "fused producer computed into a buffer" in chosen[1].reason
    if name == "attention":  # q @ k^T: B transposed inside the map, batched
        assert "batch matmul" in chosen[0].reason and "B transposed" in chosen[0].reason


@pytest.mark.parametrize("dtype", ["f16", "bf16"])
@pytest.mark.parametrize(("name", "contractions"), [("matmul", 1), ("mlp2", 2), ("attention", 2)])
def test_other_float_types_fall_back_with_the_reason(dtype, name, contractions):
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(1), dtype)
    program, blis = compile_blis(kernel.fn, *inputs)
    check_against_reference(kernel, program(*inputs), inputs, dtype)
    assert len(blis.decisions) == contractions, [str(d) for d in blis.decisions]
    for decision in blis.decisions:
        assert not decision.chosen and decision.strategy == "loops"
        assert decision.reason == f"{dtype}: the micro-kernel is f32"
    assert "@blis_" not in program.stages["loops"]


@settings(max_examples=4, deadline=None, phases=FAST)
@given(data=st.data(), name=st.sampled_from(["conv2d", "conv2d_plain"]), seed=st.integers(0, 99))
def test_conv2d_by_im2col(data, name, seed):
    kernel = KERNELS[name]
    shape = data.draw(kernel.shape_strategy())
    inputs = kernel.make_inputs(np.random.default_rng(seed), "f32", **shape)
    program, blis = compile_blis(kernel.fn, *inputs)
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    assert_blis_ran(program, blis)
    assert "conv2d by im2col" in blis.decisions[0].reason


def test_a_fused_producer_can_be_left_to_the_loops():
    kernel = KERNELS["mlp2"]
    inputs = kernel.make_inputs(np.random.default_rng(4), "f32")
    blis = CpuContractionToBlisPass(blocking=SMALL, split_producers=False)
    options = CompileOptions(extra_passes={"bufferized": [blis]}, strategies={"blis": False})
    program = tinycomp.compile(kernel.fn, *inputs, target="cpu", options=options)
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    first, second = blis.decisions
    assert first.chosen and not second.chosen
    assert second.reason == "a producer is fused into the payload (split_producers=False)"


def test_the_analysis_names_the_roles():
    module = parse(ACCUMULATE)
    generic = next(op for op in module.walk() if op.name == "linalg.generic")
    found = match_contraction(generic)
    assert (found.batch, found.m, found.n, found.k, found.mnk) == ((), 0, 1, 2, (9, 17, 21))
    softmax = KERNELS["softmax"].trace("f32")
    for op in softmax.walk():
        if op.name == "linalg.generic":
            assert not match_contraction(op).contraction_like


@pytest.mark.mlir
@pytest.mark.skipif(shutil.which("mlir-opt-22") is None, reason="mlir-opt-22 is not installed")
def test_mlir_opt_accepts_and_lowers_the_compiled_module(tmp_path):
    """The views (``memref.reinterpret_cast`` to ``strided<[?, ?], offset: ?>``), the
    private functions and the calls are MLIR that real ``mlir-opt`` verifies and lowers."""
    rng = np.random.default_rng(9)
    q, k = random(rng, 2, 7, 5), random(rng, 2, 9, 5)
    program, blis = compile_blis(lambda x, y: x @ y.transpose(0, 2, 1), q, k)
    assert_blis_ran(program, blis)
    path = tmp_path / "blis.mlir"
    path.write_text(program.stages["loops"])
    flags = ["--convert-scf-to-cf", "--convert-to-llvm", "--reconcile-unrealized-casts"]
    done = subprocess.run(["mlir-opt-22", str(path), *flags], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "llvm.func @main" in done.stdout and "llvm.call @blis_4x16_kc8_mc8_nc32_gemm_bt" in (
        done.stdout
    )


def test_a_bf16_convolution_falls_back_with_the_reason():
    kernel = KERNELS["conv2d"]
    inputs = kernel.make_inputs(np.random.default_rng(2), "bf16")
    program, blis = compile_blis(kernel.fn, *inputs)
    check_against_reference(kernel, program(*inputs), inputs, "bf16")
    (decision,) = blis.decisions
    assert not decision.chosen and decision.reason == "conv2d: bf16: the micro-kernel is f32"

"""Each construct of the SIMT DSL, one small kernel at a time: the IR it becomes, checked
with the IR API, and accepted by mlir-opt."""

from __future__ import annotations

import math

import ml_dtypes
import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.frontend import simt as gpu
from tinycomp.frontend.simt.operators import fold_literals
from tinycomp.ir import print_ir

from .helpers import kernel_func, op_names, ops_named

F32 = np.zeros(8, np.float32)
F16 = np.zeros(8, np.float16)
BF16 = np.zeros(8, ml_dtypes.bfloat16)
I32 = np.zeros(8, np.int32)
M2 = np.zeros((4, 4), np.float32)


@gpu.kernel
def arithmetic(x, y, n):
    i = gpu.thread_idx.x
    a = x[i]
    b = a + 1.0 - a * 2.0 / 3.0
    c = a // 2.0 + a % 1.5 + a**2 + -a
    k = n // 4 + n % 3 + (n << 1) + (n >> 2) + (n & 7) + (n | 1) + (n ^ 5) + ~n
    y[i] = b + c + k


def test_operators_become_their_arith_ops():
    module = arithmetic.specialize(F32, F32, 8)
    names = op_names(module)
    expected = (
        "arith.addf", "arith.subf", "arith.mulf", "arith.divf", "math.floor", "arith.remf",
        "arith.negf", "arith.divsi", "arith.remsi", "arith.shli", "arith.shrsi", "arith.andi",
        "arith.ori", "arith.xori", "arith.sitofp",
    )  # fmt: skip
    for name in expected:
        assert name in names, name
    (store,) = ops_named(module, "memref.store")
    assert str(store.operands[0].type) == "f32"


def test_integer_division_and_remainder_follow_c_on_random_inputs():
    rng = np.random.default_rng(0)
    a = rng.integers(-1000, 1000, 200)
    b = rng.integers(1, 50, 200) * rng.choice([-1, 1], 200)
    quotient = [fold_literals("//", int(x), int(y)) for x, y in zip(a, b, strict=True)]
    remainder = [fold_literals("%", int(x), int(y)) for x, y in zip(a, b, strict=True)]
    np.testing.assert_array_equal(quotient, np.fix(a / b).astype(int))
    np.testing.assert_array_equal(remainder, np.fmod(a, b))


@gpu.kernel
def half_precision(x, y):
    i = gpu.thread_idx.x
    y[i] = x[i] * 0.5 + x[i]


@pytest.mark.parametrize(("array", "element"), [(F16, "f16"), (BF16, "bf16")])
def test_f16_and_bf16_arithmetic_stays_in_its_type(array, element):
    module = half_precision.specialize(array, array)
    (mul,) = ops_named(module, "arith.mulf")
    assert str(mul.result.type) == element
    assert "arith.extf" not in op_names(module)


def test_a_store_converts_to_the_element_type_and_the_ir_shows_it():
    module = half_precision.specialize(F32, F16)
    (truncate,) = ops_named(module, "arith.truncf")
    assert (str(truncate.source.type), str(truncate.result.type)) == ("f32", "f16")
    module = half_precision.specialize(F16, F32)
    assert [str(op.result.type) for op in ops_named(module, "arith.extf")] == ["f32"]


@gpu.kernel
def mixing(x, out, n, scale):
    i = gpu.thread_idx.x
    out[i] = i * scale + n
    out[n] = float(i) + int(scale)


def test_index_int_and_float_mix_by_the_documented_rules():
    module = mixing.specialize(F32, I32, 3, np.float32(2.0))
    names = op_names(module)
    assert names.count("arith.index_cast") >= 2 and "arith.sitofp" in names
    assert "arith.fptosi" in names  # int(scale) truncates to i32, as C
    (first, second) = ops_named(module, "memref.store")
    assert str(first.operands[0].type) == str(second.operands[0].type) == "i32"


@gpu.kernel
def comparisons(x, y, n):
    i = gpu.thread_idx.x
    ok = 0 <= i < n
    y[i] = 1.0 if ok and not x[i] != 0.0 else 0.0
    if i < n or i == 0:
        y[0] = 2.0


def test_chained_comparisons_and_boolean_operators():
    module = comparisons.specialize(F32, F32, 8)
    predicates = [op.attributes["predicate"] for op in ops_named(module, "arith.cmpi")]
    assert len(predicates) == 4
    assert "arith.andi" in op_names(module) and "arith.ori" in op_names(module)
    (cmpf,) = ops_named(module, "arith.cmpf")
    assert "une" in print_ir(cmpf)


@gpu.kernel
def branches(x, n):
    i = gpu.thread_idx.x
    value = 0.0
    if i < n:
        value = x[i]
        extra = 1.0  # noqa: F841 - assigned in one branch only, never used: no result
    elif i == n:
        value = 2.0
    else:
        value = value - 1.0
    x[i] = value


def test_if_elif_else_yields_the_variables_the_branches_assign():
    module = branches.specialize(F32, 8)
    outer = next(op for op in ops_named(module, "scf.if") if op.parent_op().name == "gpu.func")
    assert [r.name_hint for r in outer.results] == ["value"]
    assert "%value_0 = scf.if" in print_ir(module) or "%value = scf.if" in print_ir(module)
    (store,) = ops_named(module, "memref.store")
    assert store.operands[0] is outer.results[0]


@gpu.kernel
def loops(x, n):
    total = 0.0
    count = 0
    for k in range(1, n, 2):
        total += x[k]
        count += 1
    steps = 0
    while count > 0:
        count -= 1
        steps += 1
    x[0] = total + count + steps


def test_for_and_while_carry_the_variables_they_change():
    module = loops.specialize(F32, 8)
    (for_loop,) = ops_named(module, "scf.for")
    assert [str(t) for t in for_loop.result_types] == ["f32", "i32"]
    assert [a.name_hint for a in for_loop.regions[0].entry_block.arguments] == [
        "k", "total", "count",
    ]  # fmt: skip
    (while_loop,) = ops_named(module, "scf.while")
    assert [str(t) for t in while_loop.result_types] == ["i32", "i32"]
    assert while_loop.inits[0] is for_loop.results[1]


@gpu.kernel
def shapes_and_math(A, out):
    i = gpu.thread_idx.x
    rows = A.shape[0]
    cols = len(A)
    v = A[i, i]
    out[i, 0] = math.exp(v) + math.log(v) + math.sqrt(v) + math.tanh(v) + math.erf(v)
    out[i, 1] = math.sin(v) + math.cos(v) + math.fabs(v) + math.floor(v) + math.ceil(v)
    out[i, 2] = gpu.rsqrt(v) + gpu.fma(v, v, 1.0) + abs(v) + min(v, 1.0, 2.0) + max(v, 0.0)
    out[i, 3] = rows + cols + abs(rows - 4)


def test_shape_len_math_and_builtins():
    module = shapes_and_math.specialize(M2, M2)
    names = op_names(module)
    assert names.count("memref.dim") == 2
    for name in ("math.exp", "math.log", "math.sqrt", "math.tanh", "math.erf", "math.sin",
                 "math.cos", "math.absf", "math.floor", "math.ceil", "math.rsqrt", "math.fma",
                 "arith.minnumf", "arith.maxnumf", "math.absi"):  # fmt: skip
        assert name in names, name
    assert names.count("arith.minnumf") == 2


@gpu.kernel
def warp_ops(x, bits, n):
    i = gpu.thread_idx.x
    v = x[i]
    a = gpu.shfl_sync(0xFFFFFFFF, v, 3, 8)
    b = gpu.shfl_xor_sync(0xFFFFFFFF, v, 1, width=16)
    c = gpu.shfl_up_sync(0xFFFF, i, 2, 4)
    anyone = gpu.any_sync(0xFFFFFFFF, v > 0.0)
    everyone = gpu.all_sync(0xFFFFFFFF, v > 0.0)
    total = gpu.reduce_add_sync(0xFFFFFFFF, n)
    low = gpu.reduce_min_sync(0xFFFFFFFF, v)
    high = gpu.reduce_max_sync(0xFFFFFFFF, c)
    gpu.syncwarp()
    gpu.syncwarp(0xFF)
    if gpu.elect_sync() and anyone and everyone:
        bits[i] = total + high
    x[i] = a + b + low


def test_warp_intrinsics_become_nvvm_ops_with_ptx_clamps():
    module = warp_ops.specialize(F32, I32, 8)
    shuffles = ops_named(module, "nvvm.shfl.sync")
    assert [s.kind for s in shuffles] == ["idx", "bfly", "up"]
    clamps = [s.clamp.op.attributes["value"].value for s in shuffles]
    assert clamps == [(24 << 8) | 0x1F, (16 << 8) | 0x1F, 28 << 8]
    assert str(shuffles[2].value.type) == "i32"  # an index value is shuffled as i32
    assert shuffles[2].mask.op.attributes["value"].value == 0xFFFF
    assert [v.kind for v in ops_named(module, "nvvm.vote.sync")] == ["any", "all"]
    assert [r.kind for r in ops_named(module, "nvvm.redux.sync")] == ["add", "fmin", "max"]
    assert len(ops_named(module, "nvvm.bar.warp.sync")) == 2
    assert len(ops_named(module, "nvvm.elect.sync")) == 1


@gpu.kernel
def atomics(hist, counts, i):
    old = gpu.atomic.add(hist, i, 1.5)
    gpu.atomic.max(hist, (i,), old)
    gpu.atomic.min(counts, 0, 3)
    gpu.atomic.exch(counts, 1, 4)
    gpu.atomic.cas(counts, 2, 0, 7)


def test_atomics_return_the_old_value_and_pick_the_kind_by_element_type():
    module = atomics.specialize(F32, I32, 2)
    kinds = [op.kind for op in ops_named(module, "memref.atomic_rmw")]
    assert kinds == ["addf", "maximumf", "mins", "assign"]
    (cas,) = ops_named(module, "memref.generic_atomic_rmw")
    assert [op.name for op in cas.body.ops] == ["arith.cmpi", "arith.select", "memref.atomic_yield"]
    assert (
        ops_named(module, "memref.atomic_rmw")[1].value
        is ops_named(module, "memref.atomic_rmw")[0].result
    )


@gpu.kernel
def private_array(x):
    scratch = gpu.local.array(4, gpu.float32)
    for k in range(4):
        scratch[k] = x[k]
    x[0] = scratch[3]


def test_local_arrays_are_private_attributions():
    func = kernel_func(private_array.specialize(F32))
    (scratch,) = func.private_attributions
    assert str(scratch.type) == "memref<4xf32, #gpu.address_space<private>>"


def test_specialize_caches_per_signature_and_ir_prints_it():
    first = saxpy_like.specialize(np.float32(1.0), F32, 3)
    assert saxpy_like.specialize(np.float32(5.0), np.ones(3, np.float32), 9) is first
    other = saxpy_like.specialize(np.float32(1.0), F16, 3)
    assert other is not first
    assert str(saxpy_like.signature_of(1.0, M2, np.int64(3))) == "(f32, memref<?x?xf32>, i64)"
    assert saxpy_like.ir(np.float32(1.0), F32, 3) == print_ir(first)
    assert saxpy_like.name == "saxpy_like" and saxpy_like.source[1] > 0


@gpu.kernel
def saxpy_like(a, x, n):
    i = gpu.thread_idx.x
    if i < n:
        x[i] = a * x[i]


CONSTRUCT_MODULES = [
    (arithmetic, (F32, F32, 8)), (half_precision, (BF16, F16)), (mixing, (F32, I32, 3, 2.0)),
    (comparisons, (F32, F32, 8)), (branches, (F32, 8)), (loops, (F32, 8)),
    (shapes_and_math, (M2, M2)), (warp_ops, (F32, I32, 8)), (atomics, (F32, I32, 2)),
    (private_array, (F32,)), (saxpy_like, (1.0, F16, 3)),
]  # fmt: skip


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(
    ("kernel", "args"), CONSTRUCT_MODULES, ids=lambda v: getattr(v, "name", "")
)
def test_mlir_opt_accepts_every_construct(kernel, args):
    run_mlir_opt(kernel.ir(*args), "--verify-each")

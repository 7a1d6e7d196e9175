"""Atomics in lane order: a histogram against ``np.bincount``, returned old values, every
``atomic_rmw`` kind, compare-and-swap, shared-memory atomics and conflict counts."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.errors import SanitizerError

from .sim_kernels import GLOBAL_INDEX, SHARED, kernel, line_of, run

RNG = np.random.default_rng(5)


def wrap32(value: int) -> int:
    """A Python int as the i32 it wraps to."""
    return (value + 2**31) % 2**32 - 2**31


HISTOGRAM = kernel(
    f"""{GLOBAL_INDEX}
    %ok = arith.cmpi slt, %i, %n : index
    scf.if %ok {{
      %v = memref.load %data[%i] : memref<?xi32>
      %bin = arith.index_cast %v : i32 to index
      %one = arith.constant 1 : i32
      %old = memref.atomic_rmw addi %one, %hist[%bin] : (i32, memref<?xi32>) -> i32
    }}""",
    "%data: memref<?xi32>, %hist: memref<?xi32>, %n: index",
)


def test_histogram_matches_bincount():
    n = 5000
    data = RNG.integers(0, 64, n).astype(np.int32)
    hist = np.zeros(64, np.int32)
    counters = run(HISTOGRAM, -(-n // 128), 128, [data, hist, n]).counters
    np.testing.assert_array_equal(hist, np.bincount(data, minlength=64))
    assert counters.total("global_atomic_requests") == -(-n // 32)
    # conflicts: per warp, lanes beyond the first to each bin
    warps = [data[k : k + 32] for k in range(0, n, 32)]
    assert counters.total("atomic_conflicts") == sum(len(w) - len(set(w.tolist())) for w in warps)


OLD_VALUES = kernel(
    f"""{GLOBAL_INDEX}
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%i] : memref<?xf32>
    %old = memref.atomic_rmw KIND %v, %acc[%c0] : (f32, memref<?xf32>) -> f32
    memref.store %old, %out[%i] : memref<?xf32>""",
    "%x: memref<?xf32>, %acc: memref<?xf32>, %out: memref<?xf32>",
)


@pytest.mark.parametrize(
    ("kind", "ufunc"), [("addf", np.add), ("maximumf", np.maximum), ("minimumf", np.minimum)]
)
def test_float_atomics_return_old_values_in_lane_order(kind, ufunc):
    x = RNG.standard_normal(96).astype(np.float32)
    acc = np.array([0.5], np.float32)
    out = np.zeros(96, np.float32)
    run(OLD_VALUES.replace("KIND", kind), 3, 32, [x, acc, out])
    running = ufunc.accumulate(np.concatenate([[np.float32(0.5)], x]).astype(np.float32))
    np.testing.assert_array_equal(out, running[:-1])
    np.testing.assert_array_equal(acc, running[-1:])


INT_ATOMIC = kernel(
    f"""{GLOBAL_INDEX}
    %c4 = arith.constant 4 : index
    %slot = arith.remui %i, %c4 : index
    %v = memref.load %x[%i] : memref<?xi32>
    %old = memref.atomic_rmw KIND %v, %acc[%slot] : (i32, memref<?xi32>) -> i32
    memref.store %old, %out[%i] : memref<?xi32>""",
    "%x: memref<?xi32>, %acc: memref<?xi32>, %out: memref<?xi32>",
)


@pytest.mark.parametrize(
    ("kind", "combine"),
    [
        ("addi", lambda a, b: a + b),
        ("maxs", max),
        ("mins", min),
        ("maxu", lambda a, b: a if (a & 0xFFFFFFFF) >= (b & 0xFFFFFFFF) else b),
        ("minu", lambda a, b: a if (a & 0xFFFFFFFF) <= (b & 0xFFFFFFFF) else b),
        ("andi", lambda a, b: a & b),
        ("ori", lambda a, b: a | b),
        ("xori", lambda a, b: a ^ b),
        ("assign", lambda a, b: b),
    ],
)
def test_integer_atomics_against_a_sequential_model(kind, combine):
    x = RNG.integers(-1000, 1000, 64).astype(np.int32)
    acc = RNG.integers(-50, 50, 4).astype(np.int32)
    start = acc.copy()
    out = np.zeros(64, np.int32)
    run(INT_ATOMIC.replace("KIND", kind), 2, 32, [x, acc, out])
    model = [int(v) for v in start]
    old = []
    for i, v in enumerate(x.tolist()):
        old.append(model[i % 4])
        model[i % 4] = wrap32(combine(model[i % 4], v))
    assert out.tolist() == old
    assert acc.tolist() == model


CAS_MAX = kernel(
    f"""{GLOBAL_INDEX}
    %c0 = arith.constant 0 : index
    %v = memref.load %x[%i] : memref<?xi32>
    %old = memref.generic_atomic_rmw %acc[%c0] : memref<?xi32> {{
    ^bb0(%cur: i32):
      %m = arith.maxsi %cur, %v : i32
      %two = arith.constant 2 : i32
      %n = arith.muli %m, %two : i32
      memref.atomic_yield %n : i32
    }}
    memref.store %old, %out[%i] : memref<?xi32>""",
    "%x: memref<?xi32>, %acc: memref<?xi32>, %out: memref<?xi32>",
)


def test_generic_atomic_rmw_runs_the_body_in_lane_order():
    x = RNG.integers(-3, 4, 40).astype(np.int32)
    acc = np.array([1], np.int32)
    out = np.zeros(40, np.int32)
    run(CAS_MAX, 1, 40, [x, acc, out])
    value, old = 1, []
    for v in x.tolist():
        old.append(value)
        value = wrap32(max(value, v) * 2)
    assert out.tolist() == old
    assert acc.tolist() == [value]


def test_shared_atomics_per_block():
    text = kernel(
        f"""\
    %tx = gpu.thread_id  x
    %bx = gpu.block_id  x
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %zero = arith.constant 0 : i32
    %first = arith.cmpi ult, %tx, %c8 : index
    scf.if %first {{
      memref.store %zero, %bins[%tx] : memref<8xi32, {SHARED}>
    }}
    gpu.barrier
    %bd = gpu.block_dim  x
    %o = arith.muli %bx, %bd : index
    %i = arith.addi %o, %tx : index
    %v = memref.load %data[%i] : memref<?xi32>
    %b = arith.index_cast %v : i32 to index
    %one = arith.constant 1 : i32
    %old = memref.atomic_rmw addi %one, %bins[%b] : (i32, memref<8xi32, {SHARED}>) -> i32
    gpu.barrier
    scf.if %first {{
      %h = memref.load %bins[%tx] : memref<8xi32, {SHARED}>
      %j = arith.muli %bx, %c8 : index
      %k = arith.addi %j, %tx : index
      memref.store %h, %out[%k] : memref<?xi32>
    }}""",
        "%data: memref<?xi32>, %out: memref<?xi32>",
        attributions=f" workgroup(%bins: memref<8xi32, {SHARED}>)",
    )
    data = RNG.integers(0, 8, 256).astype(np.int32)
    out = np.zeros(32, np.int32)
    counters = run(text, 4, 64, [data, out]).counters
    expected = np.stack([np.bincount(data[64 * b : 64 * (b + 1)], minlength=8) for b in range(4)])
    np.testing.assert_array_equal(out.reshape(4, 8), expected)
    assert counters.total("shared_atomic_requests") == 8
    assert counters.total("inst_atomic_shared") == 8


def test_shared_atomic_on_never_written_memory():
    text = kernel(
        f"""\
    %c0 = arith.constant 0 : index
    %one = arith.constant 1 : i32
    %old = memref.atomic_rmw addi %one, %count[%c0] : (i32, memref<1xi32, {SHARED}>) -> i32""",
        "",
        attributions=f" workgroup(%count: memref<1xi32, {SHARED}>)",
    )
    with pytest.raises(
        SanitizerError, match=r"Uninitialized __shared__ read of size 4 bytes at count\[0\]"
    ):
        run(text, 1, 32, [])


def test_out_of_bounds_atomic_names_the_bin():
    data = np.array([3] * 31 + [64], np.int32)
    hist = np.zeros(64, np.int32)
    with pytest.raises(SanitizerError) as error:
        run(HISTOGRAM, 1, 32, [data, hist, 32])
    message = str(error.value)
    assert error.value.kind == "out-of-bounds"
    assert f"'memref.atomic_rmw' at line {line_of(HISTOGRAM, 'atomic_rmw')}" in message
    assert "Invalid __global__ atomic of size 4 bytes at hist[64]" in message
    assert "warp 0, lane 31 (thread (31, 0, 0))" in message
    assert not hist.any()

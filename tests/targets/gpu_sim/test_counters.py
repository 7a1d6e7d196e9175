"""Counters of small kernels against counts made by hand (the reasoning is in each test)."""

from __future__ import annotations

import numpy as np
import pytest

from .sim_kernels import SHARED, kernel, run

RNG = np.random.default_rng(3)

STRIDED_LOAD = kernel(
    """\
    %tx = gpu.thread_id  x
    %i = arith.muli %tx, %stride : index
    %x = memref.load %a[%i] : memref<?xf32>
    memref.store %x, %out[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>, %out: memref<?xf32>, %stride: index",
)


@pytest.mark.parametrize(
    ("stride", "sectors"),
    [(1, 4), (2, 8), (8, 32), (32, 32), (0, 1)],  # 128 B, 256 B, one sector per lane; 0: broadcast
)
def test_global_load_sectors_by_stride(stride, sectors):
    a = RNG.standard_normal(32 * 32 + 1).astype(np.float32)
    out = np.zeros(32, np.float32)
    counters = run(STRIDED_LOAD, 1, 32, [a, out, stride]).counters
    np.testing.assert_array_equal(out, a[np.arange(32) * stride])
    assert counters.total("global_load_requests") == 1
    assert counters.total("global_load_sectors") == sectors
    # ideal: the distinct bytes asked, 32 lanes * 4 B / 32 (a broadcast asks 4 bytes: 1)
    assert counters.total("global_load_sectors_ideal") == (1 if stride == 0 else 4)
    assert counters.total("global_store_sectors") == 4
    assert counters.total("global_load_bytes") == 128
    assert counters.total("global_distinct_sectors") == sectors + 4
    assert counters.footprint_sectors == {"a": sectors, "out": 4}


SHARED_PATTERN = kernel(
    f"""\
    %tx = gpu.thread_id  x
    %i = arith.muli %tx, %stride : index
    %c0 = arith.constant 0 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %s[%tx] : memref<1024xf32, {SHARED}>
    gpu.barrier
    %x = memref.load %s[%i] : memref<1024xf32, {SHARED}>
    memref.store %x, %out[%tx] : memref<?xf32>""",
    "%out: memref<?xf32>, %stride: index",
    attributions=f" workgroup(%s: memref<1024xf32, {SHARED}>)",
)


@pytest.mark.parametrize(
    ("stride", "wavefronts"),
    # words 0,1,..31: one per bank; stride 2: banks 0,2,..: 2 words each; stride 32: all in
    # bank 0, 32 distinct words; stride 33: banks 0,1,2.. again; stride 0: one word, broadcast
    [(1, 1), (2, 2), (32, 32), (33, 1), (0, 1)],
)
def test_shared_load_wavefronts_by_stride(stride, wavefronts):
    out = np.zeros(32, np.float32)
    text = SHARED_PATTERN.replace("%one, %s[%tx]", "%one, %s[%i]") if stride > 1 else SHARED_PATTERN
    counters = run(text, 1, 32, [out, stride]).counters
    np.testing.assert_array_equal(out, np.ones(32, np.float32))
    assert counters.total("shared_load_requests") == 1
    assert counters.total("shared_load_wavefronts") == wavefronts
    assert counters.total("shared_load_wavefronts_ideal") == 1


def test_shared_conflicts_under_a_mask():
    # every lane writes word 32 * lane (all in bank 0): 32 wavefronts; then lanes 0..15
    # read them back: 16 distinct words of bank 0, 16 wavefronts
    text = kernel(
        f"""\
    %tx = gpu.thread_id  x
    %c16 = arith.constant 16 : index
    %c32 = arith.constant 32 : index
    %one = arith.constant 1.0 : f32
    %i = arith.muli %tx, %c32 : index
    memref.store %one, %s[%i] : memref<1024xf32, {SHARED}>
    gpu.barrier
    %lt = arith.cmpi slt, %tx, %c16 : index
    scf.if %lt {{
      %x = memref.load %s[%i] : memref<1024xf32, {SHARED}>
      memref.store %x, %out[%tx] : memref<?xf32>
    }}""",
        "%out: memref<?xf32>",
        attributions=f" workgroup(%s: memref<1024xf32, {SHARED}>)",
    )
    out = np.zeros(32, np.float32)
    counters = run(text, 1, 32, [out]).counters
    assert out.tolist() == [1.0] * 16 + [0.0] * 16
    assert counters.total("shared_load_requests") == 1
    assert counters.total("shared_load_wavefronts") == 16
    assert counters.total("shared_store_wavefronts") == 32


DIVERGENT_IF = kernel(
    """\
    %tx = gpu.thread_id  x
    %c8 = arith.constant 8 : index
    %lt = arith.cmpi slt, %tx, %c8 : index
    %r = scf.if %lt -> (f32) {
      %x = memref.load %a[%tx] : memref<?xf32>
      %y = arith.mulf %x, %x : f32
      scf.yield %y : f32
    } else {
      %z = arith.negf %v : f32
      scf.yield %z : f32
    }
    memref.store %r, %a[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>, %v: f32",
)


def test_divergent_if_in_one_warp():
    a = RNG.standard_normal(64).astype(np.float32)
    expected = np.where(np.arange(64) < 8, a * a, np.float32(-1.5))
    counters = run(DIVERGENT_IF, 1, 64, [a, np.float32(1.5)]).counters
    np.testing.assert_array_equal(a, expected)
    # warp 0 splits 8 / 24, warp 1 takes the else side only
    assert counters.total("branches") == 2
    assert counters.total("divergent_branches") == 1
    # per warp: thread_id, cmpi, scf.if, store = 4 instructions at 32 lanes; warp 0 issues
    # load + mulf at 8 lanes and negf at 24; warp 1 issues negf at 32 (constants are free)
    assert counters.warp_instructions() == 4 * 2 + 3 + 1
    lanes = 4 * 32 * 2 + 2 * 8 + 24 + 32
    assert counters.total("lane_instructions") == lanes
    assert counters.simt_efficiency() == pytest.approx(lanes / (32 * 12))
    assert counters.total("inst_fp32") == 3 and counters.total("inst_branch") == 2


PER_LANE_LOOP = kernel(
    """\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %sum = scf.for %j = %c0 to %tx step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%j] : memref<?xf32>
      %s = arith.addf %acc, %x : f32
      scf.yield %s : f32
    }
    memref.store %sum, %out[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>, %out: memref<?xf32>",
)


def test_loop_with_a_trip_count_per_lane():
    a = RNG.standard_normal(40).astype(np.float32)
    out = np.zeros(40, np.float32)
    counters = run(PER_LANE_LOOP, 1, 40, [a, out]).counters
    expected = np.concatenate([[0], np.cumsum(a, dtype=np.float32)[:-1]])
    np.testing.assert_allclose(out, expected, rtol=1e-6, atol=1e-6)
    # warp 0 (lanes 0..31) loops 31 times, warp 1 (threads 32..39) 39 times. Loads: one per
    # warp per iteration while a lane still loops; an addf likewise
    assert counters.total("inst_ld_global") == 31 + 39
    assert counters.total("lane_instructions") >= sum(range(40))
    # condition tests: warp 0 tests 32 times (iterations 0..31), lane k leaves after k
    # iterations, so every test but the last is divergent (some lane leaves, others stay)
    # and so for warp 1 on its first 8 lanes: tests 40, divergent 7 + ... counted by hand:
    # warp 0: tests at j = 0..31: a lane leaves at every j, and others continue for j < 31
    # warp 1: threads 32..39 leave at j = 32..39; divergent at j = 32..38
    assert counters.total("divergent_branches") == 31 + 7


WHILE_LOOP = kernel(
    """\
    %tx = gpu.thread_id  x
    %c1 = arith.constant 1 : index
    %n = scf.while (%i = %tx) : (index) -> index {
      %more = arith.cmpi sgt, %i, %c1 : index
      scf.condition(%more) %i : index
    } do {
    ^bb0(%j: index):
      %h = arith.shrui %j, %c1 : index
      scf.yield %h : index
    }
    %f = arith.index_cast %n : index to i32
    memref.store %f, %out[%tx] : memref<?xi32>""",
    "%out: memref<?xi32>",
)


def test_while_loop_per_lane():
    out = np.zeros(64, np.int32)
    run(WHILE_LOOP, 1, 64, [out])
    expected = [t if t <= 1 else 1 for t in range(64)]
    assert out.tolist() == expected


def test_local_memory_bytes_and_values():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %x = memref.load %a[%tx] : memref<?xf32>
    memref.store %x, %p[%c1] : memref<4xf32, #gpu.address_space<private>>
    %y = memref.load %p[%c1] : memref<4xf32, #gpu.address_space<private>>
    %z = arith.addf %y, %x : f32
    memref.store %z, %a[%tx] : memref<?xf32>""",
        "%a: memref<?xf32>",
        attributions=" private(%p: memref<4xf32, #gpu.address_space<private>>)",
    )
    a = RNG.standard_normal(64).astype(np.float32)
    expected = a * 2
    counters = run(text, 1, 64, [a]).counters
    np.testing.assert_array_equal(a, expected)
    # a constant index names a register: no local memory, no instruction
    assert counters.total("local_store_bytes") == counters.total("local_load_bytes") == 0
    assert counters.total("inst_ld_local") == counters.total("inst_st_local") == 0


def test_vector_loads_count_16_bytes_per_lane():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %c4 = arith.constant 4 : index
    %i = arith.muli %tx, %c4 : index
    %v = vector.load %a[%i] : memref<?xf32>, vector<4xf32>
    %e = vector.extract %v[2] : f32 from vector<4xf32>
    %w = vector.from_elements %e, %e, %e, %e : vector<4xf32>
    vector.store %w, %out[%i] : memref<?xf32>, vector<4xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )
    a = RNG.standard_normal(128).astype(np.float32)
    out = np.zeros(128, np.float32)
    counters = run(text, 1, 32, [a, out]).counters
    np.testing.assert_array_equal(out, np.repeat(a[2::4], 4))
    assert counters.total("global_load_sectors") == 16  # 512 B
    assert counters.total("global_load_sectors_ideal") == 16
    assert counters.total("global_load_bytes") == 512

"""Shuffles, votes, redux and elect against numpy models of PTX's rules, and their
sanitizer errors."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.dialects.nvvm.shuffle import shuffle_clamp
from tinycomp.targets.gpu_sim.errors import SanitizerError

from .sim_kernels import GLOBAL_INDEX, kernel, line_of, run

RNG = np.random.default_rng(11)


def shfl_kernel(kind: str, offset: int, width: int) -> str:
    return kernel(
        f"""{GLOBAL_INDEX}
    %full = arith.constant -1 : i32
    %off = arith.constant {offset} : i32
    %clamp = arith.constant {shuffle_clamp(kind, width)} : i32
    %x = memref.load %a[%i] : memref<?xf32>
    %y = nvvm.shfl.sync  {kind} %full, %x, %off, %clamp : f32 -> f32
    memref.store %y, %out[%i] : memref<?xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )


def expected_shuffle(x: np.ndarray, kind: str, offset: int, width: int) -> np.ndarray:
    lane = np.arange(len(x)) % 32
    start = lane - lane % width
    source = {
        "bfly": lane ^ offset,
        "down": lane + offset,
        "up": lane - offset,
        "idx": start + offset % 32 % width,
    }[kind]
    inside = (source >= start) & (source < start + width)
    warp_base = np.arange(len(x)) - lane
    return np.where(inside, x[warp_base + np.where(inside, source, lane)], x)


@pytest.mark.parametrize("kind", ["bfly", "down", "up", "idx"])
@pytest.mark.parametrize(("offset", "width"), [(1, 32), (5, 16), (16, 32), (3, 8)])
def test_shfl_sync_matches_the_ptx_rule(kind, offset, width):
    x = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    counters = run(shfl_kernel(kind, offset, width), 2, 32, [x, out]).counters
    np.testing.assert_array_equal(out, expected_shuffle(x, kind, offset, width))
    assert counters.total("inst_shuffle") == 2


def test_down_shuffle_past_the_segment_keeps_the_own_value():
    x = RNG.standard_normal(32).astype(np.float32)
    out = np.zeros(32, np.float32)
    run(shfl_kernel("down", 5, 16), 1, 32, [x, out])
    np.testing.assert_array_equal(out[11:16], x[11:16])  # lanes 11..15 would read 16..20
    np.testing.assert_array_equal(out[:11], x[5:16])


def test_butterfly_reduction_sums_each_warp():
    steps = "\n".join(
        f"""    %o{k} = arith.constant {k} : i32
    %s{k} = nvvm.shfl.sync  bfly %full, %v{k * 2 if k < 16 else 32}, %o{k}, %c31 : f32 -> f32
    %v{k} = arith.addf %v{k * 2 if k < 16 else 32}, %s{k} : f32"""
        for k in (16, 8, 4, 2, 1)
    )
    text = kernel(
        f"""{GLOBAL_INDEX}
    %full = arith.constant -1 : i32
    %c31 = arith.constant 31 : i32
    %v32 = memref.load %a[%i] : memref<?xf32>
{steps}
    memref.store %v1, %out[%i] : memref<?xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )
    x = RNG.standard_normal(128).astype(np.float32)
    out = np.zeros(128, np.float32)
    run(text, 4, 32, [x, out])
    np.testing.assert_allclose(out, np.repeat(x.reshape(4, 32).sum(1), 32), rtol=1e-5)


def test_gpu_shuffle_width_16_and_valid_flag():
    text = kernel(
        f"""{GLOBAL_INDEX}
    %off = arith.constant 3 : i32
    %w = arith.constant 16 : i32
    %x = memref.load %a[%i] : memref<?xf32>
    %y, %ok = gpu.shuffle  down %x, %off, %w : f32
    %f = arith.extui %ok : i1 to i32
    memref.store %y, %out[%i] : memref<?xf32>
    memref.store %f, %valid[%i] : memref<?xi32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>, %valid: memref<?xi32>",
    )
    x = RNG.standard_normal(32).astype(np.float32)
    out, valid = np.zeros(32, np.float32), np.zeros(32, np.int32)
    run(text, 1, 32, [x, out, valid])
    np.testing.assert_array_equal(out, expected_shuffle(x, "down", 3, 16))
    lane = np.arange(32)
    assert valid.tolist() == ((lane % 16) + 3 < 16).astype(int).tolist()


def test_shuffle_reading_an_inactive_lane_is_an_error():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %full = arith.constant -1 : i32
    %off = arith.constant 1 : i32
    %clamp = arith.constant 31 : i32
    %c20 = arith.constant 20 : index
    %lt = arith.cmpi slt, %tx, %c20 : index
    scf.if %lt {
      %x = memref.load %a[%tx] : memref<?xf32>
      %y = nvvm.shfl.sync  down %full, %x, %off, %clamp : f32 -> f32
      memref.store %y, %a[%tx] : memref<?xf32>
    }""",
        "%a: memref<?xf32>",
    )
    with pytest.raises(SanitizerError) as error:
        run(text, 1, 32, [np.zeros(32, np.float32)])
    message = str(error.value)
    assert error.value.kind == "shuffle"
    assert f"'nvvm.shfl.sync' at line {line_of(text, 'nvvm.shfl.sync')}" in message
    assert "lane 20 of the member mask 0xffffffff does not execute this nvvm.shfl.sync" in message
    assert "block (0, 0, 0), warp 0, lane 0 (thread (0, 0, 0))" in message
    # with the mask of the active lanes, lane 19 reads lane 20: outside the mask
    partial = text.replace("%full = arith.constant -1", "%full = arith.constant 1048575")
    with pytest.raises(
        SanitizerError,
        match=r"lane 19 .*: reads lane 20, which is not in the member mask 0x000fffff",
    ):
        run(partial, 1, 32, [np.zeros(32, np.float32)])


VOTES = kernel(
    f"""{GLOBAL_INDEX}
    %full = arith.constant -1 : i32
    %x = memref.load %a[%i] : memref<?xi32>
    %zero = arith.constant 0 : i32
    %p = arith.cmpi sgt, %x, %zero : i32
    %b = nvvm.vote.sync  ballot %full, %p -> i32
    %any = nvvm.vote.sync  any %full, %p -> i1
    %all = nvvm.vote.sync  all %full, %p -> i1
    %uni = nvvm.vote.sync  uni %full, %p -> i1
    %s = nvvm.redux.sync  add %x, %full : i32 -> i32
    %mx = nvvm.redux.sync  max %x, %full : i32 -> i32
    %um = nvvm.redux.sync  umax %x, %full : i32 -> i32
    %e = nvvm.elect.sync -> i1
    %f1 = arith.extui %any : i1 to i32
    %f2 = arith.extui %all : i1 to i32
    %f3 = arith.extui %uni : i1 to i32
    %f4 = arith.extui %e : i1 to i32
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    %c4 = arith.constant 4 : index
    %c5 = arith.constant 5 : index
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    memref.store %b, %out[%i, %c0] : memref<?x8xi32>
    memref.store %f1, %out[%i, %c1] : memref<?x8xi32>
    memref.store %f2, %out[%i, %c2] : memref<?x8xi32>
    memref.store %f3, %out[%i, %c3] : memref<?x8xi32>
    memref.store %s, %out[%i, %c4] : memref<?x8xi32>
    memref.store %mx, %out[%i, %c5] : memref<?x8xi32>
    memref.store %um, %out[%i, %c6] : memref<?x8xi32>
    memref.store %f4, %out[%i, %c7] : memref<?x8xi32>""",
    "%a: memref<?xi32>, %out: memref<?x8xi32>",
)


def test_votes_redux_and_elect_per_warp():
    x = RNG.integers(-5, 10, 96).astype(np.int32)
    x[32:64] = np.abs(x[32:64]) + 1  # warp 1: every predicate true
    x[64:96] = -np.abs(x[64:96])  # warp 2: every predicate false
    out = np.zeros((96, 8), np.int32)
    counters = run(VOTES, 3, 32, [x, out]).counters
    for w in range(3):
        lanes = x[32 * w : 32 * (w + 1)]
        p = lanes > 0
        ballot = int(sum(1 << k for k in range(32) if p[k]))
        row = out[32 * w]
        assert np.uint32(row[0]) == ballot
        assert row[1:4].tolist() == [p.any(), p.all(), p.all() or not p.any()]
        assert row[4] == lanes.sum()
        assert row[5] == lanes.max()
        assert np.uint32(row[6]) == lanes.astype(np.uint32).max()
        assert (out[32 * w : 32 * (w + 1), :7] == row[:7]).all()  # the same in every lane
        assert out[32 * w : 32 * (w + 1), 7].tolist() == [1] + [0] * 31
    assert counters.total("inst_vote") == 3 * 8


def test_float_redux_over_a_partial_mask():
    text = kernel(
        f"""{GLOBAL_INDEX}
    %low = arith.constant 65535 : i32
    %x = memref.load %a[%i] : memref<?xf32>
    %c16 = arith.constant 16 : index
    %lane = gpu.lane_id
    %lt = arith.cmpi ult, %lane, %c16 : index
    scf.if %lt {{
      %lo = nvvm.redux.sync  fmin %x, %low : f32 -> f32
      %hi = nvvm.redux.sync  fmax %x, %low : f32 -> f32
      %d = arith.subf %hi, %lo : f32
      memref.store %d, %out[%i] : memref<?xf32>
    }}""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )
    x = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    run(text, 2, 32, [x, out])
    halves = x.reshape(2, 2, 16)[:, 0]  # the first 16 lanes of each warp
    spread = halves.max(1) - halves.min(1)
    np.testing.assert_array_equal(out.reshape(2, 2, 16)[:, 0], np.repeat(spread[:, None], 16, 1))
    assert not out.reshape(2, 2, 16)[:, 1].any()


def test_subgroup_reduce_over_clusters():
    text = kernel(
        f"""{GLOBAL_INDEX}
    %x = memref.load %a[%i] : memref<?xf32>
    %s = gpu.subgroup_reduce  add %x cluster(size = 8) : (f32) -> f32
    %m = gpu.subgroup_reduce  maxnumf %x : (f32) -> f32
    %t = arith.addf %s, %m : f32
    memref.store %t, %out[%i] : memref<?xf32>""",
        "%a: memref<?xf32>, %out: memref<?xf32>",
    )
    x = RNG.standard_normal(64).astype(np.float32)
    out = np.zeros(64, np.float32)
    run(text, 2, 32, [x, out])
    expected = np.repeat(x.reshape(8, 8).sum(1), 8) + np.repeat(x.reshape(2, 32).max(1), 32)
    np.testing.assert_allclose(out, expected, rtol=1e-5)

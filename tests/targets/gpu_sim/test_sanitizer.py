"""Every sanitizer error, triggered on purpose, with its message checked: the kernel, the
line, the block, warp and lane (and thread), the index and the shape; for a race the
other thread and the other access's line."""

from __future__ import annotations

import re

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.errors import SanitizerError
from tinycomp.targets.gpu_sim.preset import lookup_preset

from .sim_kernels import GLOBAL_INDEX, SHARED, kernel, line_of, run

TILE = f"memref<16x16xf32, {SHARED}>"
ROW = f"memref<1x64xf32, {SHARED}>"


def raises(kind: str, text: str, *args, **options) -> str:
    with pytest.raises(SanitizerError) as error:
        run(text, *args, **options)
    assert error.value.kind == kind
    message = str(error.value)
    assert message.startswith("kernel 'k', ")
    assert message.endswith("no array was changed")
    return message


def test_out_of_bounds_global_store_names_the_first_lane():
    text = kernel(
        f"""{GLOBAL_INDEX}
    %one = arith.constant 1.0 : f32
    memref.store %one, %a[%i] : memref<?xf32>""",
        "%a: memref<?xf32>",
    )
    message = raises("out-of-bounds", text, 3, 32, [np.zeros(70, np.float32)])
    line = line_of(text, "memref.store")
    assert f"'memref.store' at line {line}" in message
    assert "block (2, 0, 0), warp 0, lane 6 (thread (6, 0, 0))" in message
    assert "Invalid __global__ write of size 4 bytes at a[70]" in message
    assert "index 70 of dimension 0 is outside the shape (70,)" in message


def test_out_of_bounds_2d_read_names_the_dimension():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %ty = gpu.thread_id  y
    %c1 = arith.constant 1 : index
    %j = arith.addi %tx, %c1 : index
    %x = memref.load %a[%ty, %j] : memref<?x?xf32>
    memref.store %x, %a[%ty, %tx] : memref<?x?xf32>""",
        "%a: memref<?x?xf32>",
    )
    message = raises("out-of-bounds", text, 1, (16, 4), [np.zeros((4, 16), np.float32)])
    assert "Invalid __global__ read of size 4 bytes at a[0, 16]" in message
    assert "index 16 of dimension 1 is outside the shape (4, 16)" in message
    assert "warp 0, lane 15 (thread (15, 0, 0))" in message


def test_out_of_bounds_shared_and_local():
    shared = kernel(
        f"""\
    %tx = gpu.thread_id  x
    %ty = gpu.thread_id  y
    %c16 = arith.constant 16 : index
    %r = arith.addi %ty, %c16 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %t[%r, %tx] : {TILE}""",
        "%a: memref<?xf32>",
        attributions=f" workgroup(%t: {TILE})",
    )
    message = raises("out-of-bounds", shared, 1, (16, 2), [np.zeros(1, np.float32)])
    assert "Invalid __shared__ write of size 4 bytes at t[16, 0]" in message
    assert "outside the shape (16, 16)" in message
    local = kernel(
        """\
    %tx = gpu.thread_id  x
    %x = memref.load %p[%tx] : memref<4xf32, #gpu.address_space<private>>""",
        "",
        attributions=" private(%p: memref<4xf32, #gpu.address_space<private>>)",
    )
    message = raises("out-of-bounds", local, 1, 32, [])
    assert "Invalid __local__ read of size 4 bytes at p[4]" in message
    assert "lane 4 (thread (4, 0, 0))" in message


def test_inactive_lanes_out_of_bounds_are_fine():
    text = kernel(
        f"""{GLOBAL_INDEX}
    %ok = arith.cmpi slt, %i, %n : index
    scf.if %ok {{
      %one = arith.constant 1.0 : f32
      memref.store %one, %a[%i] : memref<?xf32>
    }}""",
        "%a: memref<?xf32>, %n: index",
    )
    a = np.zeros(70, np.float32)
    run(text, 3, 32, [a, 70])
    assert a.tolist() == [1.0] * 70


def test_uninitialized_shared_read():
    text = kernel(
        f"""\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c5 = arith.constant 5 : index
    %lt = arith.cmpi slt, %tx, %c5 : index
    scf.if %lt {{
      %one = arith.constant 1.0 : f32
      memref.store %one, %t[%c0, %tx] : {ROW}
    }}
    gpu.barrier
    %x = memref.load %t[%c0, %tx] : {ROW}
    memref.store %x, %a[%tx] : memref<?xf32>""",
        "%a: memref<?xf32>",
        attributions=f" workgroup(%t: {ROW})",
    )
    a = np.zeros(32, np.float32)
    message = raises("uninitialized", text, 1, 32, [a])
    assert f"at line {line_of(text, '%x = memref.load')}" in message
    assert "Uninitialized __shared__ read of size 4 bytes at t[0, 5]" in message
    assert "warp 0, lane 5 (thread (5, 0, 0))" in message
    assert not a.any()


def test_uninitialized_local_read():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %one = arith.constant 1.0 : f32
    memref.store %one, %p[%c0] : memref<2xf32, #gpu.address_space<private>>
    %x = memref.load %p[%c1] : memref<2xf32, #gpu.address_space<private>>
    memref.store %x, %a[%tx] : memref<?xf32>""",
        "%a: memref<?xf32>",
        attributions=" private(%p: memref<2xf32, #gpu.address_space<private>>)",
    )
    message = raises("uninitialized", text, 1, 32, [np.zeros(32, np.float32)])
    assert "Uninitialized __local__ read of size 4 bytes at p[1]" in message
    assert "warp 0, lane 0 (thread (0, 0, 0))" in message


RACE = kernel(
    f"""\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %c31 = arith.constant 31 : index
    %w = arith.andi %tx, %c31 : index
    %f = arith.index_cast %tx : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %t[%c0, %w] : {ROW}
    BARRIER
    %r = arith.subi %c31, %w : index
    %x = memref.load %t[%c0, %r] : {ROW}
    memref.store %x, %a[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>",
    attributions=f" workgroup(%t: {ROW})",
)


def test_write_write_race_between_warps_in_one_store():
    # threads t and t + 32 write the same word: both warps' lanes in one store instruction
    message = raises(
        "race", RACE.replace("BARRIER", "gpu.barrier"), 1, 64, [np.zeros(64, np.float32)]
    )
    store = line_of(RACE, "memref.store %v")
    assert f"at line {store}" in message
    assert "Race on __shared__ t[0, 0]" in message
    assert "warp 1, lane 0 (thread (32, 0, 0))" in message
    assert (
        "a write by block (0, 0, 0), warp 0, lane 0 (thread (0, 0, 0)) at the same store" in message
    )


def test_read_after_write_race_without_a_barrier():
    text = RACE.replace("BARRIER", "").replace(
        "%w = arith.andi %tx, %c31 : index", "%w = arith.addi %tx, %c0 : index"
    )
    # one warp, no barrier: lane 0 reads t[0, 31] that lane 31 wrote (independent thread
    # scheduling: lanes of one warp are not ordered without a syncwarp)
    message = raises(
        "race", text.replace("%c31, %w", "%c31, %tx"), 1, 32, [np.zeros(32, np.float32)]
    )
    assert f"at line {line_of(text, '%x = memref.load')}" in message
    assert (
        "this read and a write by block (0, 0, 0), warp 0, lane 31 (thread (31, 0, 0))" in message
    )
    assert f"at line {line_of(text, 'memref.store %v')}" in message


def test_syncwarp_orders_lanes_of_one_warp_and_lockstep_presets_need_none():
    text = RACE.replace("%w = arith.andi %tx, %c31 : index", "%w = arith.addi %tx, %c0 : index")
    synced = text.replace(
        "BARRIER", "%full = arith.constant -1 : i32\n    nvvm.bar.warp.sync %full : i32"
    )
    a = np.zeros(32, np.float32)
    result = run(synced, 1, 32, [a])
    np.testing.assert_array_equal(a, np.arange(31, -1, -1, dtype=np.float32))
    assert result.counters.total("warp_syncs") == 1
    lockstep = lookup_preset("classroom").with_changes(independent_thread_scheduling=False)
    b = np.zeros(32, np.float32)
    run(text.replace("BARRIER", ""), 1, 32, [b], preset=lockstep)
    np.testing.assert_array_equal(b, a)


def test_barrier_fixes_the_race_between_warps():
    text = RACE.replace("%c31 = arith.constant 31", "%c31 = arith.constant 63").replace(
        "%w = arith.andi %tx, %c31 : index", "%w = arith.addi %tx, %c0 : index"
    )
    with pytest.raises(SanitizerError, match=r"this read and a write by .*warp 1, lane 31"):
        run(text.replace("BARRIER", ""), 1, 64, [np.zeros(64, np.float32)])
    a = np.zeros(64, np.float32)
    run(text.replace("BARRIER", "gpu.barrier"), 1, 64, [a])
    np.testing.assert_array_equal(a, np.arange(63, -1, -1, dtype=np.float32))


def test_barrier_divergence():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %c40 = arith.constant 40 : index
    %lt = arith.cmpi slt, %tx, %c40 : index
    scf.if %lt {
      gpu.barrier
    }""",
        "",
    )
    message = raises("barrier-divergence", text, 2, 64, [])
    assert f"'gpu.barrier' at line {line_of(text, 'gpu.barrier')}" in message
    assert "40 of the block's 64 live threads reached this gpu.barrier" in message
    assert "block (0, 0, 0), warp 1, lane 8 (thread (40, 0, 0))" in message


EARLY_EXIT = kernel(
    f"""\
    %tx = gpu.thread_id  x
    %ok = arith.cmpi slt, %tx, %n : index
    cf.cond_br %ok, ^rest, ^exit
  ^exit:
    gpu.return
  ^rest:
    %f = arith.index_cast %tx : index to i32
    %v = arith.sitofp %f : i32 to f32
    memref.store %v, %t[%tx] : memref<64xf32, {SHARED}>
    gpu.barrier
    %c0 = arith.constant 0 : index
    %x = memref.load %t[%c0] : memref<64xf32, {SHARED}>
    %y = arith.addf %x, %v : f32
    memref.store %y, %a[%tx] : memref<?xf32>""",
    "%a: memref<?xf32>, %n: index",
    attributions=f" workgroup(%t: memref<64xf32, {SHARED}>)",
)


def test_exited_lanes_do_not_count_for_barriers():
    a = np.full(64, -1, np.float32)
    result = run(EARLY_EXIT, 1, 64, [a, 37])
    expected = np.where(np.arange(64) < 37, np.arange(64, dtype=np.float32), np.float32(-1))
    np.testing.assert_array_equal(a, expected)
    assert result.counters.total("barriers") == 1
    assert result.counters.total("divergent_branches") == 1  # warp 1 splits at 37


def test_step_limit_names_the_loop():
    text = kernel(
        """\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %big = arith.constant 1000 : index
    scf.for %i = %c0 to %big step %c1 {
      scf.for %j = %c0 to %big step %c1 {
      }
    }""",
        "",
    )
    message = raises("step-limit", text, 1, 32, [], step_limit=5000)
    assert f"'scf.for' at line {line_of(text, 'scf.for %j')}" in message
    assert "more than step_limit = 5000 iterations" in message


def test_a_loop_step_of_zero_is_an_error():
    text = kernel(
        """\
    %c0 = arith.constant 0 : index
    %c4 = arith.constant 4 : index
    scf.for %i = %c0 to %c4 step %s {
    }""",
        "%s: index",
    )
    message = raises("arithmetic", text, 1, 32, [0])
    assert f"'scf.for' at line {line_of(text, 'scf.for')}" in message
    assert "expected a positive loop step, got 0" in message


def test_arithmetic_errors_only_for_active_lanes():
    text = kernel(
        """\
    %tx = gpu.thread_id  x
    %c0 = arith.constant 0 : index
    %nz = arith.cmpi ne, %tx, %c0 : index
    %q = scf.if %nz -> (index) {
      %d = arith.divsi %n, %tx : index
      scf.yield %d : index
    } else {
      scf.yield %c0 : index
    }
    %f = arith.index_cast %q : index to i32
    memref.store %f, %a[%tx] : memref<?xi32>""",
        "%a: memref<?xi32>, %n: index",
    )
    a = np.zeros(32, np.int32)
    run(text, 1, 32, [a, 100])
    assert a.tolist() == [0] + [100 // t for t in range(1, 32)]
    message = raises(
        "arithmetic", text.replace("%nz = arith.cmpi ne", "%nz = arith.cmpi sge"), 1, 32, [a, 100]
    )
    assert "division by zero" in message
    assert re.search(r"'arith.divsi' at line \d+", message)

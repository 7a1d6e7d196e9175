"""The NPU timeline, counted by hand on small kernels: a DMA's transfer and landing, a
vector op's startup and repeats, DMAs on one pipe in turn, flags holding a pipe, the
scalar unit's dispatch, GM bandwidth shared by two cores, busy and waiting cycles, the
cross-core flags (mode 2 between a cube core and its vector core, a mode 0 barrier),
and the water filling of ``fluid_hbm.py`` with unequal caps."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.targets.npu_sim.fluid_hbm import FluidHbm
from tinycomp.targets.npu_sim.preset import lookup_npu_preset

from .npu_ir import KernelText, run

RNG = np.random.default_rng(11)
SMALL, CHIP = lookup_npu_preset("small"), lookup_npu_preset("910b2")
LATENCY = 500  # dma_latency_cycles of both presets


def spans(result, core: str, pipe: str, kind: str | None = None):
    return [s for s in result.timeline.on(core, pipe) if kind is None or s.kind == kind]


def copy_then_vexp(nbytes: int, *, copies: int = 1) -> KernelText:
    """``copies`` GM -> UB copies of ``nbytes`` each, a flag, ``vexp`` on the first."""
    n = nbytes // 2
    k = KernelText([("x", f"memref<{copies * n}xf16>")])
    k.const(0)  # one scalar op on S before the first dispatch
    ub = k.alloc("UB", copies * n, "f16")
    for i in range(copies):
        k.copy("x", ub, i * n, i * n, burst_len=n)
    k.sync("MTE2", "V")
    k.vector("vexp", [ub, ub], [0, 0], repeat=1, mask=16)
    return k


def test_hbm_bytes_per_cycle_is_the_bandwidth_over_the_clock():
    assert SMALL.hbm_bytes_per_cycle == pytest.approx(64e9 / 1e9)
    assert CHIP.hbm_bytes_per_cycle == pytest.approx(1.6e12 / 1.8e9)


# GM -> UB at 128 B a cycle (the path) unless the HBM is slower: on "small" it moves 64 B
# a cycle, and each burst costs whole 512-byte lines of it; the 910B2's HBM has room.
@pytest.mark.parametrize(
    ("preset", "nbytes", "transfer"),
    [
        ("small", 4096, 4096 / 64),  # 8 lines at 64 B a cycle
        ("small", 1184, 3 * 512 / 64),  # 37 blocks: 3 lines
        ("910b2", 4096, 4096 / 128),  # the path's 128 B a cycle
        ("910b2", 1184, 1184 / 128),
    ],
)
def test_a_copy_moves_then_lands_a_latency_later(preset, nbytes, transfer):
    x = RNG.standard_normal(nbytes // 2).astype(np.float16)
    result = run(copy_then_vexp(nbytes), [x], preset=preset)
    (copy,) = spans(result, "AIV 0.0", "MTE2", "dma")
    assert copy.start == 2.0  # one scalar op, one dispatch
    assert copy.cycles == pytest.approx(transfer)
    (vexp,) = spans(result, "AIV 0.0", "V", "vector")
    assert vexp.start == pytest.approx(2.0 + transfer + LATENCY)  # the flag waits for it
    (wait,) = spans(result, "AIV 0.0", "V", "wait")
    assert (wait.start, wait.end) == (4.0, vexp.start)  # dispatched after copy and set
    assert result.timeline.cycles == pytest.approx(vexp.end)


@pytest.mark.parametrize(
    ("op", "repeat", "cycles"),
    [("vadd", 7, 4 + 7 * 2), ("vmul", 1, 4 + 2), ("vexp", 7, 4 + 7), ("vadds", 7, 4 + 7),
     ("vdup", 200, 4 + 200), ("vreduce", 5, 4 + 5), ("vconv", 3, 4 + 3)],
)  # fmt: skip
def test_a_vector_op_is_startup_plus_repeats(op, repeat, cycles):
    k = KernelText([("x", "memref<4096xf32>")])
    ub = k.alloc("UB", 4096, "f32")
    k.copy("x", ub, burst_len=4096)
    k.sync("MTE2", "V")
    if op in ("vadd", "vmul"):
        k.vector(op, [ub, ub, ub], [0, 0, 0], repeat=repeat, dst_rep_stride=0)
    elif op == "vdup":
        k.vector(op, [ub], [0], 1.0, repeat=repeat, dst_rep_stride=0)
    elif op == "vadds":
        k.vector(op, [ub, ub], [0, 0], 1.0, repeat=repeat)
    elif op == "vconv":
        half = k.alloc("UB", 1024, "f16", offset=16384)
        k.vector(op, [half, ub], [0, 0], repeat=repeat)
    else:
        k.vector(
            op, [ub, ub], [0, 0], repeat=repeat, **({"kind": "max"} if op == "vreduce" else {})
        )
    x = RNG.uniform(-1, 1, 4096).astype(np.float32)
    result = run(k, [x], preset="small")
    (span,) = spans(result, "AIV 0.0", "V", "vector")
    assert span.cycles == cycles
    assert span.name == op and f"{repeat} repeat" in span.detail


def test_two_dmas_on_mte2_take_turns_and_land_in_turn():
    x = RNG.standard_normal(4096).astype(np.float16)
    result = run(copy_then_vexp(4096, copies=2), [x], preset="small")
    first, second = spans(result, "AIV 0.0", "MTE2", "dma")
    assert (first.start, first.end) == (2.0, 66.0)
    assert (second.start, second.end) == (66.0, 130.0)  # the second waits for the pipe
    (flag,) = spans(result, "AIV 0.0", "MTE2", "flag")
    assert flag.start == 130.0 + LATENCY  # the set waits until the second copy landed
    assert result.timeline.busy_cycles("AIV 0.0", "MTE2") == 128.0


def test_two_independent_dmas_on_different_pipes_overlap():
    k = KernelText([("x", "memref<2048xf16>"), ("y", "memref<2048xf16>")])
    k.const(0)
    a, b = k.alloc("UB", 2048, "f16"), k.alloc("UB", 2048, "f16", 4096)
    k.copy("x", a, burst_len=2048)  # MTE2, reads x
    k.vector("vdup", [b], [0], 1.0, repeat=16)
    k.sync("V", "MTE3")
    k.copy(b, "y", burst_len=2048)  # MTE3, writes y
    x, y = RNG.standard_normal(2048).astype(np.float16), np.zeros(2048, np.float16)
    result = run(k, [x, y], preset="910b2")
    (load,) = spans(result, "AIV 0.0", "MTE2", "dma")
    (store,) = spans(result, "AIV 0.0", "MTE3", "dma")
    (vdup,) = spans(result, "AIV 0.0", "V", "vector")
    assert vdup.start == 4.0 and vdup.cycles == 4 + 16  # behind the copy and the 1.0
    assert store.start == vdup.end  # V's set needs no landing: V has no DMA
    assert load.cycles == store.cycles == 4096 / 128
    assert store.start < load.end + LATENCY  # the store does not wait for the load
    assert result.timeline.cycles == pytest.approx(store.end + LATENCY)  # it settles


def test_a_wait_flag_holds_v_until_the_set():
    x = RNG.standard_normal(4096).astype(np.float16)
    result = run(copy_then_vexp(8192), [x], preset="910b2")
    (flag,) = spans(result, "AIV 0.0", "MTE2", "flag")
    (wait,) = spans(result, "AIV 0.0", "V", "wait")
    (vexp,) = spans(result, "AIV 0.0", "V", "vector")
    assert wait.end == flag.start == vexp.start == 2.0 + 64.0 + LATENCY
    assert result.timeline.waiting_cycles("AIV 0.0", "V") == wait.end - 4.0
    assert result.timeline.busy_cycles("AIV 0.0", "V") == vexp.cycles == 5.0


def _dispatch_kernel(scalar_ops: int) -> KernelText:
    """Three one-repeat ``vdup`` (5 cycles each) with ``scalar_ops`` index additions
    before each."""
    k = KernelText([("x", "memref<128xf16>")])
    zero, one = k.const(0), k.const(1.0, "f16")
    ub = k.alloc("UB", 128, "f16")
    for _ in range(3):
        for _ in range(scalar_ops):
            k.emit(f"%{k.fresh('i')} = arith.addi %{zero}, %{zero} : index")
        k.emit(
            f'"npu.vdup"(%{ub}, %{zero}, %{one}) {{repeat = 1 : i64}} : '
            f"({k.types[ub]}, index, f16) -> ()"
        )
    return k


@pytest.mark.parametrize("scalar_ops", [0, 2, 10])
def test_the_scalar_unit_runs_scalar_code_and_dispatches_one_cycle_each(scalar_ops):
    x = np.zeros(128, np.float16)
    result = run(_dispatch_kernel(scalar_ops), [x], preset="small")
    assert result.timeline.busy_cycles("AIV 0.0", "S") == 2 + 3 * (scalar_ops + 1)
    starts = [s.start for s in spans(result, "AIV 0.0", "V", "vector")]
    dispatched = [2 + (i + 1) * (scalar_ops + 1) for i in range(3)]
    # a vdup starts when it is dispatched, or when the one before it is done (5 cycles)
    expected, free = [], 0.0
    for when in dispatched:
        expected.append(max(when, free))
        free = expected[-1] + 5
    assert starts == expected


def test_an_s_instruction_waits_for_its_flag_and_holds_the_dispatch():
    k = KernelText([("x", "memref<128xf16>")])
    zero = k.const(0)
    ub = k.alloc("UB", 128, "f16")
    k.vector("vdup", [ub], [0], 3.0, repeat=30, dst_rep_stride=0)  # 4 + 30 cycles on V
    k.sync("V", "S")
    value = k.get_value(ub, zero)
    k.set_value(ub, 5, value)
    k.vector("vdup", [ub], [64], 1.0, repeat=1, mask=64)
    x = np.zeros(128, np.float16)
    result = run(k, [x], preset="small")
    first, second = spans(result, "AIV 0.0", "V", "vector")
    get, put = [s for s in spans(result, "AIV 0.0", "S") if s.name in ("get_value", "set_value")]
    # S: 2 constants (0 and 3.0), dispatch of vdup and set: V runs the vdup at [3, 37)
    assert (first.start, first.end) == (3.0, 37.0)
    assert get.start == 37.0 and get.cycles == 1.0  # after the wait on S
    assert put.start == 39.0 and put.cycles == 1.0  # a constant (5) in between
    assert second.start == put.end + 3.0  # the constants 64 and 1.0, the dispatch


def test_pipe_barrier_all_holds_the_scalar_unit_until_every_pipe_is_idle():
    k = KernelText([("x", "memref<2048xf16>")])
    k.const(0)
    ub = k.alloc("UB", 2048, "f16")
    k.copy("x", ub, burst_len=2048)
    barrier = k.barrier("ALL")
    k.vector("vdup", [ub], [0], 1.0, repeat=1, mask=16)
    x = RNG.standard_normal(2048).astype(np.float16)
    result = run(k, [x], preset="910b2")
    (copy,) = spans(result, "AIV 0.0", "MTE2", "dma")
    (vdup,) = spans(result, "AIV 0.0", "V", "vector")
    (wait,) = [s for s in spans(result, "AIV 0.0", "S", "wait") if s.line == barrier]
    assert wait.end == copy.end + LATENCY  # idle is not enough: the copy has landed
    assert vdup.start == wait.end + 2.0  # a constant and the dispatch after the barrier


# -- GM shared by the cores ------------------------------------------------------------------
def _per_block_copy(nbytes: int) -> KernelText:
    """Each block copies its own ``nbytes`` of x into UB (so each one misses the L2)."""
    n = nbytes // 2
    k = KernelText([("x", f"memref<{4 * n}xf16>")])
    size = k.const(n)
    block = k.fresh("b")
    k.emit(f'%{block} = "npu.block_idx"() : () -> index')
    k.types[block] = "index"
    at = k.fresh("o")
    k.emit(f"%{at} = arith.muli %{block}, %{size} : index")
    k.types[at] = "index"
    ub = k.alloc("UB", n, "f16")
    k.copy("x", ub, at, 0, burst_len=n)
    return k


@pytest.mark.parametrize("cores", [1, 2, 4])
def test_cores_moving_at_once_share_a_slow_hbm(cores):
    nbytes = 8192
    chip = CHIP.with_changes(hbm_bytes_per_second=128 * 1.8e9)  # the HBM = one path
    assert chip.hbm_bytes_per_cycle == pytest.approx(128)
    x = RNG.standard_normal(4 * nbytes // 2).astype(np.float16)
    result = run(_per_block_copy(nbytes), [x], block_num=cores, preset=chip)
    copies = [s for core in result.timeline.cores for s in spans(result, core, "MTE2", "dma")]
    assert len(copies) == cores
    for copy in copies:
        assert copy.start == copies[0].start  # they move at the same time
        assert copy.cycles == pytest.approx(cores * nbytes / 128)  # each at 128 / cores
    assert result.schedule.hbm_bytes == cores * nbytes


def test_a_fast_hbm_lets_every_core_move_at_its_path_rate():
    nbytes = 8192
    x = RNG.standard_normal(4 * nbytes // 2).astype(np.float16)
    result = run(_per_block_copy(nbytes), [x], block_num=4, preset="910b2")
    for core in result.timeline.cores:
        (copy,) = spans(result, core, "MTE2", "dma")
        assert copy.cycles == pytest.approx(nbytes / 128)  # 4 x 128 < 888 B a cycle


def test_busy_and_waiting_cycles_of_a_round_trip():
    k = KernelText([("x", "memref<1024xf16>"), ("y", "memref<1024xf16>")])
    k.const(0)
    ub = k.alloc("UB", 1024, "f16")
    k.copy("x", ub, burst_len=1024)
    k.sync("MTE2", "V")
    k.vector("vadd", [ub, ub, ub], [0, 0, 0], repeat=8)
    k.sync("V", "MTE3")
    k.copy(ub, "y", burst_len=1024)
    x, y = RNG.standard_normal(1024).astype(np.float16), np.zeros(1024, np.float16)
    result = run(k, [x, y], preset="small")
    t = result.timeline
    # S: a constant and 7 dispatches; MTE2 / MTE3: 2048 B at 64 B a cycle; V: 4 + 8 x 2
    assert t.busy_cycles("AIV 0.0", "S") == 8.0
    assert t.busy_cycles("AIV 0.0", "MTE2") == 32.0
    assert t.busy_cycles("AIV 0.0", "V") == 20.0
    assert t.busy_cycles("AIV 0.0", "MTE3") == 32.0
    assert t.waiting_cycles("AIV 0.0", "V") == (2 + 32 + LATENCY) - 4.0  # from its dispatch
    assert t.cycles == 2 + 32 + LATENCY + 20 + 32 + LATENCY
    assert t.pipes("AIV 0.0") == ("S", "MTE2", "V", "MTE3")
    np.testing.assert_array_equal(y, x + x)


# -- cross-core flags ----------------------------------------------------------------------------
def test_mode_2_the_vector_core_waits_until_its_cube_core_sets():
    args = [("x", "memref<2048xf16>"), ("y", "memref<2048xf16>")]
    c = KernelText(args, name="k_aic", core="aic", kernel_type="mix_1_1", kernel="k")
    l1 = c.alloc("L1", 2048, "f16")
    c.copy("x", l1, burst_len=2048)
    set_line = c.cross_set(3, 2, "MTE2")
    v = KernelText(args, name="k_aiv", core="aiv", kernel_type="mix_1_1", kernel="k")
    v.first_line = len(c.lines()) + 1
    wait_line = v.cross_wait(3)
    ub = v.alloc("UB", 2048, "f16")
    v.vector("vdup", [ub], [0], 1.0, repeat=16)
    x, y = RNG.standard_normal(2048).astype(np.float16), np.zeros(2048, np.float16)
    result = run([c, v], [x, y], preset="910b2")
    (copy,) = spans(result, "AIC 0", "MTE2", "dma")
    (flag,) = spans(result, "AIC 0", "MTE2", "flag")
    (wait,) = spans(result, "AIV 0.0", "S", "wait")
    (vdup,) = spans(result, "AIV 0.0", "V", "vector")
    assert flag.line == set_line and wait.line == wait_line
    assert flag.start == copy.end + LATENCY  # the set waits for the copy to land
    assert wait.start == 0.0 and wait.end == flag.start  # the wait ends at the set
    assert vdup.start == wait.end + 3.0  # then S: a constant, the 1.0, the dispatch


def _barrier_kernel() -> tuple[KernelText, int, int]:
    """Block 0 runs a 204-cycle vdup before a mode 0 barrier on V; block 1 does not."""
    k = KernelText([("x", "memref<256xf16>")])
    zero = k.const(0)
    block = k.fresh("b")
    k.emit(f'%{block} = "npu.block_idx"() : () -> index')
    ub = k.alloc("UB", 256, "f16")
    k.emit(f"%first = arith.cmpi eq, %{block}, %{zero} : index")
    k.emit("scf.if %first {")
    k.vector("vdup", [ub], [0], 1.0, repeat=200, mask=16, dst_rep_stride=0)
    k.emit("}")
    set_line, wait_line = k.cross_set(3, 0, "V"), k.cross_wait(3, 0, "V")
    k.vector("vdup", [ub], [0], 2.0, repeat=1)
    return k, set_line, wait_line


def test_mode_0_barrier_holds_every_vector_core_until_the_last_sets():
    k, set_line, wait_line = _barrier_kernel()
    result = run(k, [np.zeros(256, np.float16)], block_num=2, preset="small")
    (long_op, after_0) = spans(result, "AIV 0.0", "V", "vector")
    (after_1,) = spans(result, "AIV 0.1", "V", "vector")
    (late_set,) = spans(result, "AIV 0.0", "V", "flag")
    (early_set,) = spans(result, "AIV 0.1", "V", "flag")
    (wait,) = spans(result, "AIV 0.1", "V", "wait")
    assert long_op.cycles == 204 and late_set.start == long_op.end
    assert early_set.start < late_set.start
    assert wait.line == wait_line and wait.end == late_set.start
    assert after_0.start == after_1.start == late_set.start  # both leave the barrier together
    assert not spans(result, "AIV 0.0", "V", "wait")  # the last to arrive does not wait


def test_mode_0_barrier_over_four_vector_cores():
    k, _, _ = _barrier_kernel()
    result = run(k, [np.zeros(256, np.float16)], block_num=4, preset="small")
    (late_set,) = spans(result, "AIV 0.0", "V", "flag")
    for core in ("AIV 0.1", "AIV 1.0", "AIV 1.1"):
        (wait,) = spans(result, core, "V", "wait")
        assert wait.end == late_set.start


def test_mode_1_barrier_pairs_the_two_vector_cores_of_each_ai_core():
    args = [("x", "memref<256xf16>")]
    c = KernelText(args, name="k_aic", core="aic", kernel_type="mix_1_2", kernel="k")
    v = KernelText(args, name="k_aiv", core="aiv", kernel_type="mix_1_2", kernel="k")
    v.first_line = len(c.lines()) + 1
    zero, _ = v.const(0), v.const(1.0, "f16")
    sub = v.fresh("s")
    v.emit(f'%{sub} = "npu.sub_block_idx"() : () -> index')
    ub = v.alloc("UB", 256, "f16")
    v.emit(f"%first = arith.cmpi eq, %{sub}, %{zero} : index")
    v.emit("scf.if %first {")
    v.vector("vdup", [ub], [0], 1.0, repeat=100, mask=16, dst_rep_stride=0)  # 104 cycles
    v.emit("}")
    v.cross_set(2, 1, "V")
    v.cross_wait(2, 1, "V")
    v.vector("vdup", [ub], [0], 1.0, repeat=1)
    result = run([c, v], [np.zeros(256, np.float16)], block_num=2, preset="small")
    for group in (0, 1):
        first, second = f"AIV {group}.0", f"AIV {group}.1"
        (long_op, after_first) = spans(result, first, "V", "vector")
        (wait,) = spans(result, second, "V", "wait")
        (after_second,) = spans(result, second, "V", "vector")
        assert long_op.cycles == 104
        assert wait.end == long_op.end == after_first.start == after_second.start
    assert not spans(result, "AIC 0", "V")  # the cube core takes no part


# -- fluid_hbm.py: water filling -----------------------------------------------------------
def test_water_filling_serves_small_caps_first_and_splits_the_rest():
    hbm = FluidHbm(bytes_per_cycle=300.0)
    for key, cap in (("a", 50.0), ("b", 200.0), ("c", 200.0)):
        hbm.start(key, 0.0, nbytes=1000, cap=cap)
    assert hbm.rates() == pytest.approx({"a": 50.0, "b": 125.0, "c": 125.0})


def test_water_filling_with_three_unequal_caps():
    hbm = FluidHbm(bytes_per_cycle=300.0)
    for key, cap in (("a", 50.0), ("b", 100.0), ("c", 400.0)):
        hbm.start(key, 0.0, nbytes=1000, cap=cap)
    assert hbm.rates() == pytest.approx({"a": 50.0, "b": 100.0, "c": 150.0})
    assert sum(hbm.rates().values()) == pytest.approx(300.0)


def test_water_filling_below_the_bandwidth_gives_every_cap():
    hbm = FluidHbm(bytes_per_cycle=1000.0)
    for key, cap in (("a", 30.0), ("b", 128.0), ("c", 256.0)):
        hbm.start(key, 0.0, nbytes=1000, cap=cap)
    assert hbm.rates() == pytest.approx({"a": 30.0, "b": 128.0, "c": 256.0})


def test_rates_change_when_a_dma_finishes():
    hbm = FluidHbm(bytes_per_cycle=200.0)
    hbm.start("short", 0.0, nbytes=400, cap=150.0)
    hbm.start("long", 0.0, nbytes=1000, cap=150.0)
    assert hbm.next_finish() == (pytest.approx(4.0), "short")  # 400 B at 100 a cycle
    hbm.advance(4.0)
    assert "short" in hbm.done()
    hbm.finish("short")
    assert hbm.rates() == pytest.approx({"long": 150.0})  # alone: its cap
    when, key = hbm.next_finish()
    assert key == "long" and when == pytest.approx(4.0 + 600 / 150)


def test_a_late_dma_takes_its_share_from_then_on():
    hbm = FluidHbm(bytes_per_cycle=100.0)
    hbm.start("a", 0.0, nbytes=1000, cap=100.0)
    hbm.start("b", 5.0, nbytes=100, cap=100.0)  # a moved 500 alone
    assert hbm.rates() == pytest.approx({"a": 50.0, "b": 50.0})
    assert hbm.next_finish() == (pytest.approx(7.0), "b")
    hbm.advance(7.0)
    hbm.finish("b")
    assert hbm.next_finish()[0] == pytest.approx(7.0 + 400 / 100)


def test_l2_hits_are_not_held_back_by_a_saturated_hbm():
    hbm = FluidHbm(bytes_per_cycle=100.0, l2_bytes_per_cycle=1000.0)
    hbm.start("miss", 0.0, nbytes=1000, cap=128.0, miss_fraction=1.0)
    hbm.start("hit", 0.0, nbytes=1000, cap=128.0, miss_fraction=0.0)
    assert hbm.rates() == pytest.approx({"miss": 100.0, "hit": 128.0})


def test_the_l2_bandwidth_bounds_hits_too():
    hbm = FluidHbm(bytes_per_cycle=1e9, l2_bytes_per_cycle=150.0)
    for key, cap in (("a", 40.0), ("b", 128.0), ("c", 128.0)):
        hbm.start(key, 0.0, nbytes=1000, cap=cap, miss_fraction=0.0)
    assert hbm.rates() == pytest.approx({"a": 40.0, "b": 55.0, "c": 55.0})

"""The cost model on hand-built counters, each case checked to a figure worked by hand.

A100 figures used throughout: 108 SMs at 1.41 GHz, 4 schedulers, 64 FP32 / 64 INT32 /
16 SFU / 32 LD/ST lanes per SM, L1 128 B/cycle, L2 3800 B/cycle, DRAM 2039 GB/s =
1446.1 B/cycle, launch 3 us = 4230 cycles; 256 threads and 32 registers give 8 blocks
per SM, a wave of 864 blocks.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.cost_model import estimate
from tinycomp.targets.gpu_sim.counters import KernelCounters
from tinycomp.targets.gpu_sim.occupancy import occupancy
from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.targets.gpu_sim.roofline_place import roofline_point
from tinycomp.targets.gpu_sim.waves import waves

A100 = lookup_preset("a100")
LAUNCH = 4230.0
DRAM_PER_CYCLE = 2039.0 / 1.41


def make_counters(blocks, threads, simulated=None, footprint=None, **per_block):
    """Counters with the same figures for every simulated block."""
    simulated = blocks if simulated is None else simulated
    counters = KernelCounters.zeros(np.arange(simulated), threads)
    counters.blocks_total = blocks
    for name, value in per_block.items():
        counters.add(name, value)
    counters.footprint_sectors = dict(footprint or {})
    return counters


def compute_counters(blocks):
    # 8 warps x 1000 FMAs per block, all lanes active
    return make_counters(blocks, 256, inst_fp32=8000, lane_instructions=8000 * 32)


def copy_counters(blocks, load_sectors=32, distinct=64, simulated=None):
    # one float in and one out per thread: 8 warp loads (4 sectors each when coalesced),
    # 8 warp stores, 3 integer ops per warp for the index
    simulated = blocks if simulated is None else simulated
    return make_counters(
        blocks, 256, simulated,
        footprint={"src": simulated * 32, "dst": simulated * 32},
        inst_ld_global=8, inst_st_global=8, inst_int=24, lane_instructions=40 * 32,
        global_load_requests=8, global_load_sectors=load_sectors, global_load_sectors_ideal=32,
        global_store_requests=8, global_store_sectors=32, global_store_sectors_ideal=32,
        global_distinct_sectors=distinct,
    )  # fmt: skip


OCC_256 = occupancy(A100, 256, 32, 0)


def test_compute_bound_kernel_binds_fp32_at_fma_throughput():
    blocks = 2 * 864
    fmas = blocks * 8000 * 32  # lane FMAs
    e = estimate(compute_counters(blocks), A100, OCC_256, flops=2 * fmas)
    # fmas / (64 lanes x 108 SMs) = 442,368,000 / 6912 = 64000 cycles
    assert e.binding == "fp32"
    assert e.breakdown["fp32"] == pytest.approx(fmas / (64 * 108)) == 64000
    assert e.cycles == pytest.approx(64000 + LAUNCH)
    assert e.breakdown["issue"] == pytest.approx(32000)  # 8 blocks x 8000 / 4 schedulers x 2
    assert e.breakdown["latency"] == 0.0  # no memory: nothing to wait for
    assert e.waves == 2 and e.tail_fraction == 1.0 and e.blocks_per_sm == 8
    assert e.seconds == pytest.approx((64000 + LAUNCH) / 1.41e9)
    assert e.achieved_gflops == pytest.approx(2 * fmas / e.seconds / 1e9)
    # without flops=, each active fp lane counts one FLOP
    assert estimate(compute_counters(blocks), A100, OCC_256).flops == fmas


def test_streaming_copy_binds_dram_at_bytes_over_bandwidth():
    blocks = 10 * 864
    e = estimate(copy_counters(blocks), A100, OCC_256)
    dram_bytes = blocks * 64 * 32  # every sector in and out once: 17,694,720 B
    assert e.binding == "dram"
    assert e.dram_bytes == pytest.approx(dram_bytes)
    assert e.cycles - LAUNCH == pytest.approx(dram_bytes / DRAM_PER_CYCLE)  # 12236 cycles
    assert e.seconds - 3e-6 == pytest.approx(dram_bytes / 2039e9)
    assert e.l1_hit_fraction == 0.0 and e.l2_hit_fraction == 0.0
    # the other limits, per wave: L2 8 x 64 x 32 B x 108 / 3800 = 465.6; L1 8 x 64 x 32 / 128
    assert e.breakdown["l2"] == pytest.approx(10 * 8 * 64 * 32 * 108 / 3800)
    assert e.breakdown["l1/shared"] == pytest.approx(10 * 128)
    # one round (no loop, no barrier) waits for DRAM: 500 cycles a wave, covered by the
    # other 7 blocks of the SM
    assert e.breakdown["latency"] == pytest.approx(10 * 500)


def test_uncoalesced_load_moves_eight_times_the_sectors_and_binds_l2():
    blocks = 10 * 864
    coalesced = estimate(copy_counters(blocks), A100, OCC_256)
    # stride >= 32 floats: each warp load touches 32 sectors instead of 4; other blocks
    # read the rest of each sector, so the footprint is the same and L2 serves the repeats
    strided = estimate(copy_counters(blocks, load_sectors=256, distinct=288), A100, OCC_256)
    l2_bytes = blocks * (256 + 32) * 32
    assert strided.binding == "l2"
    assert strided.l2_bytes == pytest.approx(l2_bytes)
    assert strided.l2_bytes - blocks * 32 * 32 == pytest.approx(8 * (coalesced.l2_bytes / 2))
    assert strided.dram_bytes == pytest.approx(coalesced.dram_bytes)
    # 79,626,240 B / 3800 B per cycle; the per-wave split is exact: 10 waves of 864 blocks
    assert strided.cycles - LAUNCH == pytest.approx(l2_bytes / 3800)
    assert strided.l2_hit_fraction == pytest.approx(1 - 64 / 288)
    # the L1 looks up one 128 B line a cycle: a coalesced load is 1 line, a strided one
    # 1 + (32 - 4) = 29; per block 8 x 29 loads + 8 stores = 240 lines, 8 blocks a wave
    assert strided.breakdown["l1/shared"] == pytest.approx(10 * 8 * 240)
    assert coalesced.breakdown["l1/shared"] == pytest.approx(10 * 8 * 16)


def test_bank_conflicts_bind_the_shared_data_path():
    def shared_kernel(wavefronts_per_request):
        return make_counters(
            864, 256, inst_ld_shared=800, shared_load_requests=800,
            shared_load_wavefronts=800 * wavefronts_per_request, lane_instructions=800 * 32,
        )  # fmt: skip

    free = estimate(shared_kernel(1), A100, OCC_256)
    conflicted = estimate(shared_kernel(32), A100, OCC_256)
    # no conflicts: 8 blocks x 800 requests on 32 LD/ST lanes = 6400 cycles, and the L1 data
    # path the same (one 128 B wavefront a cycle): the unit is named first
    assert free.binding == "ld/st" and free.cycles - LAUNCH == pytest.approx(6400)
    # 32-way conflicts: 8 x 25600 wavefronts = 204800 cycles
    assert conflicted.binding == "l1/shared"
    assert conflicted.cycles - LAUNCH == pytest.approx(204800)
    # one round of shared loads (no loop): 30 cycles, once per wave
    assert conflicted.breakdown["latency"] == pytest.approx(30)


def latency_counters(blocks, barriers=0):
    # one warp per block: a loop of 100 iterations, each a load of 4 fresh sectors and an
    # FP32 op; nvcc unrolls a run-time loop by 4, so the loads wait in 25 rounds
    return make_counters(
        blocks, 32, footprint={"a": blocks * 400},
        inst_ld_global=100, inst_fp32=100, inst_branch=100, inst_barrier=barriers,
        lane_instructions=300 * 32, global_load_requests=100, global_load_sectors=400,
        global_load_sectors_ideal=400, global_distinct_sectors=400,
    )  # fmt: skip


def test_few_warps_per_sm_bind_latency():
    occ = occupancy(A100, 32, 32, 0)  # 32 blocks could fit; 108 blocks give 1 per SM
    one = estimate(latency_counters(108), A100, occ)
    # 25 rounds x 500 (every load from DRAM) = 12500 cycles with nothing else to issue,
    # after the block's widest demand: DRAM, 400 sectors x 32 B x 108 SMs / 1446 B a cycle
    dram = 400 * 32 * 108 / DRAM_PER_CYCLE
    assert one.binding == "latency"
    assert one.breakdown["latency"] == pytest.approx(12500)
    assert one.breakdown["dram"] == pytest.approx(dram)
    assert one.cycles == pytest.approx(dram + 12500 + LAUNCH)
    # twice the blocks, two per SM: one block's wait is covered by the other's work, but
    # there is not enough of it: max(2 x dram, dram + 12500) is the same time
    two = estimate(latency_counters(216), A100, occ)
    assert two.waves == 1 and two.cycles == pytest.approx(one.cycles)
    assert two.achieved_gflops == pytest.approx(2 * one.achieved_gflops)
    # a tile loop (load, sync, compute, sync): 50 tiles of 2 barriers are 50 rounds
    tiled = estimate(latency_counters(108, barriers=100), A100, occ)
    assert tiled.breakdown["latency"] == pytest.approx(50 * 500)


def test_more_waves_scale_the_time():
    one = estimate(compute_counters(864), A100, OCC_256)
    three = estimate(compute_counters(3 * 864), A100, OCC_256)
    assert (one.waves, three.waves) == (1, 3)
    assert (three.cycles - LAUNCH) == pytest.approx(3 * (one.cycles - LAUNCH))


def test_the_tail_wave():
    e = estimate(compute_counters(865), A100, OCC_256)
    # a full wave: 8 x 4000 = 32000; the tail: one block on one SM, fp32 4000 cycles
    # (no memory to wait for)
    assert e.waves == 2
    assert e.tail_fraction == pytest.approx(1 / 864)
    assert e.cycles - LAUNCH == pytest.approx(32000 + 4000)
    assert any("(1 of 864 blocks)" in note for note in e.notes)


def test_launch_overhead_dominates_a_tiny_kernel():
    occ = occupancy(A100, 32, 32, 0)
    e = estimate(make_counters(1, 32, inst_fp32=10, lane_instructions=320), A100, occ)
    # 10 FP32 ops: 5 cycles of lanes, 4230 of launch
    assert e.binding == "launch"
    assert e.cycles == pytest.approx(LAUNCH + 5)
    assert e.seconds == pytest.approx((LAUNCH + 5) / 1.41e9)


def test_sampled_run_scales_the_footprint():
    full = estimate(copy_counters(8640), A100, OCC_256)
    sampled = estimate(copy_counters(8640, simulated=4), A100, OCC_256)
    assert sampled.sampled and not full.sampled
    assert sampled.dram_bytes == pytest.approx(full.dram_bytes)
    assert sampled.cycles == pytest.approx(full.cycles)
    assert any("sampled 4 of 8640 blocks" in note for note in sampled.notes)
    # the array's size caps the scaled footprint: src has 1000 sectors, dst 8640 x 32
    capped = estimate(
        copy_counters(8640, simulated=4), A100, OCC_256, array_bytes={"src": 1000 * 32}
    )
    assert capped.dram_bytes == pytest.approx((1000 + 8640 * 32) * 32)


def test_block_footprint_over_its_l1_share():
    occ = occupancy(A100, 256, 32, 48 * 1024)  # 3 blocks per SM, 164 KB carve-out
    counters = make_counters(
        324, 256, footprint={"a": 324 * 600},
        inst_ld_global=300, global_load_requests=300, global_load_sectors=1200,
        global_distinct_sectors=600, lane_instructions=300 * 32,
    )  # fmt: skip
    e = estimate(counters, A100, occ)
    # L1 left: 192 - 164 = 28 KB = 28672 B, a third each = 9557 B; the block's 600 sectors
    # are 19200 B, so 9557/19200 of its 600 repeated sectors hit: 298.7 of 1200
    share = 28672 / 3 / 19200
    assert e.l1_hit_fraction == pytest.approx(600 * share / 1200)
    assert any("over its share of L1" in note for note in e.notes)


def test_kernel_footprint_over_l2_is_fetched_again_by_each_wave():
    classroom = lookup_preset("classroom")  # 2 SMs, 256 KB of L2
    occ = occupancy(classroom, 256, 32, 0)  # 1 block per SM: waves of 2 blocks
    counters = make_counters(
        4, 256, footprint={"a": 16384},
        inst_ld_global=64, global_load_requests=64, global_load_sectors=8192,
        global_load_sectors_ideal=8192, global_distinct_sectors=8192,
        lane_instructions=64 * 32,
    )  # fmt: skip
    over = estimate(counters, classroom, occ)
    # the kernel's 16384 sectors (512 KB) are twice L2; each wave of 2 blocks touches
    # min(16384, 2 x 8192) sectors: the 2 waves fetch 32768, each sector twice
    assert over.dram_bytes == pytest.approx(2 * 16384 * 32)
    assert over.l2_hit_fraction == pytest.approx(0.0)
    assert any(
        "each of the 2 waves fetches what it shares from DRAM again" in n for n in over.notes
    )
    # with 1 MB of L2 the whole footprint stays: every sector from DRAM once
    big = classroom.with_changes(l2_bytes=2**20)
    fits = estimate(counters, big, occupancy(big, 256, 32, 0))
    assert fits.dram_bytes == pytest.approx(16384 * 32)
    assert fits.l2_hit_fraction == pytest.approx(0.5)


def test_blocks_of_a_wave_share_a_small_array():
    # 2160 blocks (10 waves of 216 at 2 per SM, 64 regs); every block reads all of x
    # (100 sectors) and 400 sectors of its own of y
    occ = occupancy(A100, 256, 128, 0)
    counters = make_counters(
        2160, 256, simulated=2, footprint={"x": 100, "y": 800},
        inst_ld_global=500, global_load_requests=500, global_load_sectors=500,
        global_load_sectors_ideal=500, global_distinct_sectors=500, lane_instructions=500 * 32,
    )  # fmt: skip
    sizes = {"x": 100 * 32, "y": 2160 * 400 * 32}
    e = estimate(counters, A100, occ, array_bytes=sizes)
    assert occ.blocks_per_sm == 2
    # y: 2160 x 400 sectors = 27.6 MB plus x fit the 40 MB L2: each sector once
    assert e.dram_bytes == pytest.approx((100 + 2160 * 400) * 32)
    small_l2 = A100.with_changes(l2_bytes=2**20)
    e = estimate(counters, small_l2, occupancy(small_l2, 256, 128, 0), array_bytes=sizes)
    # over L2: a wave reads x once (100 sectors, the array's size) and its blocks' 400
    # sectors each of y, 10 waves (x, shared by the blocks, takes the shared sectors)
    assert e.dram_bytes == pytest.approx(10 * (100 + 216 * 400) * 32)


def test_random_counters_against_the_formulas():
    rng = np.random.default_rng(11)
    counters = KernelCounters.zeros(np.arange(8), 128)
    for name in ("inst_fp32", "inst_int", "inst_sfu", "inst_conversion", "inst_misc"):
        counters.add(name, rng.integers(1, 5000, size=8))
    counters.add("lane_instructions", rng.integers(1, 10_000, size=8))
    occ = occupancy(A100, 128, 32, 0)
    e = estimate(counters, A100, occ)
    mean = {k: v.mean() for k, v in counters.per_block.items()}
    # 8 blocks on 108 SMs: one wave, one block on the busiest SM
    issued = sum(mean[f"inst_{c}"] for c in ("fp32", "int", "sfu", "conversion", "misc"))
    assert e.breakdown["issue"] == pytest.approx(issued / 4)
    assert e.breakdown["fp32"] == pytest.approx(mean["inst_fp32"] * 32 / 64)
    assert e.breakdown["int"] == pytest.approx((mean["inst_int"] + mean["inst_conversion"]) / 2)
    assert e.breakdown["sfu"] == pytest.approx(mean["inst_sfu"] * 32 / 16)
    assert e.breakdown["latency"] == 0.0  # no memory
    limits = {k: v for k, v in e.breakdown.items() if k != "launch"}
    assert e.cycles == pytest.approx(max(limits.values()) + LAUNCH)
    assert e.binding == max(e.breakdown, key=e.breakdown.get)


def test_random_wave_schedules_place_every_block():
    rng = np.random.default_rng(5)
    for _ in range(20):
        blocks, per_sm = int(rng.integers(1, 3000)), int(rng.integers(1, 9))
        s = waves(A100, blocks, per_sm)
        pairs, counts = np.unique(s.wave * 1000 + s.sm, return_counts=True)
        assert counts.max() <= per_sm and len(s.wave) == blocks
        for w in range(s.waves):
            on_sms = np.bincount(s.sm[s.wave == w], minlength=A100.sm_count)
            assert on_sms.max() == s.busiest_sm_blocks(w)
            assert (on_sms > 0).sum() == s.active_sms(w)
        assert s.waves == -(-blocks // (108 * per_sm))


def test_estimate_table_and_roofline_point():
    blocks = 864
    fmas = blocks * 8000 * 32
    e = estimate(compute_counters(blocks), A100, OCC_256, flops=2 * fmas)
    text = str(e)
    assert text.startswith("a100: ") and "bound by fp32" in text
    assert [line for line in text.splitlines() if "<- binds" in line][0].startswith("fp32")
    point = roofline_point(e, A100, "fma")
    assert point.bound == "compute"
    assert point.peak_gflops == pytest.approx(2 * 64 * 108 * 1.41)
    assert point.achieved_gflops == pytest.approx(e.achieved_gflops)
    # 32000 cycles of FMAs out of 36230: that fraction of the FP32 roof
    assert point.fraction_of_roof == pytest.approx(32000 / (32000 + LAUNCH))
    assert point.kernel_cost.flops == 2 * fmas


def test_mismatched_inputs_are_refused():
    with pytest.raises(ValueError, match="counters are of blocks of 256 threads, the occupancy"):
        estimate(compute_counters(8), A100, occupancy(A100, 128, 32, 0))
    h100 = lookup_preset("h100")
    with pytest.raises(
        ValueError, match="computed for preset 'h100', the estimate asks for 'a100'"
    ):
        estimate(compute_counters(8), A100, occupancy(h100, 256, 32, 0))
    e = estimate(compute_counters(8), A100, OCC_256)
    with pytest.raises(ValueError, match="the estimate is for preset 'a100', not 'h100'"):
        roofline_point(e, h100)
    with pytest.raises(ValueError, match="wave 3 does not exist: the grid runs in 1 waves"):
        waves(A100, 8, 1).blocks_in_wave(3)
    with pytest.raises(ValueError, match="blocks_total=0"):
        waves(A100, 0, 1)

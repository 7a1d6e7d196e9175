"""Occupancy against the CUDA occupancy calculator's rules, worked by hand in the comments.

Registers: per warp roundup(regs * 32, 256); per sub-partition floor(16384 / that) warps;
blocks floor(4 * that / warps_per_block). Shared: floor(largest carve-out /
roundup(smem + 1024, 128)). Warps: floor(max warps / warps_per_block). Blocks: the cap.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.occupancy import OccupancyError, occupancy
from tinycomp.targets.gpu_sim.preset import lookup_preset

CASES = [
    # A100, 256 threads = 8 warps, 32 regs: 32*32 = 1024 per warp, 16384/1024 = 16 warps per
    # sub-partition, 4*16/8 = 8 blocks; warps 64/8 = 8; smem (0 + 1024)/128 -> 1024 B,
    # 167936/1024 = 164; cap 32. 8 blocks, 64 warps, 100%; warps and registers tie.
    ("a100", 256, 32, 0, 8, 1.0, ("warps", "registers"), 8),
    # 64 regs: 2048 per warp, 16384/2048 = 8 per sub-partition, 32/8 = 4 blocks, 50%.
    ("a100", 256, 64, 0, 4, 0.5, ("registers",), 8),
    # 48 KB smem: 49152 + 1024 = 50176 (a multiple of 128), 167936/50176 = 3.3 -> 3 blocks,
    # 24 warps = 37.5%; 3 * 50176 B = 147 KB needs the 164 KB carve-out.
    ("a100", 256, 32, 48 * 1024, 3, 0.375, ("shared memory",), 164),
    # 1024 threads = 32 warps: warps 64/32 = 2; registers 4*16/32 = 2: 100%.
    ("a100", 1024, 32, 0, 2, 1.0, ("warps", "registers"), 8),
    # 32 threads = 1 warp, 16 regs: 512 per warp, 32 per sub-partition, 128 blocks; warps 64;
    # the cap of 32 binds: 32 warps = 50%; 32 * 1 KB reserve = 32 KB carve-out.
    ("a100", 32, 16, 0, 32, 0.5, ("blocks",), 32),
    # 96 threads = 3 warps, 40 regs: 1280 per warp (already a multiple of 256),
    # 16384/1280 = 12.8 -> 12, 48/3 = 16 blocks; warps 64/3 = 21. 48 warps = 75%.
    ("a100", 96, 40, 0, 16, 0.75, ("registers",), 16),
    # H100, 256 threads, 128 regs: 4096 per warp, 4 per sub-partition, 16/8 = 2 blocks;
    # 100 KB smem: 102400 + 1024 = 103424, 233472/103424 = 2.26 -> 2. Tie; 16 warps = 25%;
    # 2 * 103424 B = 202 KB needs the 228 KB carve-out.
    ("h100", 256, 128, 100 * 1024, 2, 0.25, ("registers", "shared memory"), 228),
    # A6000 (48 warps, 16 blocks per SM), 256 threads, 32 regs: warps 48/8 = 6;
    # registers 8; smem 102400/1024 = 100. 6 blocks = 48 warps = 100%; 6 KB -> 8 KB.
    ("a6000", 256, 32, 0, 6, 1.0, ("warps",), 8),
    # A6000, SGEMM-like: 256 threads, 128 regs: 4*4/8 = 2 blocks; smem 8 KB + 1 KB = 9216,
    # 102400/9216 = 11. 16 warps of 48 = 33%.
    ("a6000", 256, 128, 8192, 2, 16 / 48, ("registers",), 32),
    # classroom (1 sub-partition of 8192 regs, 8 warps, 4 blocks, no reserve), 64 threads
    # = 2 warps, 32 regs, 4 KB: registers 8192/1024 = 8 warps -> 4 blocks; warps 8/2 = 4;
    # smem 16384/4096 = 4; cap 4: everything ties, 100%, 16 KB carve-out.
    ("classroom", 64, 32, 4096, 4, 1.0, ("warps", "blocks", "registers", "shared memory"), 16),
]


@pytest.mark.parametrize("preset, threads, regs, smem, blocks, fraction, bound_by, carveout", CASES)
def test_hand_computed_occupancy(preset, threads, regs, smem, blocks, fraction, bound_by, carveout):
    occ = occupancy(lookup_preset(preset), threads, regs, smem)
    assert occ.blocks_per_sm == blocks
    assert occ.warps_per_sm == blocks * -(-threads // 32)
    assert occ.occupancy == pytest.approx(fraction)
    assert occ.bound_by == bound_by
    assert occ.binding == bound_by[0]
    assert occ.carveout_kb == carveout


def test_limits_table_lists_every_limit():
    occ = occupancy(lookup_preset("a100"), 256, 64, 48 * 1024)
    # registers 4 (as above); smem 3; warps 8; cap 32
    assert occ.limits == {"warps": 8, "blocks": 32, "registers": 4, "shared memory": 3}
    text = str(occ).splitlines()
    assert text[0] == "a100: 256 threads, 64 registers, 49152 B shared per block"
    assert [line.split()[0] for line in text[2:6]] == ["warps", "blocks", "registers", "shared"]
    assert text[5].endswith("<- binds") and "<- binds" not in text[4]
    assert text[-1] == "resident: 3 blocks, 24 warps, occupancy 38%, carve-out 164 KB"
    with pytest.raises(dataclasses.FrozenInstanceError):
        occ.blocks_per_sm = 5


def test_no_registers_and_no_shared_memory_set_no_limit():
    occ = occupancy(lookup_preset("classroom"), 32, 0, 0)
    assert occ.limits["registers"] is None and occ.limits["shared memory"] is None
    assert occ.blocks_per_sm == 4 and occ.binding == "blocks"
    assert "no limit" in str(occ)


def test_random_blocks_respect_every_resource():
    rng = np.random.default_rng(3)
    for _ in range(200):
        preset = lookup_preset(str(rng.choice(["a100", "h100", "a6000"])))
        threads = int(rng.integers(1, 33)) * 32
        regs = int(rng.integers(16, 65))
        smem = int(rng.integers(0, 40_000))
        try:
            occ = occupancy(preset, threads, regs, smem)
        except OccupancyError:
            continue
        warps = threads // 32
        per_warp = -(-regs * 32 // 256) * 256
        allocated = -(-(smem + 1024) // 128) * 128
        assert occ.warps_per_sm <= preset.max_warps_per_sm
        assert occ.blocks_per_sm * warps * per_warp <= preset.registers_per_sm
        assert occ.blocks_per_sm * allocated <= occ.carveout_kb * 1024
        assert occ.carveout_kb in preset.shared_carveouts_kb
        # one block more breaks some limit
        more = occ.blocks_per_sm + 1
        assert (
            more * warps > preset.max_warps_per_sm
            or more > preset.max_blocks_per_sm
            or more * allocated > preset.max_shared_per_sm
            or 4 * ((65536 // 4) // per_warp) < more * warps
        )


@pytest.mark.parametrize(
    "preset, threads, regs, smem, message",
    [
        ("a100", 256, 256, 0, r"registers per thread: 256 is over the limit of 255 on "
         r"preset 'a100'"),
        ("a100", 256, 32, 166913, r"shared memory per block: 166913 B is over the limit of "
         r"166912 B on preset 'a100'"),
        ("h100", 1025, 32, 0, r"threads per block: 1025 is over the limit of 1024 on "
         r"preset 'h100'"),
        ("classroom", 512, 32, 0, r"threads per block: 512 is over the limit of 256 on preset "
         r"'classroom'"),
        ("a100", 1024, 255, 0, r"registers per block: 255 per thread x 1024 threads allocate "
         r"262144, over the limit of 65536 on preset 'a100'"),
        ("a100", 0, 32, 0, r"threads per block must be at least 1, got 0"),
    ],
)  # fmt: skip
def test_blocks_that_cannot_run(preset, threads, regs, smem, message):
    with pytest.raises(OccupancyError, match=message):
        occupancy(lookup_preset(preset), threads, regs, smem)

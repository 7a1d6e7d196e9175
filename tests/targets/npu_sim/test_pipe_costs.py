"""Per-op costs on the NPU's pipes, against the hardware notes' rates worked by hand on
random sizes."""

import numpy as np
import pytest

from tinycomp.targets.npu_sim.pipe_costs import (
    dma_cycles,
    padded_bytes,
    vector_cycles,
    vector_repeats,
)
from tinycomp.targets.npu_sim.preset import PATHS, lookup_npu_preset

RNG = np.random.default_rng(3)
CHIP = lookup_npu_preset("910b2")


@pytest.mark.parametrize(("source", "destination"), sorted(PATHS))
def test_dma_is_latency_plus_bytes_over_the_rate(source, destination):
    for blocks in RNG.integers(1, 4000, 5):
        nbytes = int(blocks) * 32
        moved = -(-nbytes // 512) * 512 if source == "GM" else nbytes
        rate = CHIP.path_bytes_per_cycle(source, destination)
        assert dma_cycles(CHIP, source, destination, nbytes) == pytest.approx(500 + moved / rate)
        halved = dma_cycles(CHIP, source, destination, nbytes, sharers=2)
        assert halved - 500 == pytest.approx(2 * moved / rate)


def test_gm_traffic_of_many_cores_is_bounded_by_hbm():
    nbytes = 64 * 1024
    alone = dma_cycles(CHIP, "GM", "L1", nbytes)
    crowded = dma_cycles(CHIP, "GM", "L1", nbytes, hbm_sharers=24)
    per_cycle = 1.6e12 / 1.8e9 / 24
    assert crowded == pytest.approx(500 + nbytes / per_cycle)
    assert crowded > alone
    # on-chip paths do not touch HBM
    assert dma_cycles(CHIP, "L1", "L0A", nbytes, hbm_sharers=24) == dma_cycles(
        CHIP, "L1", "L0A", nbytes
    )


def test_gm_reads_move_whole_lines_and_lengths_must_be_aligned():
    assert padded_bytes(CHIP, "GM", 32) == 512
    assert padded_bytes(CHIP, "UB", 32) == 32
    with pytest.raises(ValueError, match="multiple of 32 bytes, got 100"):
        padded_bytes(CHIP, "GM", 100)
    with pytest.raises(KeyError, match="no DMA path UB -> L0A"):
        dma_cycles(CHIP, "UB", "L0A", 64)


def test_vector_ops_pay_a_startup_per_255_repeats():
    for nbytes in RNG.integers(1, 200_000, 10):
        repeats = -(-int(nbytes) // 256)
        instructions = -(-repeats // 255)
        assert vector_repeats(CHIP, int(nbytes)) == repeats
        assert vector_cycles(CHIP, int(nbytes), "unary") == 4 * instructions + repeats
        assert vector_cycles(CHIP, int(nbytes), "binary") == 4 * instructions + 2 * repeats
    with pytest.raises(ValueError, match="kind among binary, unary, got 'ternary'"):
        vector_cycles(CHIP, 256, "ternary")

"""The NPU presets hold the figures of the hardware notes, and the chip-level peaks
derived from them are the published ones."""

import dataclasses

import pytest

from tinycomp.targets.npu_sim.preset import BUFFERS, NPU_PRESETS, PATHS, lookup_npu_preset


def test_910b2_derives_the_published_peaks():
    chip = lookup_npu_preset("910b2")
    assert (chip.aic_count, chip.aiv_count) == (24, 48)
    # 24 AICs x 4096 MACs x 2 FLOPs x 1.8 GHz; 48 AIVs x 128 lanes x 2 x 1.8 GHz
    assert chip.cube_peak_tflops == pytest.approx(353.9, abs=0.05)
    assert chip.vector_peak_tflops == pytest.approx(22.1, abs=0.05)
    assert chip.hbm_bytes_per_cycle == pytest.approx(1.6e12 / 1.8e9)
    assert chip.cube_macs_per_cycle == chip.fractal**3


def test_910b2_buffers_and_paths_are_the_documented_ones():
    chip = lookup_npu_preset("910b2")
    kib = {name: chip.buffer_bytes(name) // 1024 for name in BUFFERS}
    assert kib == {"L1": 512, "L0A": 64, "L0B": 64, "L0C": 128, "BT": 1, "FB": 7, "UB": 192}
    assert chip.path_bytes_per_cycle("GM", "L1") == 256
    assert chip.path_bytes_per_cycle("L1", "L0B") == 128
    assert chip.path_bytes_per_cycle("L0C", "L1") == 256
    assert chip.vector_repeat_bytes == 8 * 32 and chip.max_repeats == 255
    assert chip.event_ids == 8


@pytest.mark.parametrize("name", sorted(NPU_PRESETS))
def test_every_preset_is_complete_and_aligned(name):
    chip = NPU_PRESETS[name]
    assert set(chip.buffers) == set(BUFFERS)
    assert set(chip.path_bytes) == set(PATHS)
    for buffer, size in chip.buffers.items():
        assert size > 0 and size % chip.alignment_bytes == 0, buffer
    assert chip.gm_line_bytes % chip.alignment_bytes == 0
    assert chip.aiv_per_aic == 2


def test_the_small_preset_is_smaller_in_every_buffer_and_in_cores():
    small, big = lookup_npu_preset("small"), lookup_npu_preset("910b2")
    assert small.aic_count < big.aic_count and small.aiv_count == 4
    for buffer in BUFFERS:
        assert small.buffer_bytes(buffer) <= big.buffer_bytes(buffer), buffer
    assert big.buffers["UB"] == 192 * 1024  # deriving small did not change the 910b2


def test_unknown_names_say_what_exists():
    with pytest.raises(KeyError, match="presets are 910b2, small"):
        lookup_npu_preset("910c")
    chip = lookup_npu_preset("910b2")
    with pytest.raises(KeyError, match="no buffer named 'L2'.*L1, L0A"):
        chip.buffer_bytes("L2")
    with pytest.raises(KeyError, match="no DMA path UB -> L0A"):
        chip.path_bytes_per_cycle("UB", "L0A")


def test_presets_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        lookup_npu_preset("910b2").aic_count = 1  # type: ignore[misc]
    assert lookup_npu_preset(NPU_PRESETS["small"]) is NPU_PRESETS["small"]

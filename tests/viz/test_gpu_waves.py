"""wave_plan and waves_picture: blocks dealt over the SMs, wave after wave."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.viz.gpu_waves import TAIL, shown_sms, wave_plan, waves_picture


def test_classroom_text_twin():
    assert waves_picture("classroom", blocks_total=10, blocks_per_sm=2).text == (
        "waves on classroom: 10 blocks, 2 SMs x 2 blocks per SM = 4 blocks per wave\n"
        "3 waves: 2 full, the tail holds 2 of 4 blocks (50%); 83.3% of the block slots used\n"
        "  wave  blocks  SMs busy\n"
        "  0     0..3    2\n"
        "  1     4..7    2\n"
        "  2     8..9    2 (tail)\n"
        "blocks per SM, wave by wave (all 2 SMs):\n"
        "  SM  wave 0  wave 1  wave 2\n"
        "  0   0, 2    4, 6    8\n"
        "  1   1, 3    5, 7    9"
    )


@pytest.mark.parametrize("total, per_sm", [(1000, 4), (85, 1), (5000, 1), (336, 4), (7, 16)])
def test_placement_is_round_robin(total, per_sm):
    plan = wave_plan("a6000", total, per_sm)
    per_wave = 84 * per_sm
    ids = np.arange(total)
    places = np.array([plan.place(int(b)) for b in ids])
    assert (places[:, 0] == ids // per_wave).all()
    assert (places[:, 1] == ids % per_wave % 84).all()
    assert (places[:, 2] == ids % per_wave // 84).all()
    assert plan.waves == -(-total // per_wave)
    assert plan.slot_use == total / (plan.waves * per_wave)


def test_block_cycles_set_the_wave_lengths():
    rng = np.random.default_rng(2)
    cycles = rng.integers(100, 1000, 11)
    plan = wave_plan("classroom", 11, 3, cycles)
    assert plan.durations() == [cycles[:6].max(), cycles[6:].max()]
    assert plan.starts() == [0, cycles[:6].max()]
    text = waves_picture("classroom", 11, 3, cycles).text
    assert f"; {cycles[:6].max() + cycles[6:].max()} cycles in all" in text.splitlines()[1]


def test_many_sms_and_waves_are_cut_to_a_readable_picture():
    text = waves_picture("a6000", blocks_total=5000, blocks_per_sm=1).text
    assert "  9..58  756..4955   all, full\n  59     4956..4999  44 (tail)" in text
    assert "(SMs 0-5, 82-83 of 84, waves 9..58 left out)" in text
    assert shown_sms(wave_plan("h100", 1000, 16)) == [0, 131]


def test_the_tail_is_drawn_apart():
    partial = waves_picture("classroom", blocks_total=10, blocks_per_sm=2)
    full = waves_picture("classroom", blocks_total=8, blocks_per_sm=2)
    assert TAIL.lower() in partial.svg.lower()
    assert "no partial tail" in full.text
    ET.fromstring(partial.svg)
    assert partial.svg == waves_picture("classroom", 10, 2).svg


def test_bad_grids_are_clear_errors():
    cap = lookup_preset("a6000").max_blocks_per_sm
    with pytest.raises(ValueError, match=f"blocks_per_sm from 1 to {cap}.*got 17"):
        wave_plan("a6000", 100, 17)
    with pytest.raises(ValueError, match="at least one block"):
        wave_plan("a6000", 0, 1)
    with pytest.raises(ValueError, match="block_cycles to hold 4 positive numbers.*got 3"):
        wave_plan("classroom", 4, 1, [1, 2, 3])
    with pytest.raises(KeyError, match="no GPU preset named 'titan'"):
        waves_picture("titan", 4, 1)

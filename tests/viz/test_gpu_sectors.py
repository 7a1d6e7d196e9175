"""gpu_access and sectors_picture: one warp's addresses against 32-byte sectors."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tinycomp.targets.gpu_sim.trace import TraceEvent
from tinycomp.viz.gpu_access import lane_ranges, sector_usage, warp_access
from tinycomp.viz.gpu_sectors import sectors_picture

LANES = np.arange(32)


def numpy_sectors(addresses: np.ndarray, element_bytes: int) -> set[int]:
    """Every sector some active lane's bytes fall in, from the byte addresses."""
    active = addresses[addresses >= 0]
    bytes_ = (active[:, None] + np.arange(element_bytes)[None, :]).ravel()
    return set((bytes_ // 32).tolist())


def test_coalesced_load_moves_four_sectors():
    picture = sectors_picture(warp_access(4 * LANES, 4, array="%a", line=12))
    assert picture.text == (
        "global load of %a (memref.load, line 12): 32 active lanes, 4 bytes each\n"
        "4 sectors (ideal 4): 100% efficient; 1 line of 128 B\n"
        "  sector  bytes    line  lanes\n"
        "  0       0..31    0     0-7\n"
        "  1       32..63   0     8-15\n"
        "  2       64..95   0     16-23\n"
        "  3       96..127  0     24-31"
    )


def test_stride_32_load_moves_32_sectors():
    picture = sectors_picture(warp_access(128 * LANES, 4, array="%a"))
    lines = picture.text.splitlines()
    assert lines[1] == "32 sectors (ideal 4): 12.5% efficient; 32 lines of 128 B"
    assert lines[3] == "  0       0..31       0     0"
    assert lines[-1] == "  124     3968..3999  31    31"
    assert len(lines) == 3 + 32


def test_misaligned_load_moves_five_sectors():
    picture = sectors_picture(warp_access(4 * LANES + 4, 4, array="%a"))
    assert picture.text.splitlines()[1:] == [
        "5 sectors (ideal 4): 80% efficient; 2 lines of 128 B",
        "  sector  bytes     line  lanes",
        "  0       0..31     0     0-6",
        "  1       32..63    0     7-14",
        "  2       64..95    0     15-22",
        "  3       96..127   0     23-30",
        "  4       128..159  1     31",
    ]


@pytest.mark.parametrize("seed", range(5))
def test_sectors_match_numpy_on_random_addresses(seed):
    rng = np.random.default_rng(seed)
    element_bytes = int(rng.choice([2, 4, 8, 16]))
    addresses = rng.integers(0, 4096, 32) // element_bytes * element_bytes
    addresses[rng.random(32) < 0.25] = -1  # some lanes inactive
    usage = sector_usage(warp_access(addresses, element_bytes))
    assert set(usage.sectors) == numpy_sectors(addresses, element_bytes)
    for sector, lanes in usage.sectors.items():
        for lane in lanes:
            first, last = addresses[lane], addresses[lane] + element_bytes - 1
            assert first // 32 <= sector <= last // 32
    active = addresses[addresses >= 0]
    distinct = np.unique((active[:, None] + np.arange(element_bytes)).ravel())
    assert usage.ideal == -(-len(distinct) // 32)
    assert usage.lines == tuple(sorted({s // 4 for s in usage.sectors}))


def test_the_picture_is_well_formed_and_deterministic():
    event = warp_access(4 * LANES + 4, 4, array="%a")
    first, second = sectors_picture(event), sectors_picture(event)
    assert first.svg == second.svg and first.text == second.text
    ET.fromstring(first.svg)
    assert first.raster is not None and first.raster.png[:4] == b"\x89PNG"


def test_inactive_lanes_are_left_out():
    addresses = np.where(LANES % 2 == 0, 4 * LANES, -1)
    text = sectors_picture(warp_access(addresses, 4)).text
    assert "16 active lanes" in text and "  0       0..31    0     0, 2, 4, 6" in text


def test_lane_ranges():
    assert lane_ranges([5, 0, 1, 2, 9]) == "0-2, 5, 9"
    assert lane_ranges([]) == ""


def test_bad_accesses_are_clear_errors():
    with pytest.raises(ValueError, match="at most 32 addresses"):
        warp_access(range(33), 4)
    with pytest.raises(ValueError, match="byte addresses >= 0.*got -5 at lane 1"):
        warp_access([0, -5], 4)
    with pytest.raises(ValueError, match="element_bytes to be positive, got 0"):
        warp_access([0], 0)
    with pytest.raises(ValueError, match="space 'global' or 'shared', got 'local'"):
        warp_access([0], 4, space="local")
    arith = TraceEvent(3, "arith.addf", 9, "fp32", np.ones(32, bool))
    with pytest.raises(ValueError, match=r"memory instruction.*arith\.addf \(step 3, line 9\)"):
        sectors_picture(arith)

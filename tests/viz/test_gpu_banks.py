"""bank_usage and banks_picture: one warp's shared access against the 32 banks."""

import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tinycomp.viz.gpu_access import bank_usage, warp_access
from tinycomp.viz.gpu_banks import EXTRA, banks_picture

LANES = np.arange(32)


def shared(addresses, element_bytes=4):
    return warp_access(addresses, element_bytes, space="shared", array="%tile", line=20)


def test_32_way_conflict():
    text = banks_picture(shared(128 * LANES)).text
    lines = text.splitlines()
    assert lines[:5] == [
        "shared load of %tile (memref.load, line 20): 32 active lanes, 4 bytes each",
        "conflict degree 32: 32 wavefronts (ideal 1)",
        "  bank  wavefront  word  lanes",
        "  0     1          0     0",
        "        2          32    1",
    ]
    assert lines[-2:] == ["        32         992   31", "  banks not asked: 1-31"]


def test_broadcast_costs_one_wavefront():
    assert banks_picture(shared(np.zeros(32, int))).text == (
        "shared load of %tile (memref.load, line 20): 32 active lanes, 4 bytes each\n"
        "conflict degree 1: 1 wavefront (ideal 1); 1 broadcast\n"
        "  bank  wavefront  word  lanes\n"
        "  0     1          0     0-31 (broadcast)\n"
        "  banks not asked: 1-31"
    )


def test_2_way_conflict():
    lines = banks_picture(shared(8 * LANES)).text.splitlines()
    assert lines[1] == "conflict degree 2: 2 wavefronts (ideal 1)"
    assert lines[3:7] == [
        "  0     1          0     0",
        "        2          32    16",
        "  2     1          2     1",
        "        2          34    17",
    ]
    assert lines[-1] == "  banks not asked: " + ", ".join(str(b) for b in range(1, 32, 2))


def test_no_conflict_has_every_bank_once():
    usage = bank_usage(shared(4 * LANES))
    assert usage.degree == 1 and list(usage.banks) == list(range(32)) and usage.broadcasts == 0


@pytest.mark.parametrize("seed", range(5))
def test_degree_matches_numpy_on_random_addresses(seed):
    rng = np.random.default_rng(seed)
    words = rng.integers(0, 96, 32)
    words[rng.random(32) < 0.2] = -1
    addresses = np.where(words >= 0, 4 * words, -1)
    usage = bank_usage(shared(addresses))
    distinct = np.unique(words[words >= 0])
    per_bank = np.bincount(distinct % 32, minlength=32)
    assert usage.degree == per_bank.max()
    assert {b: len(w) for b, w in usage.banks.items()} == {
        b: int(n) for b, n in enumerate(per_bank) if n
    }
    for bank, asked in usage.banks.items():
        for word, lanes in asked.items():
            assert word % 32 == bank and sorted(lanes) == np.flatnonzero(words == word).tolist()


def test_wide_elements_span_two_words():
    usage = bank_usage(shared(8 * LANES, element_bytes=8))
    assert usage.degree == 2 and usage.ideal == 2


def test_picture_is_well_formed_deterministic_and_marks_conflicts():
    event = shared(8 * LANES)
    first, second = banks_picture(event), banks_picture(event)
    assert first.svg == second.svg
    ET.fromstring(first.svg)
    no_conflict = banks_picture(shared(4 * LANES))
    assert EXTRA.lower() in first.svg.lower()
    assert EXTRA.lower() not in no_conflict.svg.lower().split('<g id="legend')[0]

"""occupancy_picture and occupancy_explorer: the four limits, drawn and explored."""

import xml.etree.ElementTree as ET

import ipywidgets
import pytest

from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.viz import Explorer

occupancy_module = pytest.importorskip(
    "tinycomp.targets.gpu_sim.occupancy", reason="the occupancy calculator is not there yet"
)
occupancy = occupancy_module.occupancy

from tinycomp.viz.gpu_occupancy_explorer import (  # noqa: E402
    BINDS,
    occupancy_explorer,
    occupancy_picture,
)


def table_widget(explorer: Explorer) -> ipywidgets.HTML:
    (found,) = [w for w in explorer.widget.children if "tinycomp-occupancy-table" in w._dom_classes]
    return found


def test_picture_text_is_the_calculator_table_and_the_slots():
    a100 = lookup_preset("a100")
    occ = occupancy(a100, 256, 64, 48 * 1024)
    picture = occupancy_picture(occ, a100)
    assert picture.text == (
        "a100: 256 threads, 64 registers, 49152 B shared per block\n"
        "limit          blocks/SM\n"
        "warps                  8\n"
        "blocks                32\n"
        "registers              4\n"
        "shared memory          3  <- binds\n"
        "resident: 3 blocks, 24 warps, occupancy 38%, carve-out 164 KB\n"
        "warp slots: 24 of 64 filled by 3 blocks of 8 warps"
    )
    ET.fromstring(picture.svg)
    assert BINDS.lower() in picture.svg.lower()
    assert picture.svg == occupancy_picture(occ, a100).svg


def test_explorer_controls_follow_the_preset():
    explorer = occupancy_explorer("a6000")
    controls = explorer.controls
    assert (controls["threads"].min, controls["threads"].max, controls["threads"].step) == (
        32,
        1024,
        32,
    )
    assert (controls["registers"].min, controls["registers"].max) == (16, 255)
    assert (controls["shared_bytes"].max, controls["shared_bytes"].step) == (101376, 1024)
    assert explorer.label == "6 blocks per SM, 48 of 48 warps: occupancy 100%, bound by warps"


def test_sliders_change_label_table_and_picture_together():
    explorer = occupancy_explorer("a6000", threads=256, registers=32)
    before_text, before_table = explorer.text, table_widget(explorer).value
    explorer.set(shared_bytes=48 * 1024)
    assert explorer.label == (
        "2 blocks per SM, 16 of 48 warps: occupancy 33.3%, bound by shared memory"
    )
    assert "shared memory (binds)" in table_widget(explorer).value
    assert explorer.text != before_text and table_widget(explorer).value != before_table
    assert "shared_bytes=49152" in explorer.text and "warp slots: 16 of 48" in explorer.text
    explorer.set(shared_bytes=0, registers=128)
    assert explorer.label.endswith("bound by registers")


def test_a_block_that_cannot_run_says_why():
    explorer = occupancy_explorer("a6000", threads=1024, registers=72)
    assert explorer.label.startswith("cannot run: registers per block")
    assert table_widget(explorer).value == ""
    explorer.set(registers=32)
    assert explorer.label.endswith("bound by warps")


def test_bad_starting_values_are_clear_errors():
    with pytest.raises(ValueError, match="threads from 32 to 1024 in steps of 32, got 100"):
        occupancy_explorer("a6000", threads=100)
    with pytest.raises(ValueError, match="shared_bytes from 0 to 101376 in steps of 1024, got 5"):
        occupancy_explorer("a6000", shared_bytes=5)
    with pytest.raises(ValueError, match="registers from 16 to 255"):
        occupancy_explorer("a6000", registers=300)

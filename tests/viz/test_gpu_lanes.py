"""warp_lanes_picture: the lanes of one warp over its instructions."""

import xml.etree.ElementTree as ET

import numpy as np

from tinycomp.targets.gpu_sim.trace import TraceEvent, WarpTrace
from tinycomp.viz.gpu_lanes import class_colors, lane_mask, simt_efficiency, warp_lanes_picture

ALL = np.ones(32, bool)
LOW = np.arange(32) < 16


def divergent_if() -> WarpTrace:
    """``if lane < 16: a[i] = x * 2 else: a[i] = exp(x)``, as the simulator would trace it."""
    steps = [
        ("gpu.thread_id", 3, "misc", ALL),
        ("arith.cmpi", 4, "int", ALL),
        ("scf.if", 4, "branch", ALL),
        ("arith.mulf", 5, "fp32", LOW),
        ("math.exp", 7, "sfu", ~LOW),
        ("memref.store", 8, "st_global", ALL),
    ]
    events = [TraceEvent(i, op, line, kind, mask) for i, (op, line, kind, mask) in enumerate(steps)]
    return WarpTrace("branchy", (1, 0, 0), 2, events)


def test_divergent_if_text_twin():
    assert warp_lanes_picture(divergent_if()).text == (
        "warp 2 of block (1, 0, 0) in @branchy: 6 steps, SIMT efficiency 83.3%\n"
        "  step  line  op             lanes 0-31                        active  class\n"
        "  0     3     gpu.thread_id  ################################  32      misc\n"
        "  1     4     arith.cmpi     ################################  32      int\n"
        "  2     4     scf.if         ################################  32      branch\n"
        "  3     5     arith.mulf     ################................  16      fp32\n"
        "  4     7     math.exp       ................################  16      sfu\n"
        "  5     8     memref.store   ################################  32      st_global"
    )


def test_simt_efficiency_matches_numpy_on_random_masks():
    rng = np.random.default_rng(7)
    masks = rng.random((20, 32)) < 0.6
    events = [TraceEvent(i, "arith.addf", i, "fp32", m) for i, m in enumerate(masks)]
    trace = WarpTrace("k", (0, 0, 0), 0, events)
    assert simt_efficiency(trace) == masks.sum() / masks.size
    for event, mask in zip(events, masks, strict=True):
        assert lane_mask(event) == "".join(np.where(mask, "#", "."))


def test_long_traces_are_cut_and_say_so():
    events = [TraceEvent(i, "arith.addf", 2, "fp32", ALL) for i in range(60)]
    picture = warp_lanes_picture(WarpTrace("loop", (0, 0, 0), 0, events), max_steps=10)
    lines = picture.text.splitlines()
    assert len(lines) == 2 + 10 + 1 and lines[-1] == "  ... 50 more steps not shown"


def test_colours_follow_the_instruction_classes():
    colors = class_colors(divergent_if())
    assert list(colors) == ["fp32", "int", "sfu", "st_global", "branch", "misc"]
    assert len(set(colors.values())) == len(colors)
    picture = warp_lanes_picture(divergent_if())
    for color in colors.values():
        assert color.lower() in picture.svg.lower()


def test_picture_is_well_formed_and_deterministic():
    first, second = warp_lanes_picture(divergent_if()), warp_lanes_picture(divergent_if())
    assert first.svg == second.svg
    ET.fromstring(first.svg)


def test_an_empty_trace():
    picture = warp_lanes_picture(WarpTrace("k", (0, 0, 0), 0))
    assert picture.text == (
        "warp 0 of block (0, 0, 0) in @k: 0 steps, SIMT efficiency 100%\n  no instructions"
    )

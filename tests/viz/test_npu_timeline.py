"""npu_timeline_picture and its ASCII strip: an NPU run pipe by pipe, as a Gantt chart and
as text that shows the same overlap."""

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from tinycomp.targets.npu_sim.timeline import Span, Timeline
from tinycomp.viz.npu_strip import STRIP_CHARS, pipe_strip, strip_lines
from tinycomp.viz.npu_timeline import KIND_COLORS, npu_timeline_picture, npu_timeline_text

TWO_CORES = Timeline(
    1.5,
    (
        Span("AIC 0", "MTE2", "copy GM->L1", "dma", 0.0, 600.0),
        Span("AIC 0", "M", "wait_flag MTE1->M #0", "wait", 0.0, 600.0),
        Span("AIV 0.0", "S", "scalar setup", "scalar", 0.0, 40.0),
        Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 300.0),
        Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 0.0, 300.0),
        Span("AIV 0.0", "V", "vexp", "vector", 300.0, 900.0),
        Span("AIC 0", "M", "mmad", "cube", 600.0, 1200.0),
        Span("AIV 0.0", "MTE3", "copy UB->GM", "dma", 900.0, 1200.0),
    ),
)


def many_cores(count: int) -> Timeline:
    """``count`` cores (AIC 0, AIV 0.0, AIV 0.1, AIC 1...), each one vector op long."""
    names = [f"AIC {i // 3}" if i % 3 == 0 else f"AIV {i // 3}.{i % 3 - 1}" for i in range(count)]
    return Timeline(1.0, tuple(Span(name, "V", "vadd", "vector", 0.0, 100.0) for name in names))


def test_two_cores_text_twin():
    assert npu_timeline_picture(TWO_CORES, title="two cores").text == (
        'NPU timeline "two cores": 2 cores, 1200 cycles = 0.8 us at 1.5 GHz\n'
        "AIC 0:\n"
        "  pipe  busy cycles  utilisation  waiting cycles  ops\n"
        "  MTE2  600          50%          0               1\n"
        "  M     600          50%          600             1\n"
        "AIV 0.0:\n"
        "  pipe  busy cycles  utilisation  waiting cycles  ops\n"
        "  S     40           3.33%        0               1\n"
        "  MTE2  300          25%          0               1\n"
        "  V     600          50%          300             1\n"
        "  MTE3  300          25%          0               1\n"
        "pipes over time: 60 columns of 20 cycles"
        " (= dma, # vector, M cube, s scalar or flag, . wait)\n"
        "  AIC 0    MTE2  |==============================                              |\n"
        "           M     |..............................MMMMMMMMMMMMMMMMMMMMMMMMMMMMMM|\n"
        "  AIV 0.0  S     |ss                                                          |\n"
        "           MTE2  |===============                                             |\n"
        "           V     |...............##############################               |\n"
        "           MTE3  |                                             ===============|\n"
        "                 0                                                         1200"
    )
    assert npu_timeline_text(TWO_CORES, title="two cores") == (
        npu_timeline_picture(TWO_CORES, title="two cores").text
    )


def test_a_dma_over_the_first_half_fills_the_first_30_columns():
    copy = Span("AIV 0.0", "MTE2", "copy GM->UB", "dma", 0.0, 500.0)
    row = pipe_strip([copy], cycles=1000.0)
    assert row == "=" * 30 + " " * 30
    wait = Span("AIV 0.0", "V", "wait_flag MTE2->V #0", "wait", 0.0, 500.0)
    vadd = Span("AIV 0.0", "V", "vadd", "vector", 500.0, 750.0)
    assert pipe_strip([wait, vadd], cycles=1000.0) == "." * 30 + "#" * 15 + " " * 15


def test_a_column_shows_what_covered_most_of_it_and_ties_go_to_work():
    def row(start, end, kind="dma"):
        return pipe_strip([Span("AIC 0", "MTE2", "op", kind, start, end)], 100.0, columns=10)

    assert row(0.0, 25.0) == "===       "  # column 2 is half work, half idle: work
    assert row(0.0, 24.0) == "==        "  # 4 of its 10 cycles: idle wins
    assert row(33.0, 37.0) == "          "  # under half a column: not shown
    assert row(0.0, 100.0, "cube") == "M" * 10
    half = [
        Span("AIC 0", "V", "wait", "wait", 0.0, 5.0),
        Span("AIC 0", "V", "vmul", "vector", 5.0, 10.0),
    ]
    assert pipe_strip(half, 100.0, columns=10) == "#         "  # vector over the wait
    assert pipe_strip([], 0.0, columns=4) == "    "


@pytest.mark.parametrize("seed", range(5))
def test_spans_on_column_edges_give_their_characters_exactly(seed):
    rng = np.random.default_rng(seed)
    per_column, columns = int(rng.integers(1, 40)), 60
    edges = np.sort(rng.choice(np.arange(1, columns), size=12, replace=False))
    edges = [0, *edges.tolist(), columns]
    kinds = [*STRIP_CHARS, "idle"]
    expected, spans = "", []
    for low, high in zip(edges, edges[1:], strict=False):
        kind = str(rng.choice(kinds))
        expected += " " * (high - low) if kind == "idle" else STRIP_CHARS[kind] * (high - low)
        if kind != "idle":
            spans.append(Span("AIV 0.1", "V", kind, kind, low * per_column, high * per_column))
    assert pipe_strip(spans, float(columns * per_column), columns) == expected


def test_more_cores_than_max_cores_are_cut_and_the_cut_is_stated():
    timeline = many_cores(6)
    text = npu_timeline_text(timeline)
    lines = text.splitlines()
    assert lines[:2] == [
        "NPU timeline: 6 cores, 100 cycles = 0.1 us at 1 GHz",
        "the first 4 of 6 cores shown",
    ]
    assert re.findall(r"^(A\w+ [\d.]+):$", text, re.M) == ["AIC 0", "AIV 0.0", "AIV 0.1", "AIC 1"]
    assert "AIV 1.0" not in text
    assert "2 of 6 cores shown" in npu_timeline_text(timeline, max_cores=2)
    chosen = npu_timeline_text(timeline, cores=["AIV 1.1", "AIC 0"])
    assert chosen.splitlines()[1] == "2 of 6 cores shown"
    assert re.findall(r"^(A\w+ [\d.]+):$", chosen, re.M) == ["AIV 1.1", "AIC 0"]
    assert "cores shown" not in npu_timeline_text(many_cores(4))
    assert npu_timeline_picture(timeline).svg != npu_timeline_picture(many_cores(4)).svg


def test_the_picture_is_a_deterministic_svg_with_a_png_copy():
    picture = npu_timeline_picture(TWO_CORES)
    assert picture.svg == npu_timeline_picture(TWO_CORES).svg
    assert ET.fromstring(picture.svg).tag == "{http://www.w3.org/2000/svg}svg"
    assert "<dc:date>" not in picture.svg and "<?xml" not in picture.svg
    assert picture.raster is not None and picture.raster.png[:4] == b"\x89PNG"
    assert {"text/plain", "image/svg+xml", "image/png"} <= set(picture._repr_mimebundle_())


def test_each_kind_has_its_colour_and_waits_are_hatched():
    svg = npu_timeline_picture(TWO_CORES).svg.lower()
    for kind in ("dma", "cube", "vector", "scalar"):
        assert f"fill: {KIND_COLORS[kind].lower()}" in svg, kind
    assert f"fill: {KIND_COLORS['flag'].lower()}" not in svg  # no flag ran: none drawn
    assert 'id="h' in svg  # matplotlib writes hatches as patterns
    assert len(set(KIND_COLORS.values())) == len(KIND_COLORS)


def test_random_timelines_give_full_strips_and_the_timelines_sums():
    rng = np.random.default_rng(4)
    spans = []
    for _ in range(60):
        start = float(rng.integers(0, 5000))
        core = str(rng.choice(["AIC 0", "AIV 0.0", "AIV 0.1"]))
        pipe, kind = str(rng.choice(["MTE2", "V", "M"])), str(rng.choice([*STRIP_CHARS]))
        spans.append(Span(core, pipe, "op", kind, start, start + float(rng.integers(1, 700))))
    timeline = Timeline(1.8, tuple(spans))
    rows = strip_lines(timeline, timeline.cores)[1:-1]
    assert len(rows) == sum(len(timeline.pipes(core)) for core in timeline.cores)
    for row in rows:
        inside = row[row.index("|") + 1 : -1]
        assert len(inside) == 60 and set(inside) <= {*STRIP_CHARS.values(), " "}
    text = npu_timeline_text(timeline)
    for core in timeline.cores:
        for pipe in timeline.pipes(core):
            busy = round(timeline.busy_cycles(core, pipe))
            assert re.search(rf"^  {pipe} +{busy} ", text.split(f"{core}:\n")[1], re.M)


def test_an_empty_timeline_and_bad_requests():
    empty = npu_timeline_picture(Timeline(1.0, ()))
    assert empty.text == "NPU timeline: 0 cores, 0 cycles = 0 us at 1 GHz\nnothing ran"
    with pytest.raises(ValueError, match=r"cores that ran something \['AIC 0', 'AIV 0.0'\]"):
        npu_timeline_picture(TWO_CORES, cores=["AIC 7"])
    with pytest.raises(ValueError, match="max_cores of at least 1, got 0"):
        npu_timeline_text(TWO_CORES, max_cores=0)
    odd = Timeline(1.0, (Span("AIC 0", "M", "mmad", "matrix", 0.0, 8.0),))
    with pytest.raises(ValueError, match="expected a kind in .*got 'matrix'"):
        npu_timeline_picture(odd)

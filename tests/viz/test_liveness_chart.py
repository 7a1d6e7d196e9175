"""Memory timelines and the liveness chart: the numbers are the bufferization report's,
the slots are the reuse pass's, and the picture is deterministic."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.compiler import CompileOptions
from tinycomp.frontend import TensorSpec, exp, softmax, tanh, trace
from tinycomp.ir import parse
from tinycomp.passes import PassManager
from tinycomp.passes.bufferize import (
    BufferizationReport,
    LiveInterval,
    OneShotBufferizePass,
    bufferization_passes,
)
from tinycomp.testing import KERNELS
from tinycomp.viz import Picture
from tinycomp.viz.liveness_chart import liveness_chart
from tinycomp.viz.memory_timeline import (
    MemoryTimeline,
    bufferization_timelines,
    memory_timeline,
    slot_timeline,
)

ESCAPING = """
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %a = memref.alloc() : memref<4xf32>
  memref.copy %x, %a : memref<4xf32> to memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  %v = memref.subview %b[1] [2] [1] : memref<4xf32> to memref<2xf32, strided<[1], offset: 1>>
  %c = memref.alloc() : memref<2xf32>
  memref.copy %v, %c : memref<2xf32, strided<[1], offset: 1>> to memref<2xf32>
  return %a : memref<4xf32>
}"""
"""%a escapes (returned): live and held to the end; %b lives until the copy out of its
view; %c is written last (a use too), never read."""

CHAIN = """
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {
  %e0 = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%b : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%c, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.subf %in, %in2 : f32
    linalg.yield %v : f32
  } -> tensor<16xf32>
  return %d : tensor<16xf32>
}"""
"""After bufferization (op indices): 1 alloc a, 2 generic a, 3 alloc b, 4 generic b
(reads a), 5 alloc c, 6 generic c (reads b), 7 generic d (reads c, writes the
out-param), 8 return. 64 bytes each; c takes a's memory."""


def kernel_module(name: str):
    kernel = KERNELS[name]
    return trace(kernel.fn, *kernel.make_inputs(np.random.default_rng(0), "f32"))


def assert_matches_report(timeline: MemoryTimeline, report: BufferizationReport) -> None:
    """Names, live ranges, held ranges and sizes equal what the report measured."""
    live = [LiveInterval(b.name, b.live[0][1], b.live[0][2], b.bytes) for b in timeline.buffers]
    assert live == report.liveness
    assert [(b.name, b.held) for b in timeline.buffers] == [
        (a.name, a.held) for a in report.allocations
    ]


def test_the_chain_by_hand():
    first, reuse, dealloc = bufferization_timelines(parse(CHAIN))
    assert [(b.name, b.live, b.held) for b in first.buffers] == [
        ("%alloc", (("%alloc", 1, 4),), (1, 8)),
        ("%alloc_0", (("%alloc_0", 3, 6),), (3, 8)),
        ("%alloc_1", (("%alloc_1", 5, 7),), (5, 8)),
    ]
    assert first.held_bytes() == [64, 64, 128, 128, 192, 192, 192, 192]
    assert first.live_bytes() == [64, 64, 128, 128, 128, 128, 64, 0]
    assert (first.peak, first.peak_at) == (192, 5)
    # c (5..7) takes a's memory (dead after 4); nothing is freed yet: held to the end.
    assert [(b.name, b.holders, b.held) for b in reuse.buffers] == [
        ("%alloc", ("%alloc", "%alloc_1"), (1, 8)),
        ("%alloc_0", ("%alloc_0",), (3, 8)),
    ]
    assert reuse.peak == 128
    # Freed after the last holder's last use.
    assert [b.held for b in dealloc.buffers] == [(1, 7), (3, 6)]
    assert (dealloc.peak, dealloc.peak_at) == (128, 3)


@pytest.mark.parametrize("name", ["softmax", "layernorm", "attention", "mlp2", "conv2d"])
@pytest.mark.parametrize("reuse", [False, True])
@pytest.mark.parametrize("deallocate", [False, True])
def test_each_timeline_peak_is_the_reports(name, reuse, deallocate):
    module = kernel_module(name)
    timelines = bufferization_timelines(module, reuse=reuse, deallocate=deallocate)
    passes = bufferization_passes(reuse=reuse, deallocate=deallocate)
    PassManager(passes).run(module)
    peaks = passes[0].report.peak_bytes
    assert [t.label for t in timelines] == [p.name for p in passes]
    assert {t.label: t.peak for t in timelines} == {p.name: peaks[p.name] for p in passes}


def tiled(fn, *shapes, tile_sizes):
    """``fn`` traced, fused and tiled by the pipeline: tensor IR with loops and slices."""
    options = CompileOptions(tile_sizes=tile_sizes)
    specs = [TensorSpec(shape) for shape in shapes]
    return tinycomp.compile(fn, *specs, options=options, stop_after="tiled").ir("tiled")


TILED = {
    "softmax, rows of 4": lambda: tiled(softmax, (8, 16), tile_sizes=(4,)),
    "matmul + bias, partial tiles": lambda: tiled(
        lambda a, b, c: a @ b + c, (10, 6), (6, 7), (7,), tile_sizes=(4, 4)
    ),
}


@pytest.mark.parametrize("name", sorted(TILED))
def test_loops_and_dynamic_sizes_agree_with_the_report(name):
    """Allocations inside tile loops, views of them, and dynamically sized tiles."""
    module = TILED[name]()
    for pass_ in bufferization_passes(reuse=False):
        PassManager([pass_]).run(module)
        timeline = memory_timeline(module, pass_.name)
        assert_matches_report(timeline, pass_.report)
        assert timeline.peak == pass_.report.peak_bytes[pass_.name]
        assert timeline.buffers, "the tiled program allocates inside its loops"


def test_escaping_and_viewed_buffers():
    module = parse(ESCAPING)
    timeline = memory_timeline(module, "as written")
    assert [(b.name, b.live[0][1:], b.held, b.bytes) for b in timeline.buffers] == [
        ("%a", (1, 8), (1, 8), 16),
        ("%b", (3, 7), (3, 8), 16),
        ("%c", (6, 7), (6, 8), 8),
    ]
    report = BufferizationReport()
    report.measure(module, "as written")
    assert_matches_report(timeline, report)


@st.composite
def elementwise_programs(draw):
    """A random chain of elementwise ops on 4x4 tensors, each reading any earlier value
    (so values are read long after they are made), and its result."""
    steps = draw(st.lists(st.tuples(st.sampled_from(["add", "mul", "exp", "tanh", "t"]),
                                    st.integers(0, 99), st.integers(0, 99)),
                          min_size=1, max_size=7))  # fmt: skip

    def program(x, y):
        values = [x, y]
        for kind, first, second in steps:
            a, b = values[first % len(values)], values[second % len(values)]
            if kind == "add":
                values.append(a + b)
            elif kind == "mul":
                values.append(a * b)
            elif kind == "exp":
                values.append(exp(a * 0.1))
            elif kind == "tanh":
                values.append(tanh(a))
            else:
                values.append(a.transpose((1, 0)))
        return values[-1] + values[len(values) // 2]

    return program


@settings(max_examples=30, deadline=None)
@given(elementwise_programs(), st.booleans())
def test_random_programs_agree_with_the_report(program, deallocate):
    module = trace(program, TensorSpec((4, 4)), TensorSpec((4, 4)))
    timelines = bufferization_timelines(module, deallocate=deallocate)
    passes = bufferization_passes(deallocate=deallocate)
    PassManager(passes).run(module)
    report = passes[0].report
    assert {t.label: t.peak for t in timelines} == report.peak_bytes
    reuse = timelines[1]
    holders = sorted(name for row in reuse.buffers for name in row.holders)
    assert holders == sorted(b.name for b in timelines[0].buffers)
    for row in reuse.buffers:  # no two holders of one slot are live at once
        ranges = sorted((start, end) for _, start, end in row.live)
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:], strict=False))


def test_slot_timeline_rows_and_peaks():
    buffers = [
        LiveInterval("%a", 1, 3, 64),
        LiveInterval("%b", 2, 5, 32),
        LiveInterval("%c", 4, 6, 64),
    ]
    plan = slot_timeline(buffers, [0, 1, 0], "plan", 7)
    assert [(b.name, b.bytes, b.held) for b in plan.buffers] == [
        ("slot 0", 64, (1, 6)),
        ("slot 1", 32, (2, 5)),
    ]
    assert plan.held_bytes() == [64, 96, 96, 96, 96, 64, 0]
    arena = slot_timeline(buffers, [0, 1, 0], "arena", 7, hold_to_end=True)
    assert arena.held_bytes() == [64, 96, 96, 96, 96, 96, 96]
    with pytest.raises(ValueError, match="one slot per buffer"):
        slot_timeline(buffers, [0, 1], "short", 7)


def test_memory_timeline_needs_one_function():
    module = parse("func.func @f() { return }\nfunc.func @g() { return }")
    with pytest.raises(ValueError, match="expected one function with a body, found @f, @g"):
        memory_timeline(module, "two")
    assert memory_timeline(module, "g only", entry="g").buffers == ()


def chart() -> Picture:
    return liveness_chart(*bufferization_timelines(parse(CHAIN)), title="chain")


def test_the_chart_is_a_deterministic_svg_with_the_table_as_text():
    picture = chart()
    assert picture.svg == chart().svg
    assert ET.fromstring(picture.svg).tag == "{http://www.w3.org/2000/svg}svg"
    assert picture.text.splitlines() == [
        'buffer liveness "chain" (x: op index)',
        "one-shot-bufferize: 3 buffers, peak 192 B at op 5 (live at most 128 B)",
        "  buffer    bytes  live  held  12345678",
        "  %alloc       64  1..4  1..8  ####----",
        "  %alloc_0     64  3..6  3..8  ..####--",
        "  %alloc_1     64  5..7  5..8  ....###-",
        "buffer-reuse: 2 buffers holding 3, peak 128 B at op 3 (live at most 128 B)",
        "  buffer    bytes  live        held  holders           12345678",
        "  %alloc       64  1..4, 5..7  1..8  %alloc, %alloc_1  #######-",
        "  %alloc_0     64  3..6        3..8  %alloc_0          ..####--",
        "buffer-deallocation: 2 buffers holding 3, peak 128 B at op 3 (live at most 128 B)",
        "  buffer    bytes  live        held  holders           12345678",
        "  %alloc       64  1..4, 5..7  1..7  %alloc, %alloc_1  #######.",
        "  %alloc_0     64  3..6        3..6  %alloc_0          ..####..",
        "peak: one-shot-bufferize 192 B, buffer-reuse 128 B, buffer-deallocation 128 B",
    ]


def test_long_functions_leave_out_the_character_rows():
    timeline = bufferization_timelines(trace(softmax, TensorSpec((4, 8))), reuse=False)[0]
    long = MemoryTimeline("long", timeline.buffers, 120)
    text = liveness_chart(long).text
    assert text.splitlines()[2].split() == ["buffer", "bytes", "live", "held"]
    assert "#" not in text


def test_a_timeline_without_buffers_and_no_timeline():
    module = trace(lambda x: x.reshape((16,)) * 3.0, TensorSpec((4, 4)))
    OneShotBufferizePass().run(module)
    picture = liveness_chart(memory_timeline(module, "no temporaries"))
    assert picture.text.splitlines()[1] == "no temporaries: no buffers, peak 0 B"
    with pytest.raises(ValueError, match="at least one MemoryTimeline"):
        liveness_chart()


# -- colours that mean one thing ---------------------------------------------------------------
def test_a_buffer_keeps_its_colour_in_every_panel_and_no_two_share_one():
    import re

    from tinycomp.viz.liveness_chart import buffer_swatches
    from tinycomp.viz.palette import MIN_CONTRAST, contrast_ratio

    mlp = KERNELS["mlp2"]
    inputs = mlp.make_inputs(np.random.default_rng(0), "f32")
    timelines = bufferization_timelines(trace(mlp.fn, *inputs), deallocate=False)
    colors = buffer_swatches(timelines)
    first = [name for row in timelines[0].buffers for name in row.holders]
    assert list(colors) == first and len(first) == 12  # reuse only moves buffers around
    assert len({(s.color, s.hatch) for s in colors.values()}) == 12
    svg = liveness_chart(*timelines).svg
    drawn = re.findall(r"fill: (#[0-9a-f]{6})", svg)
    for name, swatch in colors.items():  # one bar before reuse, one after: the same colour
        assert drawn.count(swatch.color.lower()) == 2, (name, swatch.color)
        assert contrast_ratio(swatch.ink, swatch.color) >= MIN_CONTRAST
    grey = {"#e4e4e4", "#444444", "#ffffff", "#000000", "#555555"}
    assert set(drawn) - grey == {s.color.lower() for s in colors.values()}  # nothing else


def test_more_buffers_than_colours_are_told_apart_by_hatching():
    from tinycomp.viz.liveness_chart import buffer_swatches

    buffers = [LiveInterval(f"%b{i}", i + 1, i + 2, 16) for i in range(15)]
    timeline = slot_timeline(buffers, list(range(15)), "fifteen", 17)
    colors = buffer_swatches([timeline])
    assert len({(s.color, s.hatch) for s in colors.values()}) == 15
    assert [s.hatch for s in colors.values()].count("//") == 3
    assert 'id="h' in liveness_chart(timeline).svg  # matplotlib writes hatches as patterns

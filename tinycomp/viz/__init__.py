"""Pictures for the chapters: graphs, plots, IR listings and interactive explorers.

Everything here returns (or shows) a :class:`Picture`: a deterministic text twin plus
an SVG. A notebook stores it as ``text/plain`` (the twin, which nbval compares),
``image/svg+xml`` (shown once the notebook is trusted) and ``image/png`` (the same
drawing, shown by an untrusted notebook and by static viewers), so stored outputs
compare equal whichever renderer drew them. IR is shown as text (:class:`IRText`):
``text/plain`` is the IR or the diff itself, ``text/html`` the coloured, numbered lines.

- :mod:`~tinycomp.viz.picture`, :mod:`~tinycomp.viz.raster`: the ``Picture`` value, and
  its PNG copy;
- :mod:`~tinycomp.viz.ir_listing`, :mod:`~tinycomp.viz.ir_text`,
  :mod:`~tinycomp.viz.mlir_lexer`: IR shown as text, with MLIR colours and line numbers;
- :mod:`~tinycomp.viz.render`:  DOT to SVG with ``dot``, WebAssembly Graphviz, or text;
- :mod:`~tinycomp.viz.graph`:   a graph builder (nodes, edges, clusters);
- :mod:`~tinycomp.viz.plots`:   matplotlib in one house style;
- :mod:`~tinycomp.viz.widgets`: explorers with sliders that redraw a picture;
- :mod:`~tinycomp.viz.ir_graph`: the def-use graph of a function;
- :mod:`~tinycomp.viz.ir_diff`, :mod:`~tinycomp.viz.alias_names`,
  :mod:`~tinycomp.viz.pass_stepper`: IR diffs (up to alias names), stage by stage;
- :mod:`~tinycomp.viz.indexing_maps`, :mod:`~tinycomp.viz.footprints`,
  :mod:`~tinycomp.viz.indexing_explorer`: what each operand's indexing map touches;
- :mod:`~tinycomp.viz.kernel_graph`, :mod:`~tinycomp.viz.loop_nest`: a traced program's
  kernels, and one linalg op read back as loops;
- :mod:`~tinycomp.viz.cost_table`, :mod:`~tinycomp.viz.program_explorer`: every kernel's
  FLOPs and bytes, and sliders over a catalogue program's sizes (chapter 04);
- :mod:`~tinycomp.viz.fusion_graph`, :mod:`~tinycomp.viz.fusion_explorer`: which ops
  fusion put in which kernel, the bytes it saved, and switches over the fusion rules;
- :mod:`~tinycomp.viz.tile_view`, :mod:`~tinycomp.viz.tiling_pictures`,
  :mod:`~tinycomp.viz.tiled_nest`, :mod:`~tinycomp.viz.tiling_explorer`: one tile's
  slices of every operand (in numbers, then drawn), tiled IR as a loop nest, tile-size
  sliders over the real tiling passes;
- :mod:`~tinycomp.viz.memory_timeline`, :mod:`~tinycomp.viz.liveness_chart`,
  :mod:`~tinycomp.viz.liveness_explorer`: when each buffer is live and held, the peak
  memory before and after reuse, and a step through the program points;
- :mod:`~tinycomp.viz.gpu_access`, :mod:`~tinycomp.viz.gpu_lanes`,
  :mod:`~tinycomp.viz.gpu_sectors`, :mod:`~tinycomp.viz.gpu_banks`,
  :mod:`~tinycomp.viz.gpu_occupancy_explorer`, :mod:`~tinycomp.viz.gpu_waves`,
  :mod:`~tinycomp.viz.gpu_roofline`: the SIMT model (chapter 09): a warp's lanes over its
  instructions, its addresses against sectors and banks, occupancy, waves of blocks, and
  GPU kernels on the roofline;
- :mod:`~tinycomp.viz.npu_timeline`, :mod:`~tinycomp.viz.npu_strip`: an NPU run's
  per-pipe Gantt chart, and its text strip (chapter 11);
- :mod:`~tinycomp.viz.hot_loop_view`, :mod:`~tinycomp.viz.codegen_explorer`: the hot loop
  of LLVM's x86 code with its counted FMAs and loads, over opt levels and vector widths
  (imported from their modules: they need the CPU code generator).

>>> from tinycomp.viz import Graph
>>> g = Graph("pipeline", rankdir="LR")
>>> for stage in ["tensor", "tiled", "loops"]:
...     _ = g.node(stage)
>>> g.edge("tensor", "tiled")
>>> g.edge("tiled", "loops")
>>> print(g.picture(renderer="text").text)
graph "pipeline" (3 nodes, 2 edges)
  nodes:
    tensor
    tiled
    loops
  edges:
    tensor -> tiled
    tiled -> loops
"""

from tinycomp.viz.footprints import tile_footprints
from tinycomp.viz.fusion_explorer import fusion_explorer
from tinycomp.viz.fusion_graph import bytes_moved_chart, fusion_graph
from tinycomp.viz.gpu_access import warp_access
from tinycomp.viz.gpu_banks import banks_picture
from tinycomp.viz.gpu_lanes import warp_lanes_picture
from tinycomp.viz.gpu_occupancy_explorer import occupancy_explorer, occupancy_picture
from tinycomp.viz.gpu_roofline import gpu_roofline_picture
from tinycomp.viz.gpu_sectors import sectors_picture
from tinycomp.viz.gpu_staircase import gpu_staircase_picture
from tinycomp.viz.gpu_waves import waves_picture
from tinycomp.viz.graph import Cluster, Graph, GraphError
from tinycomp.viz.indexing_explorer import footprint_picture, indexing_map_explorer
from tinycomp.viz.indexing_maps import IndexingMapError, indexing_problem
from tinycomp.viz.ir_diff import diff_counts, ir_diff, unified_ir_diff
from tinycomp.viz.ir_graph import def_use_graph
from tinycomp.viz.ir_listing import ir_listing
from tinycomp.viz.ir_text import IRText
from tinycomp.viz.kernel_graph import kernel_graph
from tinycomp.viz.liveness_chart import liveness_chart
from tinycomp.viz.liveness_explorer import liveness_explorer
from tinycomp.viz.loop_nest import loop_nest
from tinycomp.viz.memory_timeline import (
    MemoryTimeline,
    bufferization_timelines,
    memory_timeline,
    slot_timeline,
)
from tinycomp.viz.npu_timeline import npu_timeline_picture, npu_timeline_text
from tinycomp.viz.pass_stepper import pass_stepper
from tinycomp.viz.picture import Picture, tidy_svg
from tinycomp.viz.plots import (
    PALETTE,
    bar_chart,
    figure_to_picture,
    house_style,
    line_chart,
    new_figure,
)
from tinycomp.viz.program_explorer import program_explorer
from tinycomp.viz.render import (
    RendererNotAvailable,
    RenderError,
    available_renderers,
    choose_renderer,
    render_svg,
)
from tinycomp.viz.roofline_plot import roofline_picture
from tinycomp.viz.tiled_nest import tiled_loop_summary
from tinycomp.viz.tiling_explorer import tiling_explorer
from tinycomp.viz.tiling_pictures import tile_view, tiling_picture
from tinycomp.viz.widgets import Explorer, explore

__all__ = [
    "roofline_picture",
    "PALETTE",
    "Cluster",
    "Explorer",
    "Graph",
    "GraphError",
    "IRText",
    "IndexingMapError",
    "MemoryTimeline",
    "Picture",
    "RenderError",
    "RendererNotAvailable",
    "available_renderers",
    "banks_picture",
    "bar_chart",
    "bufferization_timelines",
    "bytes_moved_chart",
    "choose_renderer",
    "def_use_graph",
    "diff_counts",
    "explore",
    "figure_to_picture",
    "footprint_picture",
    "fusion_explorer",
    "fusion_graph",
    "gpu_roofline_picture",
    "gpu_staircase_picture",
    "house_style",
    "indexing_map_explorer",
    "indexing_problem",
    "ir_diff",
    "ir_listing",
    "kernel_graph",
    "line_chart",
    "liveness_chart",
    "liveness_explorer",
    "loop_nest",
    "memory_timeline",
    "new_figure",
    "occupancy_explorer",
    "occupancy_picture",
    "pass_stepper",
    "program_explorer",
    "render_svg",
    "sectors_picture",
    "slot_timeline",
    "tidy_svg",
    "tile_footprints",
    "tile_view",
    "tiled_loop_summary",
    "tiling_explorer",
    "tiling_picture",
    "unified_ir_diff",
    "warp_access",
    "warp_lanes_picture",
    "waves_picture",
    "npu_timeline_picture",
    "npu_timeline_text",
]

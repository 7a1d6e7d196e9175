"""Pictures for the chapters: graphs, plots and interactive explorers.

Everything here returns (or shows) a :class:`Picture`: a deterministic text
twin plus an SVG, displayed in a notebook under exactly two mime keys,
``text/plain`` and ``image/svg+xml``, so stored outputs compare equal
whichever renderer drew them.

- :mod:`~tinycomp.viz.picture`: the ``Picture`` value;
- :mod:`~tinycomp.viz.render`:  DOT to SVG with ``dot``, WebAssembly Graphviz, or text;
- :mod:`~tinycomp.viz.graph`:   a graph builder (nodes, edges, clusters);
- :mod:`~tinycomp.viz.plots`:   matplotlib in one house style;
- :mod:`~tinycomp.viz.widgets`: explorers with sliders that redraw a picture.

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

from tinycomp.viz.graph import Cluster, Graph, GraphError
from tinycomp.viz.picture import Picture, tidy_svg
from tinycomp.viz.plots import (
    PALETTE,
    bar_chart,
    figure_to_picture,
    house_style,
    line_chart,
    new_figure,
)
from tinycomp.viz.render import (
    RendererNotAvailable,
    RenderError,
    available_renderers,
    choose_renderer,
    render_svg,
)
from tinycomp.viz.widgets import Explorer, explore

__all__ = [
    "PALETTE",
    "Cluster",
    "Explorer",
    "Graph",
    "GraphError",
    "Picture",
    "RenderError",
    "RendererNotAvailable",
    "available_renderers",
    "bar_chart",
    "choose_renderer",
    "explore",
    "figure_to_picture",
    "house_style",
    "line_chart",
    "new_figure",
    "render_svg",
    "tidy_svg",
]

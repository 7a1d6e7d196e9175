"""One look for every graph of the course: fonts, node kinds, colours, edges, text size.

Every graph builder (``def_use_graph``, ``kernel_graph``, ``fusion_graph``, the pipeline
map, the graphs drawn in the chapters) draws the same kind of thing the same way:

============================  ==============================================  ==========
what                          drawn as                                        style
============================  ==============================================  ==========
an op                         a box, black border                             ``OP``
a function or block argument  a light blue ellipse                            ``INPUT``
a constant, a ``linalg.fill``  a grey box                                      ``CONSTANT``
a terminator (``return``)     a light vermillion box                          ``TERMINATOR``
a kernel with a reduction     a light yellow box                              ``REDUCTION``
a tensor in memory            a small white ellipse: its shape and bytes      ``TENSOR``
a tensor no longer written    the same ellipse, dashed                        ``FUSED_TENSOR``
a region, a loop, a kernel    a frame, its title beside its first nodes       ``CLUSTER_BORDER``
============================  ==============================================  ==========

Text is black or white by contrast with its fill, in Helvetica (Arial, then any
sans-serif) at 11 pt, 10 pt in tensors and edge labels; edges are dark grey. Edge labels
and cluster titles are drawn as nodes of their own, so Graphviz keeps them apart like
any other node: no two labels can collide (``tinycomp.viz.graph``). A picture is never
shrunk below ``MIN_TEXT_PX`` when a notebook shows it in a cell ``DISPLAY_WIDTH_PX``
wide (``readable_width_pt``); ``tinycomp.viz.svg_checks`` checks all three promises on a
drawn SVG.

>>> INPUT.options()
{'shape': 'ellipse', 'color': '#5b8db8', 'fill': '#dcebf5'}
>>> FUSED_TENSOR.options()["outline"]
'dashed'
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "CLUSTER_BORDER",
    "CONSTANT",
    "DISPLAY_WIDTH_PX",
    "EDGE_COLOR",
    "FONT",
    "FONT_SIZE",
    "FUSED_TENSOR",
    "INPUT",
    "KERNEL_COLORS",
    "MIN_TEXT_PX",
    "NodeStyle",
    "OP",
    "REDUCTION",
    "SMALL_FONT_SIZE",
    "TENSOR",
    "TERMINATOR",
    "readable_width_pt",
]

FONT = "Helvetica,Arial,sans-serif"
FONT_SIZE = 11.0
"""Points: node text."""
SMALL_FONT_SIZE = 10.0
"""Points: tensors and edge labels."""
EDGE_COLOR = "#555555"
CLUSTER_BORDER = "#7f7f7f"

DISPLAY_WIDTH_PX = 900
"""The widest a notebook cell shows a picture without scrolling (JupyterLab's output
area on a laptop screen); a wider picture is scaled down to fit."""
MIN_TEXT_PX = 11.0
"""The smallest text a picture may show at ``DISPLAY_WIDTH_PX``."""


def readable_width_pt(font_size: float = FONT_SIZE) -> float:
    """The widest drawing (in points, as Graphviz measures) whose ``font_size`` text still
    shows at ``MIN_TEXT_PX`` or more when scaled down to ``DISPLAY_WIDTH_PX``.

    A point is 4/3 of a CSS pixel, so 11 pt text is 14.7 px at full size; scaled to fit
    900 px it stays at 11 px up to a drawing 1200 px (900 pt) wide.

    >>> readable_width_pt()
    900.0
    """
    return DISPLAY_WIDTH_PX * (font_size * 4 / 3) / MIN_TEXT_PX * 0.75


@dataclass(frozen=True)
class NodeStyle:
    """How one kind of node is drawn; ``options()`` gives ``Graph.node``'s keywords."""

    shape: str | None = None
    """Graphviz shape (``None``: a box, the default of every graph)."""
    color: str | None = None
    """Border colour (``None``: black)."""
    fill: str | None = None
    """Fill colour (``None``: none); the text on it is black or white by contrast."""
    outline: str | None = None
    """``"dashed"``, ``"dotted"``, ``"bold"`` or ``"rounded"`` (``None``: solid)."""
    small: bool = False
    """Draw the text at ``SMALL_FONT_SIZE``."""

    def options(self) -> dict[str, object]:
        """The keywords of ``Graph.node`` that draw this style (unset ones left out).

        >>> TENSOR.options()
        {'shape': 'ellipse', 'color': '#777777', 'small': True}
        """
        values = {"shape": self.shape, "color": self.color, "fill": self.fill}
        values.update(outline=self.outline, small=self.small or None)
        return {key: value for key, value in values.items() if value is not None}


OP = NodeStyle()
INPUT = NodeStyle("ellipse", color="#5b8db8", fill="#dcebf5")  # light Okabe-Ito blue
CONSTANT = NodeStyle(color="#888888", fill="#eeeeee")  # grey
TERMINATOR = NodeStyle(color="#D55E00", fill="#fbe2d0")  # light Okabe-Ito vermillion
REDUCTION = NodeStyle(fill="#fdf0c8")  # light yellow (Okabe-Ito orange, lightened)
TENSOR = NodeStyle("ellipse", color="#777777", small=True)
FUSED_TENSOR = NodeStyle("ellipse", color="#777777", outline="dashed", small=True)

KERNEL_COLORS = ("#E69F00", "#009E73", "#CC79A7", "#882255", "#44AA99", "#999933", "#332288")
"""Colours for the kernels of a fusion graph: Okabe-Ito and Tol 'muted' hues, leaving
out blue (inputs), grey (constants), vermillion (terminators) and yellow (reductions)."""

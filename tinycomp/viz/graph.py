"""A small graph builder for the chapters: def-use graphs, CFGs, pass pipelines.

Build the graph, then show it; the picture's text twin is a listing of the
graph that reads the same whichever renderer drew the SVG. Every graph is drawn in the
house style of ``tinycomp.viz.graph_style``, with two guarantees:

1. **Labels never collide.** An edge label is drawn as a small node of its own, placed
   on the edge (``a -> "label" -> b``), and a cluster's title as a node in the cluster's
   first rank (beside the nodes nothing in the cluster points to), so Graphviz keeps
   them apart from every other node, label and edge, with the system ``dot`` and the
   WebAssembly build alike. (Graphviz's own edge and cluster labels can overlap each
   other, and edges run through them.)
2. **Text stays readable.** Text on a filled box is black or white by contrast
   (``tinycomp.viz.palette.ink_for``), and a ``size`` attribute that would shrink the
   text below ``graph_style.MIN_TEXT_PX`` in a notebook cell is not applied.

>>> g = Graph("def-use", rankdir="LR")
>>> g.node("x", "%x = arith.constant 2")
'x'
>>> g.node("y", "%y = arith.muli %x, %x", fill="lightblue")
'y'
>>> g.edge("x", "y", "lhs")
>>> g.edge("x", "y", "rhs", style="dashed")
>>> print(g.text)
graph "def-use" (2 nodes, 2 edges)
  nodes:
    x  "%x = arith.constant 2"
    y  "%y = arith.muli %x, %x"  fill=lightblue
  edges:
    x -> y  "lhs"
    x -> y  "rhs"  style=dashed
"""

from __future__ import annotations

import json

from tinycomp.viz import graph_style as style
from tinycomp.viz.graph_dot import Cluster, GraphEdge, GraphNode, to_dot
from tinycomp.viz.picture import Picture
from tinycomp.viz.render import render_svg
from tinycomp.viz.svg_checks import smallest_text_px

__all__ = ["Cluster", "Graph", "GraphError"]

RANKDIRS = ("TB", "LR", "BT", "RL")
EDGE_STYLES = ("solid", "dashed", "dotted", "bold")
SHAPES = (
    "box", "ellipse", "oval", "circle", "doublecircle", "point", "plain", "plaintext",
    "none", "rect", "rectangle", "square", "diamond", "Mdiamond", "Msquare", "trapezium",
    "invtrapezium", "parallelogram", "house", "invhouse", "hexagon", "octagon", "triangle",
    "invtriangle", "cylinder", "note", "tab", "folder", "box3d", "component", "record",
)  # fmt: skip
OUTLINES = ("dashed", "dotted", "bold", "rounded")


class GraphError(ValueError):
    """A graph was built wrongly: a duplicate name, an unknown node or shape."""


def _quote(text: str) -> str:
    """Quote a label for the text twin: one line, newlines shown as ``\\n``."""
    return json.dumps(text, ensure_ascii=False)


def _listing_line(indent: str, head: str, label: str | None, **options: str | None) -> str:
    """One line of the text twin: ``    x -> y  "label"  color=red style=dashed``."""
    parts = [indent + head]
    if label is not None:
        parts.append(_quote(label))
    settings = [f"{key}={value}" for key, value in options.items() if value is not None]
    if settings:
        parts.append(" ".join(settings))
    return "  ".join(parts)


class Graph:
    """A directed graph with labelled nodes and edges, and clusters of nodes.

    ``rankdir`` is the direction edges flow: ``"TB"`` (top to bottom) or
    ``"LR"``, ``"BT"``, ``"RL"``; ``attrs`` are any other Graphviz graph
    attributes (for example ``nodesep="0.2"``). The module docstring has an example.
    """

    def __init__(self, name: str, *, rankdir: str = "TB", **attrs: str) -> None:
        if rankdir not in RANKDIRS:
            raise GraphError(f"expected rankdir to be one of {RANKDIRS}, got {rankdir!r}")
        self.name = name
        self.rankdir = rankdir
        self.attrs = dict(attrs)
        self._nodes: dict[str, GraphNode] = {}
        self._edges: list[GraphEdge] = []
        self._clusters: list[Cluster] = []

    def node(
        self,
        name: str,
        label: str | None = None,
        *,
        shape: str | None = None,
        color: str | None = None,
        fill: str | None = None,
        cluster: Cluster | None = None,
        outline: str | None = None,
        small: bool = False,
    ) -> str:
        """Add a node and return its name; ``label`` defaults to the name.

        ``cluster`` (made by :meth:`cluster`) puts the node inside that box; ``outline``
        draws its border ``"dashed"``, ``"dotted"``, ``"bold"`` or ``"rounded"``;
        ``small`` draws its text at ``graph_style.SMALL_FONT_SIZE``. The styles of
        ``tinycomp.viz.graph_style`` give these keywords: ``**INPUT.options()``.

        >>> Graph("g").node("add", "arith.addf", shape="ellipse", color="red")
        'add'
        """
        if name in self._nodes:
            raise GraphError(f"expected a new node name, got {name!r} a second time")
        if shape is not None and shape not in SHAPES:
            raise GraphError(f"expected shape to be one of {SHAPES}, got {shape!r}")
        if outline is not None and outline not in OUTLINES:
            raise GraphError(f"expected outline to be one of {OUTLINES}, got {outline!r}")
        self._check_cluster(cluster)
        label = name if label is None else label
        self._nodes[name] = GraphNode(name, label, shape, color, fill, cluster, outline, small)
        return name

    def edge(
        self,
        tail: str,
        head: str,
        label: str | None = None,
        *,
        color: str | None = None,
        style: str | None = None,
    ) -> None:
        """Add an edge ``tail -> head`` between two nodes already added.

        >>> g = Graph("g")
        >>> a, b = g.node("a"), g.node("b")
        >>> g.edge(a, b, "uses", style="dotted")
        """
        for end in (tail, head):
            if end not in self._nodes:
                raise GraphError(
                    f"expected edge {tail!r} -> {head!r} to join added nodes, but {end!r} "
                    f"is not one (nodes: {list(self._nodes)})"
                )
        if style is not None and style not in EDGE_STYLES:
            raise GraphError(f"expected edge style to be one of {EDGE_STYLES}, got {style!r}")
        self._edges.append(GraphEdge(tail, head, label, color, style))

    def cluster(
        self,
        name: str,
        label: str | None = None,
        *,
        color: str | None = None,
        parent: Cluster | None = None,
    ) -> Cluster:
        """Make a cluster, a labelled box, inside ``parent`` (or at the top level).

        >>> g = Graph("loop")
        >>> body = g.cluster("body", "scf.for")
        >>> g.node("i", "%i", cluster=body)
        'i'
        """
        if any(cluster.name == name for cluster in self._clusters):
            raise GraphError(f"expected a new cluster name, got {name!r} a second time")
        self._check_cluster(parent)
        cluster = Cluster(name, name if label is None else label, color, parent)
        self._clusters.append(cluster)
        return cluster

    def _check_cluster(self, cluster: Cluster | None) -> None:
        if cluster is not None and cluster not in self._clusters:
            raise GraphError(
                f"expected a cluster made by this graph's cluster(), got {cluster.name!r} "
                f"(clusters here: {[known.name for known in self._clusters]})"
            )

    @property
    def text(self) -> str:
        """The deterministic listing: nodes in insertion order, edges, clusters."""
        counts = [_count(len(self._nodes), "node"), _count(len(self._edges), "edge")]
        if self._clusters:
            counts.append(_count(len(self._clusters), "cluster"))
        lines = [f"graph {_quote(self.name)} ({', '.join(counts)})", "  nodes:"]
        width = max((len(name) for name in self._nodes), default=0)
        for node in self._nodes.values():
            label = None if node.label == node.name else node.label
            name = node.name.ljust(width) if label is not None else node.name
            options = {"shape": node.shape, "color": node.color, "fill": node.fill}
            options["outline"] = node.outline
            lines.append(_listing_line("    ", name, label, **options))
        if self._edges:
            lines.append("  edges:")
        for edge in self._edges:
            head = f"{edge.tail} -> {edge.head}"
            options = {"color": edge.color, "style": edge.style}
            lines.append(_listing_line("    ", head, edge.label, **options))
        if self._clusters:
            lines.append("  clusters:")
            self._list_clusters(lines, parent=None)
        return "\n".join(lines)

    def _list_clusters(self, lines: list[str], parent: Cluster | None) -> None:
        """Append one line per cluster inside ``parent``, each followed by its children."""
        for cluster in self._clusters:
            if cluster.parent is parent:
                members = [node.name for node in self._nodes.values() if node.cluster is cluster]
                listed = ", ".join(members) if members else "(no nodes)"
                indent = "    " + "  " * cluster.depth
                lines.append(f"{indent}{cluster.name}  {_quote(cluster.label)}: {listed}")
                self._list_clusters(lines, parent=cluster)

    @property
    def source(self) -> str:
        """The Graphviz DOT source of the graph.

        Nodes get the DOT ids ``n0, n1, ...`` in insertion order, so any name
        works (in DOT a name such as ``a:b`` would mean port ``b`` of node ``a``).
        The label of edge ``k`` is node ``e<k>``, a plain-text node on the edge, and the
        title of cluster ``k`` node ``c<k>`` (the module docstring says why;
        :mod:`tinycomp.viz.graph_dot` writes it).

        >>> g = Graph("g")
        >>> a, b = g.node("a"), g.node("b")
        >>> g.edge(a, b, "uses")
        >>> [line.strip() for line in g.source.splitlines() if "->" in line]
        ['n0 -> e0 [arrowhead=none]', 'e0 -> n1']
        """
        return to_dot(self, self.attrs).source

    def picture(self, renderer: str = "auto") -> Picture:
        """Render to a :class:`Picture` (see :mod:`tinycomp.viz.render` for ``renderer``).

        A ``size`` attribute that would shrink the text below ``graph_style.MIN_TEXT_PX``
        (as a notebook cell shows the picture) is dropped: the drawing keeps its natural
        size instead.

        >>> print(Graph("empty").picture(renderer="text"))
        graph "empty" (0 nodes, 0 edges)
          nodes:
        """
        twin = self.text
        svg, used = render_svg(self.source, renderer, text=twin)
        if used != "text" and "size" in self.attrs and _smallest_text_px(svg) < style.MIN_TEXT_PX:
            unsized = {key: value for key, value in self.attrs.items() if key != "size"}
            svg, _ = render_svg(to_dot(self, unsized).source, used, text=twin)
        return Picture(text=twin, svg=svg)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return self.picture()._repr_mimebundle_()

    def __repr__(self) -> str:
        return self.text


def _count(number: int, noun: str) -> str:
    """``1 node``, ``2 nodes``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _smallest_text_px(svg: str) -> float:
    try:
        return smallest_text_px(svg)
    except ValueError:  # no text at all
        return style.MIN_TEXT_PX

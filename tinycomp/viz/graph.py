"""A small graph builder for the chapters: def-use graphs, CFGs, pass pipelines.

Build the graph, then show it; the picture's text twin is a listing of the
graph that reads the same whichever renderer drew the SVG.

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
from dataclasses import dataclass

import graphviz

from tinycomp.viz.picture import Picture
from tinycomp.viz.render import render_svg

__all__ = ["Cluster", "Graph", "GraphError"]

RANKDIRS = ("TB", "LR", "BT", "RL")
EDGE_STYLES = ("solid", "dashed", "dotted", "bold")
SHAPES = (
    "box", "ellipse", "oval", "circle", "doublecircle", "point", "plain", "plaintext",
    "none", "rect", "rectangle", "square", "diamond", "Mdiamond", "Msquare", "trapezium",
    "invtrapezium", "parallelogram", "house", "invhouse", "hexagon", "octagon", "triangle",
    "invtriangle", "cylinder", "note", "tab", "folder", "box3d", "component", "record",
)  # fmt: skip
FONT = "Helvetica,Arial,sans-serif"


class GraphError(ValueError):
    """A graph was built wrongly: a duplicate name, an unknown node or shape."""


@dataclass(frozen=True, eq=False)
class Cluster:
    """A labelled box around some nodes of a :class:`Graph`: a region, a loop body, a core.

    Made by :meth:`Graph.cluster`; pass it as ``cluster=`` to :meth:`Graph.node`.
    Two clusters are the same only if they are the same object.
    """

    name: str
    label: str
    color: str | None
    parent: Cluster | None
    """The cluster this one is nested in, or None."""

    @property
    def depth(self) -> int:
        """How many clusters enclose this one."""
        return 0 if self.parent is None else self.parent.depth + 1


@dataclass(frozen=True)
class _Node:
    name: str
    label: str
    shape: str | None
    color: str | None
    fill: str | None
    cluster: Cluster | None


@dataclass(frozen=True)
class _Edge:
    tail: str
    head: str
    label: str | None
    color: str | None
    style: str | None


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
        self._nodes: dict[str, _Node] = {}
        self._edges: list[_Edge] = []
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
    ) -> str:
        """Add a node and return its name; ``label`` defaults to the name.

        ``cluster`` (made by :meth:`cluster`) puts the node inside that box.

        >>> Graph("g").node("add", "arith.addf", shape="ellipse", color="red")
        'add'
        """
        if name in self._nodes:
            raise GraphError(f"expected a new node name, got {name!r} a second time")
        if shape is not None and shape not in SHAPES:
            raise GraphError(f"expected shape to be one of {SHAPES}, got {shape!r}")
        self._check_cluster(cluster)
        label = name if label is None else label
        self._nodes[name] = _Node(name, label, shape, color, fill, cluster)
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
        self._edges.append(_Edge(tail, head, label, color, style))

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
        """
        ids = {name: f"n{index}" for index, name in enumerate(self._nodes)}
        dot = graphviz.Digraph(name=self.name)
        dot.attr(rankdir=self.rankdir, fontname=FONT, fontsize="11", **self.attrs)
        dot.attr("node", shape="box", fontname=FONT, fontsize="11")
        dot.attr("edge", fontname=FONT, fontsize="10")
        self._add_members(dot, ids, cluster=None)
        for edge in self._edges:
            label = None if edge.label is None else graphviz.escape(edge.label)
            attrs = _attrs(color=edge.color, style=edge.style)
            dot.edge(ids[edge.tail], ids[edge.head], label, **attrs)
        return dot.source

    def _add_members(
        self, dot: graphviz.Digraph, ids: dict[str, str], cluster: Cluster | None
    ) -> None:
        """Write the nodes and sub-clusters that sit directly inside ``cluster``."""
        for node in self._nodes.values():
            if node.cluster is cluster:
                style = None if node.fill is None else "filled"
                attrs = _attrs(shape=node.shape, color=node.color, fillcolor=node.fill, style=style)
                dot.node(ids[node.name], graphviz.escape(node.label), **attrs)
        for index, child in enumerate(self._clusters):
            if child.parent is cluster:
                with dot.subgraph(name=f"cluster_{index}") as sub:
                    sub.attr(label=graphviz.escape(child.label), **_attrs(color=child.color))
                    self._add_members(sub, ids, cluster=child)

    def picture(self, renderer: str = "auto") -> Picture:
        """Render to a :class:`Picture` (see :mod:`tinycomp.viz.render` for ``renderer``).

        >>> print(Graph("empty").picture(renderer="text"))
        graph "empty" (0 nodes, 0 edges)
          nodes:
        """
        twin = self.text
        svg, _ = render_svg(self.source, renderer, text=twin)
        return Picture(text=twin, svg=svg)

    def _repr_mimebundle_(self, include: object = None, exclude: object = None) -> dict:
        return self.picture()._repr_mimebundle_()

    def __repr__(self) -> str:
        return self.text


def _count(number: int, noun: str) -> str:
    """``1 node``, ``2 nodes``."""
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _attrs(**values: str | None) -> dict[str, str]:
    """Graphviz attributes for the values that are set."""
    return {key: value for key, value in values.items() if value is not None}

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
from dataclasses import dataclass

import graphviz

from tinycomp.viz import graph_style as style
from tinycomp.viz.palette import ink_for
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
OUTLINES = ("dashed", "dotted", "bold", "rounded")
FONT = style.FONT
LABEL_INK = "#333333"
"""Edge labels: dark grey, readable on white whatever the edge's colour."""


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
    outline: str | None = None
    small: bool = False


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
        self._nodes[name] = _Node(name, label, shape, color, fill, cluster, outline, small)
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
        The label of edge ``k`` is node ``e<k>``, a plain-text node on the edge (the
        module docstring says why), inside the innermost cluster holding both ends.

        >>> g = Graph("g")
        >>> a, b = g.node("a"), g.node("b")
        >>> g.edge(a, b, "uses")
        >>> [line.strip() for line in g.source.splitlines() if "->" in line]
        ['n0 -> e0 [arrowhead=none]', 'e0 -> n1']
        """
        return self._dot(self.attrs).source

    def _dot(self, attrs: dict[str, str]) -> graphviz.Digraph:
        ids = {name: f"n{index}" for index, name in enumerate(self._nodes)}
        dot = graphviz.Digraph(name=self.name)
        font = {"fontname": FONT, "fontsize": _points(style.FONT_SIZE)}
        dot.attr(rankdir=self.rankdir, **font, **attrs)
        dot.attr("node", shape="box", **font)
        dot.attr("edge", color=style.EDGE_COLOR, fontname=FONT)
        labels = self._label_clusters()
        entries = self._cluster_entries(ids, labels)
        self._add_members(dot, ids, labels, entries, cluster=None)
        for index, edge in enumerate(self._edges):
            attrs = _attrs(color=edge.color, style=edge.style)
            if edge.label is None:
                dot.edge(ids[edge.tail], ids[edge.head], **attrs)
                continue
            dot.edge(ids[edge.tail], f"e{index}", arrowhead="none", **attrs)
            dot.edge(f"e{index}", ids[edge.head], **attrs)
        return dot

    def _label_clusters(self) -> dict[int, Cluster | None]:
        """Where each labelled edge's label node goes: the innermost cluster that holds
        both ends of the edge (``None``: the top level)."""
        placed: dict[int, Cluster | None] = {}
        for index, edge in enumerate(self._edges):
            if edge.label is None:
                continue
            outer = _enclosing(self._nodes[edge.tail].cluster)
            inner = self._nodes[edge.head].cluster
            while inner is not None and inner not in outer:
                inner = inner.parent
            placed[index] = inner
        return placed

    def _cluster_entries(
        self, ids: dict[str, str], labels: dict[int, Cluster | None]
    ) -> dict[int, list[str]]:
        """For each cluster (by index), the DOT ids of its direct members that no member
        of the cluster points to: its first rank, where its title node goes."""
        place = {ids[node.name]: node.cluster for node in self._nodes.values()}
        place.update({f"e{index}": cluster for index, cluster in labels.items()})
        arrows = []
        for index, edge in enumerate(self._edges):
            tail, head = ids[edge.tail], ids[edge.head]
            if edge.label is None:
                arrows.append((tail, head))
            else:
                arrows += [(tail, f"e{index}"), (f"e{index}", head)]
        entries = {}
        for number, cluster in enumerate(self._clusters):
            inside = {member for member, home in place.items() if cluster in _enclosing(home)}
            fed = {head for tail, head in arrows if tail in inside}
            entries[number] = [m for m, home in place.items() if home is cluster and m not in fed]
        return entries

    def _add_members(
        self,
        dot: graphviz.Digraph,
        ids: dict[str, str],
        labels: dict[int, Cluster | None],
        entries: dict[int, list[str]],
        cluster: Cluster | None,
    ) -> None:
        """Write the nodes, edge labels and sub-clusters directly inside ``cluster``; a
        sub-cluster's title is a node in the same rank as the sub-cluster's entries."""
        for node in self._nodes.values():
            if node.cluster is cluster:
                dot.node(ids[node.name], graphviz.escape(node.label), **_node_attrs(node))
        for index, place in labels.items():
            if place is cluster:
                label = graphviz.escape(self._edges[index].label or "")
                dot.node(f"e{index}", label, **_LABEL_NODE)
        for index, child in enumerate(self._clusters):
            if child.parent is cluster:
                with dot.subgraph(name=f"cluster_{index}") as sub:
                    sub.attr(label="", **_attrs(color=child.color))  # the title is a node
                    sub.node(f"c{index}", graphviz.escape(child.label), **_TITLE_NODE)
                    self._add_members(sub, ids, labels, entries, cluster=child)
                    with sub.subgraph() as first_rank:
                        first_rank.attr(rank="same")
                        for member in [f"c{index}", *entries[index]]:
                            first_rank.node(member)

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
            svg, _ = render_svg(self._dot(unsized).source, used, text=twin)
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


def _points(size: float) -> str:
    return f"{size:g}"


_LABEL_NODE = {
    "shape": "plaintext",
    "fontsize": _points(style.SMALL_FONT_SIZE),
    "fontcolor": LABEL_INK,
    "margin": "0.04,0.02",
    "width": "0",
    "height": "0",
}
"""An edge label drawn as a node: plain text, small, no border."""


_TITLE_NODE = {"shape": "plaintext", "margin": "0.04,0.02", "width": "0", "height": "0"}
"""A cluster's title drawn as a node: plain text at the top of the cluster."""


def _node_attrs(node: _Node) -> dict[str, str]:
    """The DOT attributes of one node: shape, colours, outline, text colour by contrast."""
    styles = [name for name in (node.outline, None if node.fill is None else "filled") if name]
    attrs = _attrs(shape=node.shape, color=node.color, fillcolor=node.fill)
    if styles:
        attrs["style"] = ",".join(styles)
    if node.fill is not None:
        attrs["fontcolor"] = ink_for(node.fill)
    if node.small:
        attrs["fontsize"] = _points(style.SMALL_FONT_SIZE)
        attrs["margin"] = "0.06,0.03"
    return attrs


def _enclosing(cluster: Cluster | None) -> list[Cluster]:
    """``cluster`` and every cluster around it, innermost first."""
    chain = []
    while cluster is not None:
        chain.append(cluster)
        cluster = cluster.parent
    return chain


def _smallest_text_px(svg: str) -> float:
    from tinycomp.viz.svg_checks import smallest_text_px  # svg_checks reads what we draw

    try:
        return smallest_text_px(svg)
    except ValueError:  # no text at all
        return style.MIN_TEXT_PX

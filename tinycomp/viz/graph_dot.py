"""Writing a :class:`~tinycomp.viz.graph.Graph` as Graphviz DOT, so that no label collides.

Graphviz keeps *nodes* apart: it never draws two nodes on top of each other. Its own
edge labels and cluster labels have no such promise (labels of neighbouring edges run
into each other, and edges run through a cluster's label). So every label is written
as a node:

1. Node ``k`` of the graph is DOT node ``n<k>``, in insertion order (any name works; in
   DOT ``a:b`` would mean port ``b`` of node ``a``).
2. The label of edge ``k`` is a plain-text node ``e<k>`` on the edge: ``tail -> e<k>``
   (no arrowhead) and ``e<k> -> head``, placed in the innermost cluster that holds both
   ends of the edge.
3. The title of cluster ``k`` is a plain-text node ``c<k>`` inside it, in the same rank
   as the cluster's *entries*: its members that no member of the cluster points to.
   It sits beside them, above everything else of the cluster, and edges from outside
   route around it like around any node.
4. Text on a filled node is black or white by contrast (``palette.ink_for``); fonts,
   sizes and the edge colour are ``graph_style``'s.

>>> from tinycomp.viz.graph import Graph
>>> g = Graph("g")
>>> loop = g.cluster("loop", "scf.for")
>>> a, b = g.node("a", cluster=loop), g.node("b", cluster=loop)
>>> g.edge(a, b, "%x")
>>> source = to_dot(g, {}).source
>>> 'c0 [label="scf.for"' in source, 'e0 [label="%x"' in source, "rank=same" in source
(True, True, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import graphviz

from tinycomp.viz import graph_style as style
from tinycomp.viz.palette import ink_for

if TYPE_CHECKING:
    from tinycomp.viz.graph import Graph

__all__ = ["Cluster", "GraphEdge", "GraphNode", "to_dot"]

LABEL_INK = "#333333"
"""Edge labels: dark grey, readable on white whatever the edge's colour."""


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
class GraphNode:
    """One node as :meth:`Graph.node` recorded it."""

    name: str
    label: str
    shape: str | None
    color: str | None
    fill: str | None
    cluster: Cluster | None
    outline: str | None = None
    small: bool = False


@dataclass(frozen=True)
class GraphEdge:
    """One edge as :meth:`Graph.edge` recorded it."""

    tail: str
    head: str
    label: str | None
    color: str | None
    style: str | None


def to_dot(graph: Graph, attrs: dict[str, str]) -> graphviz.Digraph:
    """The DOT of ``graph`` with the graph attributes ``attrs`` (module docstring)."""
    ids = {name: f"n{index}" for index, name in enumerate(graph._nodes)}
    dot = graphviz.Digraph(name=graph.name)
    font = {"fontname": style.FONT, "fontsize": _points(style.FONT_SIZE)}
    dot.attr(rankdir=graph.rankdir, **font, **attrs)
    dot.attr("node", shape="box", **font)
    dot.attr("edge", color=style.EDGE_COLOR, fontname=style.FONT)
    labels = _label_clusters(graph)
    entries = _cluster_entries(graph, ids, labels)
    _add_members(graph, dot, ids, labels, entries, cluster=None)
    for index, edge in enumerate(graph._edges):
        options = _attrs(color=edge.color, style=edge.style)
        if edge.label is None:
            dot.edge(ids[edge.tail], ids[edge.head], **options)
            continue
        dot.edge(ids[edge.tail], f"e{index}", arrowhead="none", **options)
        dot.edge(f"e{index}", ids[edge.head], **options)
    return dot


def _label_clusters(graph: Graph) -> dict[int, Cluster | None]:
    """Where each labelled edge's label node goes: the innermost cluster that holds
    both ends of the edge (``None``: the top level)."""
    placed: dict[int, Cluster | None] = {}
    for index, edge in enumerate(graph._edges):
        if edge.label is None:
            continue
        outer = _enclosing(graph._nodes[edge.tail].cluster)
        inner = graph._nodes[edge.head].cluster
        while inner is not None and inner not in outer:
            inner = inner.parent
        placed[index] = inner
    return placed


def _cluster_entries(
    graph: Graph, ids: dict[str, str], labels: dict[int, Cluster | None]
) -> dict[int, list[str]]:
    """For each cluster (by index), the DOT ids of its direct members that no member
    of the cluster points to: its first rank, where its title node goes."""
    place = {ids[node.name]: node.cluster for node in graph._nodes.values()}
    place.update({f"e{index}": cluster for index, cluster in labels.items()})
    arrows = []
    for index, edge in enumerate(graph._edges):
        tail, head = ids[edge.tail], ids[edge.head]
        if edge.label is None:
            arrows.append((tail, head))
        else:
            arrows += [(tail, f"e{index}"), (f"e{index}", head)]
    entries = {}
    for number, cluster in enumerate(graph._clusters):
        inside = {member for member, home in place.items() if cluster in _enclosing(home)}
        fed = {head for tail, head in arrows if tail in inside}
        entries[number] = [m for m, home in place.items() if home is cluster and m not in fed]
    return entries


def _add_members(
    graph: Graph,
    dot: graphviz.Digraph,
    ids: dict[str, str],
    labels: dict[int, Cluster | None],
    entries: dict[int, list[str]],
    cluster: Cluster | None,
) -> None:
    """Write the nodes, edge labels and sub-clusters directly inside ``cluster``; a
    sub-cluster's title is a node in the same rank as the sub-cluster's entries."""
    for node in graph._nodes.values():
        if node.cluster is cluster:
            dot.node(ids[node.name], graphviz.escape(node.label), **_node_attrs(node))
    for index, place in labels.items():
        if place is cluster:
            label = graphviz.escape(graph._edges[index].label or "")
            dot.node(f"e{index}", label, **_LABEL_NODE)
    for index, child in enumerate(graph._clusters):
        if child.parent is cluster:
            with dot.subgraph(name=f"cluster_{index}") as sub:
                sub.attr(label="", **_attrs(color=child.color))  # the title is a node
                sub.node(f"c{index}", graphviz.escape(child.label), **_TITLE_NODE)
                _add_members(graph, sub, ids, labels, entries, cluster=child)
                with sub.subgraph() as first_rank:
                    first_rank.attr(rank="same")
                    for member in [f"c{index}", *entries[index]]:
                        first_rank.node(member)


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


def _node_attrs(node: GraphNode) -> dict[str, str]:
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

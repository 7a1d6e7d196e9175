"""Graph: the text twin, the DOT source, and pictures from every renderer."""

import xml.etree.ElementTree as ET

import pytest

from tinycomp.viz import Graph, GraphError, Picture, available_renderers

RENDERERS = ("dot", "wasi", "text")

LOOP_TWIN = """\
graph "loop nest" (4 nodes, 3 edges, 2 clusters)
  nodes:
    entry  "func.func @f"  shape=note
    load   "%a = memref.load %A[%i]"
    mul    "%b = arith.mulf %a, %a\\n(fused)"  fill=#E69F00
    ret    "func.return"  shape=ellipse
  edges:
    entry -> load
    load -> mul  "%a"  color=red
    mul -> ret  style=dashed
  clusters:
    outer  "scf.for %i": load
      inner  "scf.for %j": mul"""


def loop_nest() -> Graph:
    g = Graph("loop nest", rankdir="TB")
    g.node("entry", "func.func @f", shape="note")
    outer = g.cluster("outer", "scf.for %i", color="#0072B2")
    g.node("load", "%a = memref.load %A[%i]", cluster=outer)
    inner = g.cluster("inner", "scf.for %j", parent=outer)
    g.node("mul", "%b = arith.mulf %a, %a\n(fused)", fill="#E69F00", cluster=inner)
    g.node("ret", "func.return", shape="ellipse")
    g.edge("entry", "load")
    g.edge("load", "mul", "%a", color="red")
    g.edge("mul", "ret", style="dashed")
    return g


def pictures() -> dict[str, Picture]:
    """One picture of the loop nest per renderer available here."""
    graph = loop_nest()
    return {name: graph.picture(renderer=name) for name in available_renderers()}


def test_text_twin_lists_nodes_edges_and_nested_clusters():
    assert loop_nest().text == LOOP_TWIN
    assert repr(loop_nest()) == LOOP_TWIN


def test_text_twin_is_identical_across_renderers():
    assert {name: pic.text for name, pic in pictures().items()} == {
        name: LOOP_TWIN for name in available_renderers()
    }


def test_mime_keys_are_identical_across_renderers():
    keys = {name: sorted(pic._repr_mimebundle_()) for name, pic in pictures().items()}
    assert len(set(map(tuple, keys.values()))) == 1  # the same keys whichever renderer drew it
    assert {"image/svg+xml", "text/plain"} <= set(keys["text"])


@pytest.mark.parametrize("renderer", RENDERERS)
def test_each_renderer_gives_valid_deterministic_svg(renderer):
    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    first = loop_nest().picture(renderer=renderer)
    second = loop_nest().picture(renderer=renderer)
    assert first.svg == second.svg
    assert ET.fromstring(first.svg).tag == "{http://www.w3.org/2000/svg}svg"


def test_notebook_display_is_the_auto_picture():
    bundle = loop_nest()._repr_mimebundle_()
    assert bundle == loop_nest().picture()._repr_mimebundle_()


def test_dot_source_has_clusters_nested_and_labels_escaped():
    g = Graph("g")
    outer = g.cluster("outer")
    g.cluster("inner", parent=outer)
    g.node("a:b", "<b>not html</b>")
    source = g.source
    assert source.index("subgraph cluster_0") < source.index("subgraph cluster_1")
    assert 'n0 [label="<b>not html</b>"]' in source  # a plain string, not an HTML label
    assert "a:b" not in source  # names never reach DOT, where ':' would mean a port


def test_labels_default_to_names_and_are_not_repeated_in_the_twin():
    g = Graph("g", rankdir="LR")
    g.node("a")
    g.node("bb", "BB")
    assert g.text.splitlines()[2:] == ["    a", '    bb  "BB"']


def test_building_errors_say_what_was_expected():
    g = Graph("g")
    g.node("a")
    with pytest.raises(GraphError, match="expected a new node name, got 'a'"):
        g.node("a")
    with pytest.raises(GraphError, match="expected shape to be one of"):
        g.node("b", shape="blob")
    with pytest.raises(GraphError, match=r"'zz' is not one \(nodes: \['a'\]\)"):
        g.edge("a", "zz")
    with pytest.raises(GraphError, match="expected edge style to be one of"):
        g.edge("a", "a", style="wavy")
    with pytest.raises(GraphError, match="expected rankdir to be one of"):
        Graph("h", rankdir="UP")


def test_clusters_belong_to_one_graph():
    g, other = Graph("g"), Graph("other")
    foreign = other.cluster("body")
    with pytest.raises(GraphError, match="expected a cluster made by this graph"):
        g.node("a", cluster=foreign)
    g.cluster("body")
    with pytest.raises(GraphError, match="expected a new cluster name, got 'body'"):
        g.cluster("body")


def test_with_no_graphviz_at_all_the_picture_shows_the_twin(monkeypatch):
    from tinycomp.viz import render

    monkeypatch.setattr(render, "_has_dot", lambda: False)
    monkeypatch.setattr(render, "_has_wasi", lambda: False)
    pic = loop_nest().picture()
    assert pic.text == LOOP_TWIN
    assert pic.svg == Picture.from_text(LOOP_TWIN).svg

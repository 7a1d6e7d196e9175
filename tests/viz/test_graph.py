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


# -- labels that cannot collide, text that stays readable -----------------------------------------
def fan_in(labelled: int = 4) -> Graph:
    """Several labelled edges into one node: plain DOT edge labels end up side by side."""
    g = Graph("fan in")
    g.node("z", "%z = linalg.generic")
    for number in range(labelled):
        g.node(f"a{number}", f"%a{number} = linalg.fill")
        g.edge(f"a{number}", "z", "512x64xf32, 128 KiB")
    return g


def graphviz_renderers() -> list[str]:
    return [name for name in available_renderers() if name != "text"]


@pytest.mark.parametrize("renderer", ["dot", "wasi"])
def test_plain_dot_edge_labels_collide_so_the_check_can_fail(renderer):
    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    from tinycomp.viz.render import render_svg
    from tinycomp.viz.svg_checks import overlapping_text

    font = 'fontname="Helvetica,Arial,sans-serif"'
    edges = " ".join(f'a{i} -> z [label="512x64xf32, 128 KiB"];' for i in range(4))
    source = (
        f"digraph {{ node [shape=box {font} fontsize=11]; edge [{font} fontsize=10]; {edges} }}"
    )
    svg, _ = render_svg(source, renderer)
    assert overlapping_text(svg), "expected DOT's own edge labels to run into each other"


@pytest.mark.parametrize("renderer", ["dot", "wasi"])
@pytest.mark.parametrize("labelled", [1, 4, 9])
def test_edge_labels_are_nodes_and_never_collide(renderer, labelled):
    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    from tinycomp.viz.svg_checks import overlapping_text, text_boxes

    graph = fan_in(labelled)
    assert graph.source.count("shape=plaintext") == labelled  # one label node per edge
    svg = graph.picture(renderer=renderer).svg
    assert sum(box.text == "512x64xf32, 128 KiB" for box in text_boxes(svg)) == labelled
    assert overlapping_text(svg) == []


def test_a_label_node_sits_in_the_innermost_cluster_holding_both_ends():
    g = Graph("g")
    outer = g.cluster("outer")
    inner = g.cluster("inner", parent=outer)
    g.node("a", cluster=inner)
    g.node("b", cluster=inner)
    g.node("c", cluster=outer)
    g.node("d")
    g.edge("a", "b", "in inner")
    g.edge("a", "c", "in outer")
    g.edge("c", "d", "at the top")
    source = g.source
    inner_body = source[source.index("subgraph cluster_1") :]
    outer_body = source[source.index("subgraph cluster_0") : source.index("subgraph cluster_1")]
    assert 'e0 [label="in inner"' in inner_body
    assert 'e1 [label="in outer"' in outer_body
    top = source[: source.index("subgraph cluster_0")]
    assert 'e2 [label="at the top"' in top


def test_text_on_a_dark_fill_is_white_and_contrasts():
    from tinycomp.viz.svg_checks import node_text_contrast

    g = Graph("fills")
    g.node("dark", "on indigo", fill="#332288")
    g.node("light", "on light blue", fill="lightblue")
    assert 'fontcolor="#ffffff"' in g.source and 'fontcolor="#000000"' in g.source
    for renderer in graphviz_renderers():
        ratios = {text: ratio for text, _, _, ratio in node_text_contrast(g.picture(renderer).svg)}
        assert set(ratios) == {"on indigo", "on light blue"}
        assert min(ratios.values()) >= 4.5, ratios


def wide_graph() -> Graph:
    g = Graph("wide", rankdir="LR")
    for column in range(14):
        g.node(f"n{column}", f"%value{column} = arith.addf")
        if column:
            g.edge(f"n{column - 1}", f"n{column}")
    return g


def test_a_size_that_would_shrink_text_below_the_minimum_is_not_applied():
    from tinycomp.viz.graph_style import MIN_TEXT_PX
    from tinycomp.viz.svg_checks import smallest_text_px

    for renderer in graphviz_renderers():
        shrunk = wide_graph()
        shrunk.attrs["size"] = "6,6"  # Graphviz would scale a 14-box row down to 6 inches
        picture = shrunk.picture(renderer=renderer)
        assert picture.svg == wide_graph().picture(renderer=renderer).svg
        roomy = Graph("small", size="20,20")
        roomy.node("a", "fits")
        assert 'width="' in roomy.picture(renderer=renderer).svg
        assert smallest_text_px(roomy.picture(renderer=renderer).svg) >= MIN_TEXT_PX


def test_outlines_and_small_text():
    g = Graph("g")
    g.node("t", "4x8xf32 · 128 B", shape="ellipse", outline="dashed", small=True, fill="#eeeeee")
    assert 'style="dashed,filled"' in g.source and "fontsize=10" in g.source
    assert (
        g.text.splitlines()[-1]
        == '    t  "4x8xf32 · 128 B"  shape=ellipse fill=#eeeeee outline=dashed'
    )
    with pytest.raises(GraphError, match="expected outline to be one of"):
        g.node("u", outline="wavy")

"""def_use_graph: golden text twins, names that agree with print_ir, any op, any renderer."""

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.ir import parse, print_ir
from tinycomp.viz import GraphError, available_renderers
from tinycomp.viz.ir_graph import def_use_graph

LOOP = """
func.func @sum(%n: index, %x: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = arith.constant 0.0 : f32
  %r = "scf.for"(%c0, %n, %c1, %init) ({
  ^bb0(%i: index, %acc: f32):
    %y = arith.addf %acc, %x : f32
    "scf.yield"(%y) : (f32) -> ()
  }) : (index, index, index, f32) -> f32
  %m = arith.mulf %r, %r : f32
  return %m : f32
}
"""

LOOP_TWIN = """\
graph "def-use of @sum" (12 nodes, 10 edges, 2 clusters)
  nodes:
    op0.arg0  "%n: index"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op0.arg1  "%x: f32"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op1       "%c0 = arith.constant 0 : index"  color=#888888 fill=#eeeeee
    op2       "%c1 = arith.constant 1 : index"  color=#888888 fill=#eeeeee
    op3       "%init = arith.constant 0.000000e+00 : f32"  color=#888888 fill=#eeeeee
    op4       "%r = scf.for"
    op4.arg0  "%i: index"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op4.arg1  "%acc: f32"  shape=ellipse color=#5b8db8 fill=#dcebf5
    op5       "%y = arith.addf"
    op6       "scf.yield"  color=#D55E00 fill=#fbe2d0
    op7       "%m = arith.mulf"
    op8       "func.return"  color=#D55E00 fill=#fbe2d0
  edges:
    op1 -> op4
    op0.arg0 -> op4
    op2 -> op4
    op3 -> op4
    op4.arg1 -> op5
    op0.arg1 -> op5
    op5 -> op6
    op4 -> op7
    op4 -> op7
    op7 -> op8
  clusters:
    op0 body  "func.func @sum": op0.arg0, op0.arg1, op1, op2, op3, op7, op8
      op4 body  "scf.for": op4, op4.arg0, op4.arg1, op5, op6"""


def test_golden_twin_of_a_loop_nest():
    graph = def_use_graph(parse(LOOP), "sum")
    assert graph.text == LOOP_TWIN


def test_text_twin_and_mime_keys_are_the_same_for_every_renderer():
    graph = def_use_graph(parse(LOOP), "sum")
    pictures = {name: graph.picture(renderer=name) for name in available_renderers()}
    assert {pic.text for pic in pictures.values()} == {LOOP_TWIN}
    keys = {tuple(sorted(pic._repr_mimebundle_())) for pic in pictures.values()}
    assert len(keys) == 1 and {"image/svg+xml", "text/plain"} <= set(keys.pop())
    for pic in pictures.values():
        assert pic.svg.startswith("<svg")


def test_unnamed_values_get_the_printers_numbers():
    module = parse(
        "func.func @f(%0: f32, %1: f32) -> f32 {\n"
        "  %2 = arith.mulf %0, %1 : f32\n"
        "  %3 = arith.addf %2, %0 : f32\n"
        "  return %3 : f32\n"
        "}"
    )
    printed = print_ir(module)
    assert "%0 = arith.mulf %arg0, %arg1" in printed
    text = def_use_graph(module).text  # a module with one function draws the function
    assert text.startswith('graph "def-use of @f" (5 nodes, 5 edges, 1 cluster)')
    assert '"%0 = arith.mulf"' in text and '"%1 = arith.addf"' in text
    assert "    op1 -> op2\n" in text and 'op0.arg0  "%arg0: f32"' in text


def test_generic_unregistered_ops_with_several_results_and_regions():
    module = parse(
        '%0:2 = "t.pair"() : () -> (i32, i32)\n'
        '"t.branches"(%0#1) ({\n'
        '  "t.use"(%0#0) : (i32) -> ()\n'
        "}, {\n"
        '  %1 = "t.make"() : () -> i32\n'
        '  "t.end"(%1) : (i32) -> ()\n'
        "}) : (i32) -> ()\n"
    )
    text = def_use_graph(module).text
    assert '"%0:2 = t.pair"' in text
    assert 'op1 -> op2  "%0#1"' in text and 'op1 -> op3  "%0#0"' in text
    assert '"region 0": op3' in text and '"region 1": op4, op5' in text
    # "t.end" closes a block of an unregistered op: drawn as a terminator, like scf.yield
    assert '"t.end"  color=#D55E00' in text
    # the module's body needs no terminator, so its last op is an ordinary op
    assert re.search(r'op2\s+"t.branches"\n', text)


def test_several_blocks_become_clusters_named_as_printed():
    module = parse(
        "func.func @pick(%c: i1, %a: f32, %b: f32) -> f32 {\n"
        "  cf.cond_br %c, ^bb1(%a : f32), ^bb1(%b : f32)\n"
        "^bb1(%v: f32):\n"
        "  return %v : f32\n"
        "}"
    )
    text = def_use_graph(module, "pick").text
    assert text.splitlines()[-3:] == [
        '    op0 body  "func.func @pick": (no nodes)',
        '      op0 ^bb0  "^bb0": op0.bb0.arg0, op0.bb0.arg1, op0.bb0.arg2, op1',
        '      op0 ^bb1  "^bb1": op0.bb1.arg0, op2',
    ]
    assert 'op0.bb1.arg0  "%v: f32"' in text and "^bb1(%v: f32)" in print_ir(module)


def test_drawing_one_loop_shows_values_from_outside_as_plain_text():
    module = parse(LOOP)
    loop = next(op for op in module.walk() if op.name == "scf.for")
    text = def_use_graph(loop).text
    assert text.startswith('graph "def-use of scf.for" (10 nodes, 7 edges, 1 cluster)')
    assert 'op0       "%r = scf.for"' in text  # the loop itself, so its bounds have a target
    assert 'outside0  "%c0"  shape=plaintext' in text
    assert "    outside0 -> op0\n" in text and "    outside4 -> op1\n" in text


def test_an_unknown_function_name_is_reported_with_the_known_ones():
    with pytest.raises(GraphError, match=r"expected a symbol @nope .*\['sum'\]"):
        def_use_graph(parse(LOOP), "nope")


ARITH_OPS = ["arith.addf", "arith.mulf", "arith.subf", "arith.maximumf"]


@st.composite
def straight_line_functions(draw) -> str:
    """A random function of f32 arithmetic; some values named, some numbered."""
    values = ["%a", "%b"]
    lines = ["func.func @f(%a: f32, %b: f32) -> f32 {"]
    for number in range(draw(st.integers(1, 8))):
        op = draw(st.sampled_from(ARITH_OPS))
        lhs, rhs = draw(st.sampled_from(values)), draw(st.sampled_from(values))
        name = draw(st.sampled_from([f"%{number}", f"%t{number}"]))  # numbers get renumbered
        lines.append(f"  {name} = {op} {lhs}, {rhs} : f32")
        values.append(name)
    lines += [f"  return {values[-1]} : f32", "}"]
    return "\n".join(lines)


@settings(max_examples=40, deadline=None)
@given(straight_line_functions())
def test_labels_and_edges_agree_with_the_printed_ir(source):
    module = parse(source)
    printed = print_ir(module)
    graph = def_use_graph(module, "f")
    text = graph.text
    # Node labels name results exactly as the printer does, in the same order.
    printed_results = re.findall(r"^\s+(%\w+) = (arith\.\w+)", printed, flags=re.M)
    drawn_results = re.findall(r'^\s+op\d+\s+"(%\w+) = (arith\.\w+)"', text, flags=re.M)
    assert drawn_results == printed_results
    # One edge per operand, from the node that names the operand as the printer does.
    defined = dict(re.findall(r'^\s+(op[\d.a-z]+)\s+"(%\w+)[ :]', text, flags=re.M))
    edge_labels = [defined[tail] for tail in re.findall(r"^\s+(\S+) -> \S+$", text, flags=re.M)]
    operands = [value for op in module.walk() for value in op.operands]
    assert len(edge_labels) == len(operands)
    printed_operands = []
    for line in printed.splitlines():
        match = re.search(r"(?:arith\.\w+|return) (.*) : f32$", line)
        if match:
            printed_operands += match.group(1).split(", ")
    assert edge_labels == printed_operands


def test_a_module_with_several_functions_draws_one_cluster_each():
    module = parse(
        "func.func @a(%x: f32) -> f32 { return %x : f32 }\n"
        "func.func @b(%x: f32) -> f32 { %0 = arith.negf %x : f32  return %0 : f32 }"
    )
    text = def_use_graph(module).text
    assert text.startswith('graph "def-use of builtin.module" (5 nodes, 3 edges, 2 clusters)')
    assert text.splitlines()[-2:] == [
        '    op1 body  "func.func @a": op1.arg0, op2',
        '    op3 body  "func.func @b": op3.arg0, op4, op5',
    ]
    assert def_use_graph(module, "b").text.splitlines()[-1] == (
        '    op0 body  "func.func @b": op0.arg0, op1, op2'
    )


# -- chapter 03's big graph: readable at a notebook's width, no collisions -----------------------
NORM = """
func.func @norm(%x: f32, %y: f32, %n: index, %buf: memref<4xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %xx = arith.mulf %x, %x : f32
  %yy = arith.mulf %y, %y : f32
  %xx2 = arith.mulf %x, %x : f32
  %unused = arith.addf %xx2, %yy : f32
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %yy) -> (f32) {
    %sq = arith.mulf %x, %x : f32
    %xy_in = arith.mulf %x, %y : f32
    %t = arith.addf %acc, %sq : f32
    %u = arith.addf %t, %xy_in : f32
    %dead = arith.mulf %u, %u : f32
    scf.yield %u : f32
  }
  %xy_out = arith.mulf %x, %y : f32
  memref.store %xy_out, %buf[%c0] : memref<4xf32>
  %r = arith.addf %sum, %xx : f32
  return %r : f32
}"""
"""Chapter 03's CSE/DCE example: 23 nodes, 31 edges, a loop."""


@pytest.mark.parametrize("renderer", ["dot", "wasi"])
@pytest.mark.parametrize("size", [None, "8.5,8.5"])
def test_chapter_03_norm_graph_is_readable_in_a_notebook_cell(renderer, size):
    from tinycomp.viz.graph_style import MIN_TEXT_PX
    from tinycomp.viz.svg_checks import drawing_problems, smallest_text_px

    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    graph = def_use_graph(parse(NORM), rankdir="LR")
    if size is not None:
        graph.attrs["size"] = size  # as the chapter asked: shrinking is refused
    svg = graph.picture(renderer=renderer).svg
    assert smallest_text_px(svg) >= MIN_TEXT_PX
    assert drawing_problems(svg) == []


def test_the_norm_graph_would_shrink_to_unreadable_text_if_size_were_applied():
    from tinycomp.viz.render import render_svg
    from tinycomp.viz.svg_checks import smallest_text_px

    graph = def_use_graph(parse(NORM), rankdir="LR")
    graph.attrs["size"] = "8.5,8.5"
    renderer = available_renderers()[0]
    if renderer == "text":
        pytest.skip("no Graphviz renderer here")
    svg, _ = render_svg(graph.source, renderer)  # the source as Graphviz would take it
    assert smallest_text_px(svg) < 11  # what the reader saw before

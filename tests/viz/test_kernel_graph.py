"""kernel_graph: golden text twins, one node per linalg op, edges that carry every tensor
a kernel reads with its true size, any renderer."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.frontend import TensorSpec, maximum, nn, trace
from tinycomp.ir import parse, parse_type, print_ir
from tinycomp.passes import GeneralizePass
from tinycomp.viz import GraphError, available_renderers
from tinycomp.viz.kernel_graph import (
    iterator_summary,
    kernel_graph,
    payload_summary,
    tensor_bytes,
)

SOFTMAX_TWIN = "\n".join(
    [
        'graph "kernels of @main: 7 linalg ops" (16 nodes, 17 edges)',
        "  nodes:",
        '    arg0     "%x\\n4x8xf32 · 128 B"  shape=ellipse color=#5b8db8 fill=#dcebf5',
        '    op2      "%1 = linalg.fill\\nparallel×2 · 4×1\\npayload: copy"'
        "  color=#888888 fill=#eeeeee",
        '    op2.r0   "4x1xf32 · 16 B"  shape=ellipse color=#777777',
        '    op3      "%max = linalg.generic\\nparallel×1, reduction×1 · 4×8\\npayload: maximumf"'
        "  fill=#fdf0c8",
        '    op3.r0   "4x1xf32 · 16 B"  shape=ellipse color=#777777',
        '    op5      "%sub = linalg.generic\\nparallel×2 · 4×8\\npayload: subf"',
        '    op5.r0   "4x8xf32 · 128 B"  shape=ellipse color=#777777',
        '    op7      "%exp = linalg.generic\\nparallel×2 · 4×8\\npayload: exp"',
        '    op7.r0   "4x8xf32 · 128 B"  shape=ellipse color=#777777',
        '    op10     "%5 = linalg.fill\\nparallel×2 · 4×1\\npayload: copy"'
        "  color=#888888 fill=#eeeeee",
        '    op10.r0  "4x1xf32 · 16 B"  shape=ellipse color=#777777',
        '    op11     "%sum = linalg.generic\\nparallel×1, reduction×1 · 4×8\\npayload: addf"'
        "  fill=#fdf0c8",
        '    op11.r0  "4x1xf32 · 16 B"  shape=ellipse color=#777777',
        '    op13     "%div = linalg.generic\\nparallel×2 · 4×8\\npayload: divf"',
        '    op13.r0  "4x8xf32 · 128 B"  shape=ellipse color=#777777',
        '    return   "func.return"  color=#D55E00 fill=#fbe2d0',
        "  edges:",
        "    op2 -> op2.r0",
        "    arg0 -> op3",
        '    op2.r0 -> op3  "init"  style=dashed',
        "    op3 -> op3.r0",
        "    arg0 -> op5",
        "    op3.r0 -> op5",
        "    op5 -> op5.r0",
        "    op5.r0 -> op7",
        "    op7 -> op7.r0",
        "    op10 -> op10.r0",
        "    op7.r0 -> op11",
        '    op10.r0 -> op11  "init"  style=dashed',
        "    op11 -> op11.r0",
        "    op7.r0 -> op13",
        "    op11.r0 -> op13",
        "    op13 -> op13.r0",
        "    op13.r0 -> return",
        "",
    ]
)

PADDED_RESHAPED = """
func.func @f(%x: tensor<1x4x4x2xf32>, %w: tensor<3x3x2x8xf32>, %o: tensor<1x4x4x8xf32>)
    -> tensor<16x8xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x2xf32> to tensor<1x6x6x2xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
      ins(%p, %w : tensor<1x6x6x2xf32>, tensor<3x3x2x8xf32>) outs(%o : tensor<1x4x4x8xf32>)
      -> tensor<1x4x4x8xf32>
  %r = tensor.collapse_shape %c [[0, 1, 2], [3]] : tensor<1x4x4x8xf32> into tensor<16x8xf32>
  return %r : tensor<16x8xf32>
}

func.func @g(%a: memref<4xf32>, %b: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
                  iterator_types = ["parallel"]}
      ins(%a : memref<4xf32>) outs(%b : memref<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    linalg.yield %n : f32
  }
  return
}"""


def test_golden_twin_of_softmax():
    module = trace(nn.softmax, TensorSpec((4, 8)))
    assert kernel_graph(module).text + "\n" == SOFTMAX_TWIN


def test_text_twin_and_mime_keys_are_the_same_for_every_renderer():
    graph = kernel_graph(trace(nn.softmax, TensorSpec((4, 8))))
    pictures = [graph.picture(renderer=name) for name in available_renderers()]
    assert {pic.text + "\n" for pic in pictures} == {SOFTMAX_TWIN}
    for pic in pictures:
        assert {"image/svg+xml", "text/plain"} <= set(pic._repr_mimebundle_())
        assert pic.svg.startswith("<svg")


def test_pad_conv_and_reshape_and_a_memref_function():
    module = parse(PADDED_RESHAPED)
    text = kernel_graph(module, "f").text
    assert text.startswith('graph "kernels of @f: 1 linalg op" (10 nodes, 9 edges)')
    assert '"%p = tensor.pad\\n(a copy inside a border)"' in text
    assert 'op1.r0  "1x6x6x2xf32 · 288 B"  shape=ellipse' in text  # the padded copy
    assert "parallel×4, reduction×3 · 1×4×4×8×3×3×2\\npayload: mulf, addf" in text
    assert '"%r = tensor.collapse_shape\\n(no data moved)"  outline=rounded' in text
    assert 'arg2    "%o\\n1x4x4x8xf32 · 512 B"' in text
    assert 'arg2 -> op2  "init"  style=dashed' in text
    memref_text = kernel_graph(module, "g").text
    assert 'arg1 -> op0  "outs"  style=dashed' in memref_text  # a memref written in place
    assert "op0.r0" not in memref_text  # no result: nothing new is written
    assert '"linalg.generic\\nparallel×1 · 4\\npayload: negf"' in memref_text


def test_generalized_attention_keeps_its_kernels():
    shapes = [(2, 3, 4), (2, 5, 4), (2, 5, 6)]
    module = trace(nn.attention, *(TensorSpec(s) for s in shapes))
    before = kernel_graph(module).text
    GeneralizePass().run(module)
    after = kernel_graph(module).text
    assert before.splitlines()[0] == after.splitlines()[0]  # 13 linalg ops either way
    assert before.count("linalg.batch_matmul") == 2 and "linalg.batch_matmul" not in after
    assert after.count("parallel×3, reduction×1 · 2×3×5×4") == 1


def test_choosing_a_function():
    module = parse(PADDED_RESHAPED)
    with pytest.raises(GraphError, match=r"a module holding one function, got functions"):
        kernel_graph(module)
    with pytest.raises(GraphError, match=r"a function @h, got functions \['f', 'g'\]"):
        kernel_graph(module, "h")
    function = module.body.first_op
    assert kernel_graph(function).text == kernel_graph(module, "f").text


def test_helpers():
    assert tensor_bytes(parse_type("tensor<2x3xi1>")) == 6
    assert tensor_bytes(parse_type("memref<4xf16>")) == 8
    with pytest.raises(TypeError, match="expected a tensor or memref type, got f32"):
        tensor_bytes(parse_type("f32"))
    with pytest.raises(ValueError, match="static shape"):
        tensor_bytes(parse_type("tensor<?x4xf32>"))
    module = trace(lambda a, b: a @ b, TensorSpec((2, 3)), TensorSpec((3, 4)))
    matmul = next(op for op in module.walk() if op.name == "linalg.matmul")
    assert iterator_summary(matmul) == "parallel×2, reduction×1"
    assert payload_summary(matmul) == "mulf, addf"


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(
    rows=st.integers(1, 5),
    cols=st.integers(1, 5),
    dtype=st.sampled_from([np.float32, np.float16]),
    bias=st.booleans(),
)
def test_every_tensor_a_kernel_reads_is_an_edge_with_its_size(rows, cols, dtype, bias):
    def program(x, b):
        y = nn.gelu(x + b if bias else x)
        return y - y.max(axis=0, keepdims=True)

    module = trace(program, TensorSpec((rows, cols), dtype), TensorSpec((cols,), dtype))
    graph = kernel_graph(module)
    kernels = [op for op in module.walk() if isinstance(op, StructuredOp)]
    assert f": {len(kernels)} linalg ops" in graph.text.splitlines()[0]
    labels = dict(re.findall(r'^    (\S+)\s+"(.*?)"', graph.text, flags=re.M))
    edges = re.findall(r"^    (\S+) -> (\S+)", graph.text, flags=re.M)
    tensors = {node for node in labels if node.startswith("arg") or ".r" in node}
    reads = [(tail, head) for tail, head in edges if tail in tensors]
    expected = 0
    for op in kernels:  # every tensor operand not made by tensor.empty
        for value in op.operands:
            producer = value.defining_op()
            if hasattr(value.type, "shape") and (
                producer is None or producer.name != "tensor.empty"
            ):
                expected += 1
    assert len(reads) == expected + 1  # and the returned value
    written = [tail for tail, head in edges if head in tensors]
    assert sorted(written) == sorted(n.split(".")[0] for n in tensors if ".r" in n)  # one maker
    itemsize = np.dtype(dtype).itemsize
    for node in tensors:
        short_type, size = re.search(r"((?:\d+x)*[a-z]+\d+) · (\d+) B$", labels[node]).groups()
        shape = [int(s) for s in short_type.split("x")[:-1]]
        assert int(size) == math.prod(shape) * itemsize, (node, labels[node])
    assert "%x" in print_ir(module) and re.search(r'arg0\s+"%x\\n', graph.text)


# -- the pictures of chapter 04: no collisions, readable, one style -------------------------------
CHAPTER_04_PROGRAMS = {
    "layer": (lambda x, w, b: maximum(x @ w + b, 0.0), [(4, 8), (8, 16), (16,)]),
    "softmax": (nn.softmax, [(4, 8)]),
    "layernorm": (nn.layernorm, [(4, 8), (8,), (8,)]),
    "attention": (nn.attention, [(2, 3, 4), (2, 5, 4), (2, 5, 6)]),
}


@pytest.mark.parametrize("renderer", ["dot", "wasi"])
@pytest.mark.parametrize("name", sorted(CHAPTER_04_PROGRAMS))
def test_chapter_04_kernel_graphs_have_no_collisions_and_readable_text(name, renderer):
    from tinycomp.viz.svg_checks import drawing_problems, text_boxes

    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    fn, shapes = CHAPTER_04_PROGRAMS[name]
    module = trace(fn, *(TensorSpec(s) for s in shapes))
    svg = kernel_graph(module).picture(renderer=renderer).svg
    assert drawing_problems(svg) == []
    drawn = [box.text for box in text_boxes(svg)]
    tensors = [op.results[0] for op in module.walk() if isinstance(op, StructuredOp)]
    for value in tensors:  # every kernel's result is drawn once, as a tensor of its own
        size = f"{str(value.type)[7:-1]} · {tensor_bytes(value.type)} B"
        assert size in drawn, (size, drawn)


def test_kernel_summary_names_what_a_generic_computes():
    from tinycomp.viz.kernel_graph import kernel_summary

    module = trace(
        nn.attention, TensorSpec((2, 3, 4)), TensorSpec((2, 5, 4)), TensorSpec((2, 5, 6))
    )
    named = [kernel_summary(op) for op in module.walk() if isinstance(op, StructuredOp)]
    assert named[:3] == ["transpose", "fill", "batch_matmul"]
    GeneralizePass().run(module)
    generic = [kernel_summary(op) for op in module.walk() if isinstance(op, StructuredOp)]
    assert generic == [
        "transpose", "fill", "matmul", "mulf", "fill", "max", "subf", "exp",
        "fill", "sum", "divf", "fill", "matmul",
    ]  # fmt: skip
    text = kernel_graph(module).text
    # generalized ops keep their names: the transpose is still %transposed
    assert '"%transposed = linalg.generic (transpose)' in text
    assert text.count(" (matmul)\\n") == 2

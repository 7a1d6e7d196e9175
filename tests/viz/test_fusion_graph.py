"""fusion_graph: the record of who went where agrees with FusionPass; the picture and bytes."""

from __future__ import annotations

import ast
import importlib
import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.frontend import TensorSpec, attention, exp, gelu, layernorm, rmsnorm, softmax, tanh
from tinycomp.interp import interpret
from tinycomp.ir import ir_equal, parse, print_ir
from tinycomp.passes import FusionPass
from tinycomp.perf import program_bytes
from tinycomp.viz import GraphError, Picture
from tinycomp.viz.fusion_graph import (
    bytes_moved_chart,
    format_bytes,
    fuse_and_record,
    fusion_graph,
)

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "05_fusion.ipynb"
MLIR_OPT = shutil.which("mlir-opt-22")


def shared_exp(a):
    e = exp(a)
    return (e + 1.0) * (e * 2.0)


PROGRAMS = {
    "softmax": (softmax, [(4, 8)]),
    "layernorm": (layernorm, [(4, 8), (8,), (8,)]),
    "rmsnorm": (rmsnorm, [(4, 8), (8,)]),
    "attention": (attention, [(4, 8), (6, 8), (6, 8)]),
    "gelu": (gelu, [(3, 8)]),
    "shared_exp": (shared_exp, [(4, 8)]),
}


def program(name: str, stage: str):
    fn, shapes = PROGRAMS[name]
    return tinycomp.compile(fn, *[TensorSpec(s) for s in shapes], stop_after=stage).ir(stage)


def linalg_ops(module) -> list:
    return [op for op in module.walk() if isinstance(op, StructuredOp)]


def check_record_against_fusion_pass(module) -> None:
    """fuse_and_record leaves the IR FusionPass leaves, with the same report and bytes."""
    reference = parse(print_ir(module))
    fusion = FusionPass()
    fusion.run(reference)
    mine = parse(print_ir(module))
    record = fuse_and_record(mine)
    assert ir_equal(mine, reference), f"{print_ir(mine)}\n!=\n{print_ir(reference)}"
    assert list(record.reasons) == fusion.report
    assert (
        sum(record.not_written.values()) == fusion.statistics["intermediate bytes not materialized"]
    )
    # Every original linalg op is in exactly one kernel, and one kernel per op left.
    members = [name for ops in record.kernels.values() for name in ops]
    assert len(members) == len(set(members)) == record.kernels_before == len(linalg_ops(module))
    assert len(record.kernels) == len(linalg_ops(mine))
    assert sum(record.kernel_bytes.values()) == program_bytes(mine)
    # Each fused tensor saves at least its write and its read.
    assert program_bytes(module) - program_bytes(mine) >= 2 * sum(record.not_written.values())


@pytest.mark.parametrize("stage", ["traced", "generalized"])
@pytest.mark.parametrize("name", list(PROGRAMS))
def test_record_agrees_with_fusion_pass(name, stage):
    check_record_against_fusion_pass(program(name, stage))


@settings(max_examples=25, deadline=None)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["add", "mul", "tanh"]), st.integers(0, 9), st.integers(0, 9)),
        min_size=1,
        max_size=6,
    ),
    reduce_rows=st.booleans(),
)
def test_record_agrees_with_fusion_pass_on_random_programs(steps, reduce_rows):
    def random_program(x, b):
        values = [x, b]
        for kind, i, j in steps:
            a, c = values[i % len(values)], values[j % len(values)]
            values.append(a + c if kind == "add" else a * c if kind == "mul" else tanh(a))
        result = values[-1] + x
        return result.sum(axis=1, keepdims=True) * result if reduce_rows else result

    module = tinycomp.trace(random_program, TensorSpec((3, 4)), TensorSpec((4,)))
    check_record_against_fusion_pass(module)
    fused = parse(print_ir(module))
    fuse_and_record(fused)
    rng = np.random.default_rng(7)
    x, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(interpret(fused, x, b), interpret(module, x, b), rtol=1e-6)


def test_softmax_kernels_by_name():
    record = fuse_and_record(program("softmax", "generalized"))
    assert record.kernels == {
        "%1": ("%1",),
        "%max": ("%max",),
        "%exp": ("%sub", "%exp"),
        "%3": ("%3",),
        "%sum": ("%sum",),
        "%div": ("%div",),
    }
    assert record.not_written == {"%sub": 4 * 8 * 4}


def test_a_rule_that_refuses_everything_changes_nothing():
    module = program("layernorm", "generalized")
    copy = parse(print_ir(module))
    record = fuse_and_record(copy, rule=lambda producer, consumer, index: "no")
    assert ir_equal(copy, module)
    assert record.not_written == {}
    assert all(len(ops) == 1 for ops in record.kernels.values())
    assert record.reasons and all(line.endswith(": no") for line in record.reasons)


SOFTMAX_TWIN = """\
fusion graph of @main: 7 kernels -> 6 kernels; bytes moved 1.125 KiB -> 896 B
  kernel  ops         bytes moved
  %1      %1          16 B
  %max    %max        160 B
  %exp    %sub, %exp  272 B
  %3      %3          16 B
  %sum    %sum        160 B
  %div    %div        272 B
  tensor  type             bytes  from  to      memory
  %x      tensor<4x8xf32>  128 B  %x    %max    read
  %1      tensor<4x1xf32>  16 B   %1    %max    written, read back
  %x      tensor<4x8xf32>  128 B  %x    %sub    read
  %max    tensor<4x1xf32>  16 B   %max  %sub    written, read back
  %sub    tensor<4x8xf32>  128 B  %sub  %exp    not written (fused)
  %exp    tensor<4x8xf32>  128 B  %exp  %sum    written, read back
  %3      tensor<4x1xf32>  16 B   %3    %sum    written, read back
  %exp    tensor<4x8xf32>  128 B  %exp  %div    written, read back
  %sum    tensor<4x1xf32>  16 B   %sum  %div    written, read back
  %div    tensor<4x8xf32>  128 B  %div  return  written"""


def test_golden_twin_of_softmax():
    module = program("softmax", "generalized")
    before = print_ir(module)
    picture = fusion_graph(module, renderer="text")
    assert isinstance(picture, Picture)
    assert picture.text == SOFTMAX_TWIN
    assert print_ir(module) == before  # the module itself is not fused
    assert fusion_graph(module, renderer="text").text == picture.text  # deterministic


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot is not installed")
def test_svg_has_a_cluster_per_fused_kernel_and_dashed_fused_tensors():
    module = program("layernorm", "generalized")
    record = fuse_and_record(parse(print_ir(module)))
    picture = fusion_graph(module, renderer="dot")
    fused = [kernel for kernel, ops in record.kernels.items() if len(ops) > 1]
    for kernel in fused:
        assert f"kernel {kernel}" in picture.svg
    dashed_rows = picture.text.count("not written (fused)")
    assert dashed_rows == len(record.not_written) == 7
    assert picture.svg.count('stroke-dasharray="5,2"') == dashed_rows  # one dashed edge each


def test_names_a_function_or_says_which_exist():
    two = parse(
        "func.func @f(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }\n"
        "func.func @g(%x: tensor<2xf32>) -> tensor<2xf32> { return %x : tensor<2xf32> }"
    )
    with pytest.raises(GraphError, match=r"exactly one function.*\['f', 'g'\]"):
        fusion_graph(two)
    with pytest.raises(GraphError, match=r"a function @h"):
        fusion_graph(two, "h")
    assert fusion_graph(two, "g", renderer="text").text.startswith("fusion graph of @g")


DYNAMIC = """
#id = affine_map<(d0) -> (d0)>
func.func @f(%x: tensor<?xf32>, %e: tensor<?xf32>) -> tensor<?xf32> {
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.negf %in : f32
    linalg.yield %0 : f32
  } -> tensor<?xf32>
  return %b : tensor<?xf32>
}"""


def test_dynamic_shapes_fuse_but_have_no_picture():
    module = parse(DYNAMIC)
    with pytest.raises(GraphError, match=r"static shapes: 'linalg.generic' reads .*tensor<\?xf32>"):
        fusion_graph(module)
    record = fuse_and_record(module)
    assert record.kernels == {"%b": ("%a", "%b")} and record.kernel_bytes == {"%b": None}
    assert record.not_written == {"%a": 0}  # as FusionPass's statistic: no static size


def test_format_bytes():
    assert [format_bytes(n) for n in (0, 1023, 1024, 1536, 5 << 20)] == [
        "0 B",
        "1023 B",
        "1 KiB",
        "1.5 KiB",
        "5 MiB",
    ]


def test_bytes_chart_twin_and_deterministic_svg():
    data = {"softmax": {"unfused": 1152, "fused": 896}, "rmsnorm": {"unfused": 1088}}
    chart = bytes_moved_chart(data, title="4x8 f32")
    assert chart.text.splitlines() == [
        "bytes moved (KiB): 4x8 f32",
        "  program  unfused  fused",
        "  softmax  1.125    0.875",
        "  rmsnorm  1.062    0",
    ]
    assert bytes_moved_chart(data, title="4x8 f32").svg == chart.svg
    large = bytes_moved_chart({"softmax": {"unfused": 3 << 20, "fused": 1 << 20}})
    assert large.text.splitlines()[0] == "bytes moved (MiB)"
    assert large.text.splitlines()[2].split() == ["softmax", "3", "1"]


# -- the facts chapter 05 quotes from real MLIR ---------------------------------------------------
def quoted_mlir_counts() -> dict[str, int]:
    """The ``MLIR_OPT_22_KERNELS = {...}`` literal of the chapter's notebook."""
    notebook = json.loads(CHAPTER.read_text(encoding="utf-8"))
    for cell in notebook["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "code" and "MLIR_OPT_22_KERNELS = {" in source:
            literal = source.split("MLIR_OPT_22_KERNELS = ", 1)[1]
            return ast.literal_eval(literal[: literal.index("}") + 1])
    raise AssertionError(f"{CHAPTER.name} has no MLIR_OPT_22_KERNELS cell")


@pytest.mark.mlir
@pytest.mark.skipif(MLIR_OPT is None, reason="mlir-opt-22 is not on PATH (mlir-22-tools)")
def test_chapter_quotes_what_mlir_opt_fuses():
    quoted = quoted_mlir_counts()
    for name, count in quoted.items():
        module = program(name, "generalized")
        result = subprocess.run(
            [MLIR_OPT, "--linalg-fuse-elementwise-ops"],
            input=print_ir(module),
            capture_output=True,
            text=True,
            check=True,
        )
        theirs = result.stdout.count("linalg.generic")
        ours = len(fuse_and_record(parse(print_ir(module))).kernels)
        assert (name, theirs, ours) == (name, count, count)


# -- the pictures of chapter 05: no collisions, readable, a colour per kernel ----------------------
TRANSPOSE_THEN_ADD = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%x: tensor<64x512xf32>, %b: tensor<64xf32>) -> tensor<512x64xf32> {
  %e = tensor.empty() : tensor<512x64xf32>
  %t = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1, d0)>],
      iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<64x512xf32>) outs(%e : tensor<512x64xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<512x64xf32>
  %y = linalg.generic {indexing_maps = [#id, affine_map<(d0, d1) -> (d1)>, #id],
      iterator_types = ["parallel", "parallel"]}
      ins(%t, %b : tensor<512x64xf32>, tensor<64xf32>) outs(%e : tensor<512x64xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %0 = arith.addf %in, %bias : f32
    linalg.yield %0 : f32
  } -> tensor<512x64xf32>
  return %y : tensor<512x64xf32>
}"""
"""Chapter 05's transpose-then-add, at the sizes of its attention (the collision reported)."""

CHAPTER_05 = {
    "softmax": (softmax, [(1024, 1024)]),
    "layernorm": (layernorm, [(1024, 1024), (1024,), (1024,)]),
    "rmsnorm": (rmsnorm, [(1024, 1024), (1024,)]),
    "attention": (attention, [(512, 64), (512, 64), (512, 64)]),
    "shared_exp": (shared_exp, [(1024, 1024)]),
}


def chapter_05_program(name: str):
    if name == "transpose_then_add":
        return parse(TRANSPOSE_THEN_ADD)
    fn, shapes = CHAPTER_05[name]
    specs = [TensorSpec(s) for s in shapes]
    return tinycomp.compile(fn, *specs, stop_after="generalized").ir("generalized")


@pytest.mark.parametrize("renderer", ["dot", "wasi"])
@pytest.mark.parametrize("name", [*sorted(CHAPTER_05), "transpose_then_add"])
def test_chapter_05_fusion_graphs_have_no_collisions_and_readable_text(name, renderer):
    from tinycomp.viz import available_renderers
    from tinycomp.viz.svg_checks import drawing_problems, text_boxes

    if renderer not in available_renderers():
        pytest.skip(f"renderer {renderer!r} is not installed here")
    module = chapter_05_program(name)
    picture = fusion_graph(module, renderer=renderer)
    assert drawing_problems(picture.svg) == []
    drawn = [box.text for box in text_boxes(picture.svg)]
    record = fuse_and_record(parse(print_ir(module)))
    for kernel in record.kernels:
        if len(record.kernels[kernel]) > 1:
            assert any(text.startswith(f"kernel {kernel}: ") for text in drawn), (kernel, drawn)
    assert drawn.count("not written") == len(record.not_written)


def test_the_transpose_example_names_its_kernel_by_what_it_computes():
    picture = fusion_graph(parse(TRANSPOSE_THEN_ADD), renderer="text")
    assert picture.text.splitlines()[1:3] == [
        "  kernel  ops     bytes moved",
        "  %y      %t, %y  256.2 KiB",
    ]
    graph_source = _drawing_source(parse(TRANSPOSE_THEN_ADD))
    assert 'label="kernel %y: addf"' in graph_source
    assert 'label="%t\nexp"' in graph_source  # the transposing exp: its payload
    assert 'label="512x64xf32 · 128 KiB\nnot written"' in graph_source


def _drawing_source(module) -> str:
    fusion_graph_module = importlib.import_module("tinycomp.viz.fusion_graph")
    function = next(op for op in module.walk() if op.name == "func.func")
    copy = function.clone()
    drawing = fusion_graph_module._Drawing(copy)
    record = fuse_and_record(copy)
    return drawing.graph(record, "title").source


def test_every_fused_kernel_has_a_colour_of_its_own():
    # 9 independent exp -> neg chains: 9 fused kernels, more than the 7 kernel colours.
    specs = [TensorSpec((2, 4)) for _ in range(9)]

    def chains(*inputs):
        return tuple(-exp(a) for a in inputs)

    module = tinycomp.compile(chains, *specs, stop_after="generalized").ir("generalized")
    source = _drawing_source(module)
    clusters = source.split("subgraph cluster_")[1:]
    assert len(clusters) == 9
    looks = set()
    for part in clusters:
        border = re.search(r'color="(#[0-9A-Fa-f]{6})"', part).group(1)
        (fill,) = set(re.findall(r'fillcolor="(#[0-9a-f]{6})"', part))  # one fill per kernel
        looks.add((border, fill))
    assert len(looks) == 9  # no two kernels look alike

"""Graded tests for chapter 06, tiling (`ch06_tiling.py`).

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
While the student's code runs, the library's own answers to the task (its slices, its
footprints, its tile pictures) raise `LibraryAnswer` (`own_work`), however they were
imported: the tasks ask for the computation, not for a call.

* Task 06.1 compares the student's tile ranges and operand slices with the library's own
  slices (`tinycomp.passes.tiling.slices.operand_slice`, what `tile_linalg_op` extracts)
  on a matmul, a batched matmul, a strided convolution, stencils, a keep-dims reduction,
  a transpose, a broadcast and a fill, at random tile sizes (dividing or not, larger than
  the loop) and random tiles; then it runs each op tile by tile on the student's slices in
  the interpreter and compares with the untiled op.
* Task 06.2 parses the student's MLIR text, runs it in the interpreter against numpy for
  four combiners and sizes that divide or not, reads its partials tile by tile, and asks
  the library's `why_not_bindable` / `bind_loops` whether its tile loop may be bound.
* Task 06.3 compares footprint bytes with the library's tiling report, checks tile sizes
  against an exact search written here, and compiles and runs the chosen tiles with
  `tinycomp.compile`.
* Task 06.4 checks that every operand's slice fits its buffer and that no tiling with
  fewer tiles does (an exact search over tile counts written here), then compiles and
  runs the chosen tiles and reads the tile count and footprints from the pass's report.

Random cases come from fixed seeds and from hypothesis with `derandomize`, so a grade never
changes from one run to the next.
"""

from __future__ import annotations

import itertools
import math
import shutil
import subprocess
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

import tinycomp
from tinycomp.dialects.func import FuncOp, ReturnOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.tensor.slices import ExtractSliceOp
from tinycomp.frontend import conv2d
from tinycomp.grading.checks import (
    GradingFailure,
    expect_array_close,
    expect_equal,
    expect_instance,
)
from tinycomp.grading.library_calls import library_answers_blocked
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import Builder, ModuleOp, ParseError, VerifyError, parse
from tinycomp.ir.attributes import TypeAttr
from tinycomp.ir.block import Block
from tinycomp.ir.naming import SSANames
from tinycomp.ir.printer import naming_root
from tinycomp.ir.type_helpers import bitwidth, element_type
from tinycomp.ir.types import FunctionType, RankedTensorType, ShapedType
from tinycomp.passes.tiling import bind_loops
from tinycomp.passes.tiling.binding import why_not_bindable
from tinycomp.passes.tiling.index_values import IndexBuilder
from tinycomp.passes.tiling.slices import LoopTile, footprint_shape, operand_slice
from tinycomp.passes.tiling.tile_op import new_result
from tinycomp.viz.indexing_maps import rename_dims
from tinycomp.viz.tiling_pictures import tile_view

# -- your own work: the library's answers are out of reach while your code runs ----------
own_work = library_answers_blocked  # (impl, what, answers): the library's answers blocked


ANSWERS = {
    "06.1": {
        "tinycomp.passes.tiling.slices:operand_slice": "the slices tile_linalg_op cuts",
        "tinycomp.viz.tile_view:tile_view": "the numbers of the chapter's tile pictures",
    },
    "06.2": {},
    "06.3": {
        "tinycomp.passes.tiling.slices:footprint_shape": "the footprints the tiling report prints",
        "tinycomp.viz.tile_view:tile_view": "the numbers of the chapter's tile pictures",
    },
}
"""Per task, the library functions that compute its answer: blocked while the student's
code runs (the building blocks, such as ``AffineMap.tile_footprint``, stay usable)."""
ANSWERS["06.4"] = ANSWERS["06.3"]


def ask(impl, task: str, what: str, function: str, *args):
    """``impl.function(*args)``, with the library's answers to ``task`` blocked."""
    with own_work(impl, what, ANSWERS[task]):
        return getattr(impl, function)(*args)


def student_slices(impl, op: StructuredOp, tile_sizes, tile):
    what = f"tile_slices({describe(op)}, {list(tile_sizes)}, {list(tile)})"
    return ask(impl, "06.1", what, "tile_slices", op, list(tile_sizes), list(tile))


task06_1 = pytest.mark.task06_1
task06_2 = pytest.mark.task06_2
task06_3 = pytest.mark.task06_3
task06_4 = pytest.mark.task06_4

GRADED = settings(
    max_examples=25,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)
"""Random cases: the same ones on every run, no time limit, reported as drawn."""


def generic_text(name: str, maps: list[str], kinds: list[str], ins, outs, body: str) -> str:
    """A one-op function: ``%r = linalg.generic`` over ``ins`` into ``outs``."""
    arguments = ", ".join(f"%{n}: {t}" for n, t in [*ins, *outs])
    in_list = ", ".join(f"%{n}" for n, _ in ins)
    in_types = ", ".join(t for _, t in ins)
    out_name, out_type = outs[0]
    block_arguments = ", ".join(f"%a{i}: f32" for i in range(len(ins) + 1))
    return f"""func.func @{name}({arguments}) -> {out_type} {{
  %r = linalg.generic {{indexing_maps = [{", ".join(f"affine_map<{m}>" for m in maps)}],
       iterator_types = [{", ".join(f'"{k}"' for k in kinds)}]}}
      ins({in_list} : {in_types}) outs(%{out_name} : {out_type}) {{
  ^bb0({block_arguments}):
{body}
  }} -> {out_type}
  return %r : {out_type}
}}"""


def matmul_text(m: int, k: int, n: int, lhs="f32", rhs="f32", out="f32", batch=None) -> str:
    prefix = "" if batch is None else f"{batch}x"
    op = "linalg.matmul" if batch is None else "linalg.batch_matmul"
    a, b, c = (f"tensor<{prefix}{s}x{t}>" for s, t in [(f"{m}x{k}", lhs), (f"{k}x{n}", rhs),
                                                        (f"{m}x{n}", out)])  # fmt: skip
    return f"""func.func @main(%a: {a}, %b: {b}, %c: {c}) -> {c} {{
  %mm = {op} ins(%a, %b : {a}, {b}) outs(%c : {c}) -> {c}
  return %mm : {c}
}}"""


CONV = """func.func @main(%x: tensor<1x10x11x3xf32>, %w: tensor<3x3x3x4xf32>,
                     %init: tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32> {
  %y = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : tensor<1x10x11x3xf32>, tensor<3x3x3x4xf32>)
      outs(%init : tensor<1x4x5x4xf32>) -> tensor<1x4x5x4xf32>
  return %y : tensor<1x4x5x4xf32>
}"""
"""Stride 2: the input has one row more than the 9 the windows reach."""

MULTIPLY_ADD = "    %p = arith.mulf %a0, %a1 : f32\n    %s = arith.addf %a2, %p : f32\n"
MULTIPLY_ADD += "    linalg.yield %s : f32"

OPS = {
    "matmul": matmul_text(10, 8, 16),
    "batch_matmul": matmul_text(5, 4, 6, batch=2),
    "conv_stride2": CONV,
    "stencil": generic_text(
        "main",
        ["(d0, d1) -> (d0 + d1)", "(d0, d1) -> (d1)", "(d0, d1) -> (d0)"],
        ["parallel", "reduction"],
        [("x", "tensor<12xf32>"), ("w", "tensor<3xf32>")],
        [("y", "tensor<10xf32>")],
        MULTIPLY_ADD,
    ),
    "shifted": generic_text(
        "main",
        ["(d0, d1) -> (d0 + 1, d1 * 2)", "(d0, d1) -> (d0, d1)"],
        ["parallel", "parallel"],
        [("x", "tensor<8x11xf32>")],
        [("y", "tensor<7x6xf32>")],
        "    %e = math.exp %a0 : f32\n    linalg.yield %e : f32",
    ),
    "row_max": generic_text(
        "main",
        ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d0, 0)"],
        ["parallel", "reduction"],
        [("x", "tensor<6x10xf32>")],
        [("m", "tensor<6x1xf32>")],
        "    %e = arith.maximumf %a0, %a1 : f32\n    linalg.yield %e : f32",
    ),
    "transpose_add": generic_text(
        "main",
        ["(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1, d0)", "(d0, d1) -> (d0, d1)"],
        ["parallel", "parallel"],
        [("x", "tensor<6x9xf32>"), ("t", "tensor<9x6xf32>")],
        [("y", "tensor<6x9xf32>")],
        "    %e = arith.addf %a0, %a1 : f32\n    linalg.yield %e : f32",
    ),
    "broadcast": generic_text(
        "main",
        ["(d0, d1) -> (d1)", "(d0, d1) -> (d0, d1)"],
        ["parallel", "parallel"],
        [("b", "tensor<9xf32>")],
        [("y", "tensor<5x9xf32>")],
        "    linalg.yield %a0 : f32",
    ),
    "fill": """func.func @main(%v: f32, %e: tensor<7x5xf32>) -> tensor<7x5xf32> {
  %f = linalg.fill ins(%v : f32) outs(%e : tensor<7x5xf32>) -> tensor<7x5xf32>
  return %f : tensor<7x5xf32>
}""",
}
"""One linalg op each (the last op of ``@main``), with static shapes."""


def the_op(text: str) -> StructuredOp:
    """The (last) linalg op of a fresh module parsed from ``text``."""
    return [op for op in parse(text).walk() if isinstance(op, StructuredOp)][-1]


def describe(op: StructuredOp) -> str:
    """``%mm = linalg.matmul``, named as the printed IR names it."""
    names = SSANames(naming_root(op), use_asm_names=True)
    return f"{names.value_name(op.results[0])} = {op.name}"


def operand_names(op: StructuredOp) -> list[str]:
    names = SSANames(naming_root(op), use_asm_names=True)
    return [names.value_name(v) for v in op.operands]


# == Task 06.1: tile ranges and operand slices ============================================
def reference_ranges(loop_sizes, tile_sizes, tile) -> list[tuple[int, int]]:
    """Each loop's (offset, size) in the tile: what the loop nest's ``affine.min`` gives."""
    return [
        (0, n) if t == 0 else (c * t, min(t, n - c * t))
        for n, t, c in zip(loop_sizes, tile_sizes, tile, strict=True)
    ]


def library_slices(op: StructuredOp, tile_sizes, tile) -> list[tuple[tuple, tuple]]:
    """The library's slices for one tile: ``operand_slice`` on integer offsets/sizes."""
    loop_tiles = [
        LoopTile(offset, size, t > 0)
        for (offset, size), t in zip(
            reference_ranges(op.static_loop_sizes(), tile_sizes, tile), tile_sizes, strict=True
        )
    ]
    maker = IndexBuilder(Builder.at_end(Block()), Builder.at_end(Block()))  # ints only
    slices = []
    for operand, indexing_map in zip(op.operands, op.indexing_maps(), strict=True):
        if not isinstance(operand.type, ShapedType):
            slices.append(((), ()))
            continue
        window = operand_slice(operand, indexing_map, loop_tiles, maker)
        slices.append((tuple(window.offsets), tuple(window.sizes)))
    return slices


def tile_context(op: StructuredOp, tile_sizes, tile) -> str:
    """How feedback names a tile: the call, the loops, where this tile runs."""
    view = tile_view(op, tile_sizes, tile)
    loops = ", ".join(view.loop_names)
    sizes = ", ".join(str(n) for n in view.loop_sizes)
    return (
        f"tile_slices({describe(op)}, tile_sizes={list(tile_sizes)}, tile={list(tile)}) "
        f"(loops ({loops}) = ({sizes}); this tile runs {view.describe_loops()})"
    )


def expect_slices(op: StructuredOp, tile_sizes, tile, found) -> None:
    """The student's slices against the library's, with the operand and dimension at fault."""
    what = tile_context(op, tile_sizes, tile)
    expected = library_slices(op, tile_sizes, tile)
    expect_instance(what, found, (list, tuple), "a list with one (offsets, sizes) per operand")
    if len(found) != len(expected):
        raise GradingFailure(
            f"{what}: expected {len(expected)} slices (one per operand, ins then outs), "
            f"found {len(found)}"
        )
    names = operand_names(op)
    maps = op.indexing_maps()
    loop_names = [op.loop_name(p) for p in range(op.num_loops)]
    for number, (window, (offsets, sizes)) in enumerate(zip(found, expected, strict=True)):
        where = f"operand {number} {names[number]} (map {_rename(maps[number], loop_names)})"
        try:
            got_offsets, got_sizes = (tuple(int(v) for v in part) for part in window)
        except (TypeError, ValueError):
            raise GradingFailure(
                f"{what}: {where}: expected a pair (offsets, sizes) of integer tuples, "
                f"found {window!r}"
            ) from None
        if len(got_offsets) != len(offsets) or len(got_sizes) != len(sizes):
            raise GradingFailure(
                f"{what}: {where}: expected {len(offsets)} offsets and sizes (the operand's "
                f"rank), found {list(got_offsets)} and {list(got_sizes)}"
            )
        for axis, pair in enumerate(zip(offsets, sizes, got_offsets, got_sizes, strict=True)):
            offset, size, got_offset, got_size = pair
            if (offset, size) != (got_offset, got_size):
                expr = maps[number].results[axis]
                hint = slice_hint(op, tile_sizes, tile, expr, (offset, size), pair[2:])
                raise GradingFailure(
                    f"{what}: {where}, dimension {axis} ({_rename(expr, loop_names)}): "
                    f"expected offset {offset} and size {size}, found offset {got_offset} "
                    f"and size {got_size}\nhint: {hint}"
                )


def slice_hint(op, tile_sizes, tile, expr, expected, found) -> str:
    """What the contract says about this dimension, in terms of the wrong numbers."""
    loop_names = [op.loop_name(p) for p in range(op.num_loops)]
    tiled = [t > 0 for t in tile_sizes]
    shown = _rename(expr, loop_names)
    if not any(tiled[d] for d in expr.used_dims()):
        return (
            f"no tiled loop indexes this dimension ({shown}): the contract takes it whole, "
            "from 0, whatever part of it the op reads"
        )
    ranges = reference_ranges(op.static_loop_sizes(), tile_sizes, tile)
    first = [offset for offset, _ in ranges]
    last = [offset + size - 1 for offset, size in ranges]
    low, high = expr.evaluate(first), expr.evaluate(last)
    constant = expr.evaluate([0] * len(ranges))
    if found[0] != expected[0] and constant:
        return (
            f"the tiled op still reads this slice through {shown}, constant included: at "
            f"its first iteration it reads element {constant} of the slice, which must be "
            f"element {low} of the operand"
        )
    if found[1] != expected[1]:
        return (
            f"this tile reads elements {low}..{high} here; the tiled op counts from the "
            "slice's start and reads through the same map, so the slice must reach the "
            "element it reads at the tile's last iteration"
        )
    return f"this tile reads elements {low}..{high} of this dimension"


def _rename(map_or_expr, loop_names) -> str:
    """A map or expression with the op's loop names: ``(m, n, k) -> (m, k)``."""
    return rename_dims(str(map_or_expr), loop_names)


@task06_1
@pytest.mark.parametrize(
    "loop_sizes, tile_sizes, tile, expected",
    [
        ((10, 16, 8), (4, 8, 0), (0, 0, 0), [(0, 4), (0, 8), (0, 8)]),
        ((10, 16, 8), (4, 8, 0), (2, 1, 0), [(8, 2), (8, 8), (0, 8)]),
        ((3,), (8,), (0,), [(0, 3)]),
        ((12, 5), (4, 5), (2, 0), [(8, 4), (0, 5)]),
        ((7, 9), (1, 4), (6, 2), [(6, 1), (8, 1)]),
        ((100,), (32,), (3,), [(96, 4)]),
    ],
)
def test_tile_ranges(impl, loop_sizes, tile_sizes, tile, expected):
    what = f"tile_ranges({list(loop_sizes)}, {list(tile_sizes)}, {list(tile)})"
    found = ask(impl, "06.1", what, "tile_ranges", list(loop_sizes), list(tile_sizes), list(tile))
    expect_instance(what, found, (list, tuple), "a list with one (offset, size) per loop")
    expect_equal(what, [tuple(int(v) for v in pair) for pair in found], expected)


@task06_1
def test_matmul_slices_of_every_tile(impl):
    op = the_op(OPS["matmul"])
    sizes = (4, 8, 0)
    for tile in itertools.product(range(3), range(2), range(1)):
        expect_slices(op, sizes, tile, student_slices(impl, op, sizes, tile))


@task06_1
@pytest.mark.parametrize(
    "name, tile_sizes, tile",
    [
        ("conv_stride2", (0, 3, 2, 0, 0, 0, 0), (0, 1, 2, 0, 0, 0, 0)),  # rows: a partial tile
        ("conv_stride2", (0, 0, 0, 0, 2, 0, 0), (0, 0, 0, 0, 1, 0, 0)),  # a tiled reduction
        ("conv_stride2", (0, 0, 0, 2, 0, 0, 0), (0, 0, 0, 1, 0, 0, 0)),  # input: whole rows
        ("stencil", (4, 0), (2, 0)),
        ("shifted", (3, 4), (2, 1)),
        ("row_max", (4, 3), (1, 3)),
        ("fill", (3, 0), (2, 0)),
    ],
)
def test_golden_slices(impl, name, tile_sizes, tile):
    op = the_op(OPS[name])
    expect_slices(op, tile_sizes, tile, student_slices(impl, op, tile_sizes, tile))


@task06_1
@pytest.mark.parametrize("name", sorted(OPS))
@GRADED
@given(data=st.data())
def test_random_tiles_match_the_library(impl, name, data):
    op = the_op(OPS[name])
    loop_sizes = op.static_loop_sizes()
    sizes = [data.draw(st.integers(0, n + 2), label=f"tile size {n}") for n in loop_sizes]
    if not any(sizes):
        sizes[0] = 1
    counts = [1 if t == 0 else -(-n // t) for n, t in zip(loop_sizes, sizes, strict=True)]
    tile = [data.draw(st.integers(0, c - 1), label="tile coordinate") for c in counts]
    expect_slices(op, sizes, tile, student_slices(impl, op, sizes, tile))


def run_op_on(op: StructuredOp, arrays: list[np.ndarray]) -> np.ndarray:
    """``op`` (its maps, iterator types and payload) run on ``arrays`` of any shapes."""
    generic = op if isinstance(op, GenericOp) else op.generalize()
    types = [
        RankedTensorType(a.shape, element_type(v.type))
        for a, v in zip(arrays, op.operands, strict=True)
    ]
    output_types = types[op.num_inputs :]
    function = FuncOp.build("tile", FunctionType(tuple(types), tuple(output_types)))
    tiled = GenericOp(
        list(function.entry_block.arguments),
        output_types,
        dict(generic.attributes),
        [generic.payload_region.clone()],
    )
    if generic is not op:
        generic.drop_all_references()
    builder = Builder.at_end(function.entry_block)
    builder.insert(tiled)
    builder.insert(ReturnOp.build(list(tiled.results)))
    module = ModuleOp.build([function])
    module.verify()
    return interpret(module, *arrays, entry="tile")


@task06_1
@pytest.mark.parametrize(
    "name, tile_sizes",
    [
        ("matmul", (4, 8, 3)),
        ("conv_stride2", (0, 3, 2, 3, 2, 0, 2)),
        ("stencil", (3, 2)),
        ("shifted", (3, 4)),
        ("row_max", (4, 3)),
    ],
)
def test_the_op_run_tile_by_tile_on_your_slices_matches_the_op(impl, name, tile_sizes):
    op = the_op(OPS[name])
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal(v.type.shape).astype(np.float32) for v in op.operands]
    expected = interpret(naming_root(op).parent_op(), *arrays)  # the module
    result = arrays[-1].copy()
    loop_sizes = op.static_loop_sizes()
    counts = [1 if t == 0 else -(-n // t) for n, t in zip(loop_sizes, tile_sizes, strict=True)]
    for tile in itertools.product(*(range(c) for c in counts)):  # row-major, as the nest runs
        slices = student_slices(impl, op, tile_sizes, tile)
        expect_slices(op, tile_sizes, tile, slices)
        windows = [
            tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))
            for offsets, sizes in slices
        ]
        pieces = [a[w] for a, w in zip(arrays[: op.num_inputs], windows, strict=False)]
        output_window = windows[-1]
        try:
            result[output_window] = run_op_on(op, [*pieces, result[output_window]])
        except VerifyError as error:
            raise GradingFailure(
                f"{tile_context(op, tile_sizes, tile)}: the op on your slices does not "
                f"verify: {error}"
            ) from None
    expect_array_close(
        f"{describe(op)} run tile by tile (tile sizes {list(tile_sizes)}) on your slices",
        result,
        expected,
        rtol=1e-5,
        atol=1e-5,
    )


# == Task 06.2: a reduction split into one partial per tile ===============================
IDENTITY = {
    "arith.addf": 0.0,
    "arith.mulf": 1.0,
    "arith.maximumf": -np.inf,
    "arith.minimumf": np.inf,
}
NUMPY_COMBINE = {
    "arith.addf": np.add,
    "arith.mulf": np.multiply,
    "arith.maximumf": np.maximum,
    "arith.minimumf": np.minimum,
}
SPLIT_CASES = [(10, 4), (12, 4), (3, 8), (7, 1), (16, 16), (17, 5), (9, 2)]
"""(n, tile): partial last tiles, dividing tiles, one tile larger than x, tiles of 1."""


def reduction_inputs(n: int, combiner: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Inputs where a wrong identity shows: all negative for max, positive for min,
    close to 1 for a product; an init that is not the identity."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    if combiner == "arith.maximumf":
        x, init = -np.abs(x) - 1.0, -100.0
    elif combiner == "arith.minimumf":
        x, init = np.abs(x) + 1.0, 100.0
    elif combiner == "arith.mulf":
        x, init = 1.0 + 0.1 * x, 1.5
    else:
        init = 0.5
    return x.astype(np.float32), np.array(init, np.float32)


def expected_partials(x: np.ndarray, tile: int, combiner: str) -> np.ndarray:
    """One partial per tile: the identity combined with the tile's chunk, in order."""
    combine = NUMPY_COMBINE[combiner]
    partials = []
    for start in range(0, len(x), tile):
        value = np.float32(IDENTITY[combiner])
        for element in x[start : start + tile]:
            value = combine(element, value, dtype=np.float32)
        partials.append(value)
    return np.array(partials, np.float32)


def student_module(impl, n: int, tile: int, combiner: str) -> ModuleOp:
    """Parse and verify the student's text; errors become feedback."""
    what = f"split_reduction_ir({n}, {tile}, {combiner!r})"
    text = ask(impl, "06.2", what, "split_reduction_ir", n, tile, combiner)
    expect_instance(what, text, str, "MLIR text (a str)")
    try:
        module = parse(text)
        module.verify()
    except (ParseError, VerifyError) as error:
        raise GradingFailure(f"{what} does not parse and verify:\n{error}") from None
    function = next((f for f in module.walk() if isinstance(f, FuncOp)), None)
    if function is None or function.sym_name != "main":
        raise GradingFailure(f"{what}: expected a func.func @main, found none")
    expect_equal(
        f"{what}: the type of @main",
        str(function.function_type),
        f"(tensor<{n}xf32>, tensor<f32>) -> tensor<f32>",
    )
    return module


def run_student(module: ModuleOp, what: str, *arrays: np.ndarray) -> np.ndarray:
    """Run the student's module; an interpreter error (a slice out of bounds) is feedback."""
    try:
        return np.asarray(interpret(module, *arrays))
    except InterpreterError as error:
        raise GradingFailure(f"{what}: running it in the interpreter failed: {error}") from None


def the_loop(module: ModuleOp, what: str) -> ForOp:
    loops = [op for op in module.walk() if isinstance(op, ForOp)]
    if len(loops) != 1:
        raise GradingFailure(f"{what}: expected one scf.for (the tile loop), found {len(loops)}")
    return loops[0]


@task06_2
@pytest.mark.parametrize("n, tile", SPLIT_CASES)
def test_one_partial_per_tile(impl, n, tile):
    combiner = "arith.maximumf"
    what = f"split_reduction_ir({n}, {tile}, {combiner!r})"
    module = student_module(impl, n, tile, combiner)
    loop = the_loop(module, what)
    tiles = -(-n // tile)
    if len(loop.results) != 1:
        raise GradingFailure(
            f"{what}: expected the tile loop to carry one tensor (the partials), it carries "
            f"{len(loop.results)} values"
        )
    expect_equal(
        f"{what}: the type the tile loop carries (one partial per tile: ceil({n} / {tile}))",
        str(loop.results[0].type),
        f"tensor<{tiles}xf32>",
    )
    function = next(f for f in module.walk() if isinstance(f, FuncOp))
    function.entry_block.terminator.set_operand(0, loop.results[0])  # return the partials
    inputs = function.function_type.inputs
    function.attributes["function_type"] = TypeAttr(FunctionType(inputs, (loop.results[0].type,)))
    x, init = reduction_inputs(n, combiner, seed=3)
    found = run_student(module, f"{what}, returning the loop's partials", x, init)
    expected = expected_partials(x, tile, combiner)
    for t, (got, want) in enumerate(zip(found, expected, strict=True)):
        if got != want:
            start, stop = t * tile, min(n, t * tile + tile)
            kind = "a partial tile" if stop - start < tile else "a full tile"
            hint = ""
            if got == 0.0:
                hint = (
                    "; x is all negative here: did the partials start at the identity of "
                    "arith.maximumf (-inf, written 0xFF800000) rather than 0?"
                )
            raise GradingFailure(
                f"{what}: after the loop, partial {t} (tile {t}: x[{start}:{stop}], {kind} of "
                f"{stop - start}) should be the max of its chunk, {want}; found {got}{hint}"
            )


@task06_2
@pytest.mark.parametrize("n, tile", SPLIT_CASES)
@pytest.mark.parametrize("combiner", sorted(IDENTITY))
def test_split_reduction_matches_numpy(impl, n, tile, combiner):
    module = student_module(impl, n, tile, combiner)
    x, init = reduction_inputs(n, combiner, seed=n * 10 + tile)
    expected = np.float32(init)
    for value in expected_partials(x, tile, combiner):
        expected = NUMPY_COMBINE[combiner](value, expected, dtype=np.float32)
    what = f"split_reduction_ir({n}, {tile}, {combiner!r})"
    found = run_student(module, what, x, init)
    expect_array_close(
        f"{what} on random x with init {float(init)}",
        found,
        np.asarray(expected, np.float32),
        rtol=1e-5,
        atol=1e-5,
    )


@task06_2
@pytest.mark.parametrize("n, tile", SPLIT_CASES)
def test_the_tile_loop_can_be_bound_to_ai_cores(impl, n, tile):
    what = f"split_reduction_ir({n}, {tile}, 'arith.addf')"
    module = student_module(impl, n, tile, "arith.addf")
    loop = the_loop(module, what)
    reason = why_not_bindable(loop)
    if reason is not None:
        raise GradingFailure(
            f"{what}: the tile loop cannot be bound to parallel units: {reason} (each "
            "iteration must write its own slot: a tensor.insert_slice at an offset that moves "
            "with the loop, yielded by the loop)"
        )
    refused = bind_loops([loop], ["npu.aicore"])
    expect_equal(f"{what}: bind_loops(loop, ['npu.aicore']) refusals", refused, [])
    x, init = reduction_inputs(n, "arith.addf", seed=11)
    expect_array_close(
        f"{what} bound to npu.aicore, run by the interpreter",
        run_student(module, what, x, init),
        np.asarray(np.float32(init) + x.astype(np.float64).sum(), np.float32),
        rtol=1e-5,
        atol=1e-5,
    )


@task06_2
@pytest.mark.mlir
@pytest.mark.parametrize("n, tile", [(10, 4), (12, 4)])
def test_mlir_opt_accepts_and_lowers_your_ir(impl, n, tile):
    mlir_opt = shutil.which("mlir-opt-22")
    if mlir_opt is None:
        pytest.skip("mlir-opt-22 is not on PATH (Debian package mlir-22-tools)")
    what = f"split_reduction_ir({n}, {tile}, 'arith.maximumf')"
    module = student_module(impl, n, tile, "arith.maximumf")
    bind_loops([the_loop(module, what)], ["npu.aicore"])
    for options in (["--verify-each"], MLIR_LOWERING):
        result = subprocess.run(
            [mlir_opt, *options], input=str(module), capture_output=True, text=True, timeout=60
        )
        if result.returncode != 0:
            raise GradingFailure(
                f"{what}, bound to npu.aicore: mlir-opt-22 {' '.join(options)} rejects it:\n"
                f"{result.stderr.strip()}"
            )


MLIR_LOWERING = [
    "--one-shot-bufferize=bufferize-function-boundaries",
    "-convert-linalg-to-loops",
    "-expand-strided-metadata",
    "-lower-affine",
    "-convert-scf-to-cf",
    "-convert-to-llvm",
    "-reconcile-unrealized-casts",
]
"""MLIR's own bufferization and lowering to the LLVM dialect."""


@task06_2
@pytest.mark.parametrize("n, tile", [(12, 4), (16, 16), (9, 3)])
def test_full_tiles_have_static_shapes(impl, n, tile):
    what = f"split_reduction_ir({n}, {tile}, 'arith.addf')"
    module = student_module(impl, n, tile, "arith.addf")
    function = next(f for f in module.walk() if isinstance(f, FuncOp))
    x_argument = function.entry_block.arguments[0]
    for op in module.walk():
        if isinstance(op, ExtractSliceOp) and op.source is x_argument:
            expect_equal(
                f"{what}: {tile} divides {n}, so every chunk of x is full and MLIR folds the "
                f"affine.min away; the type of the chunk",
                str(op.result.type),
                f"tensor<{tile}xf32>",
            )


# == Task 06.3: footprints and tile sizes under a memory budget ==========================
FOOTPRINT_OPS = {
    "matmul": OPS["matmul"],
    "matmul_f16_to_f32": matmul_text(10, 8, 16, lhs="f16", rhs="f16"),
    "batch_matmul_bf16": matmul_text(5, 4, 6, lhs="bf16", rhs="bf16", out="bf16", batch=2),
    "conv_stride2": CONV,
    "row_max": OPS["row_max"],
    "stencil": OPS["stencil"],
    "fill": OPS["fill"],
}


def library_footprint(op: StructuredOp, tile_sizes) -> tuple[int, str]:
    """The bytes of a full tile from the library's ``TilingResult.footprints``, and how
    they add up (for the feedback)."""
    footprints = new_result(op, tuple(tile_sizes)).footprints
    shaped = [v for v in op.operands if isinstance(v.type, ShapedType)]
    total, parts = 0, []
    for (label, shape), value in zip(footprints.items(), shaped, strict=True):
        element_bytes = math.ceil(bitwidth(element_type(value.type)) / 8)
        total += math.prod(shape) * element_bytes
        parts.append(f"{label} {'x'.join(map(str, shape)) or 'scalar'} x {element_bytes} B")
    return total, " + ".join(parts)


@task06_3
@pytest.mark.parametrize("name", sorted(FOOTPRINT_OPS))
@GRADED
@given(data=st.data())
def test_footprint_bytes_match_the_tiling_report(impl, name, data):
    op = the_op(FOOTPRINT_OPS[name])
    sizes = [data.draw(st.integers(0, n + 2), label="tile size") for n in op.static_loop_sizes()]
    expected, how = library_footprint(op, sizes)
    what = f"footprint_bytes({describe(op)}, {sizes})"
    found = ask(impl, "06.3", what, "footprint_bytes", op, sizes)
    expect_instance(what, found, int, "an int number of bytes")
    if found != expected:
        raise GradingFailure(f"{what}: expected {expected} = {how}, found {found}")


def best_reuse(op: StructuredOp, budget: int, min_tiles: int) -> tuple[Fraction, tuple] | None:
    """The exact search: the best reuse over every candidate tile, and one tile reaching it."""
    loop_sizes = op.static_loop_sizes()
    kinds = op.iterator_types()
    best = None
    for sizes in itertools.product(*(candidates(n) for n in loop_sizes)):
        if parallel_tiles(loop_sizes, kinds, sizes) < min_tiles:
            continue
        footprint, _ = library_footprint(op, sizes)
        if footprint > budget:
            continue
        reuse = Fraction(math.prod(sizes), footprint)
        if best is None or reuse > best[0]:
            best = (reuse, sizes)
    return best


def candidates(n: int) -> list[int]:
    """Powers of two below ``n``, then ``n``."""
    sizes, power = [], 1
    while power < n:
        sizes.append(power)
        power *= 2
    return [*sizes, n]


def parallel_tiles(loop_sizes, kinds, sizes) -> int:
    return math.prod(
        -(-n // t)
        for n, t, kind in zip(loop_sizes, sizes, kinds, strict=True)
        if kind == "parallel"
    )


CHOICES = [
    ("matmul 64x64x64 f32", matmul_text(64, 64, 64), 16 * 1024, 1),
    ("matmul 64x64x64 f32", matmul_text(64, 64, 64), 16 * 1024, 8),
    ("matmul 48x24x40 f16->f32", matmul_text(48, 24, 40, lhs="f16", rhs="f16"), 4096, 4),
    ("batch_matmul 4x16x16x16 bf16", matmul_text(16, 16, 16, "bf16", "bf16", "bf16", 4), 2048, 8),
    ("conv 1x10x11x3 stride 2", CONV, 2048, 2),
    ("row max 6x10", OPS["row_max"], 64, 3),
]


def describe_tile(op, sizes) -> str:
    footprint, how = library_footprint(op, sizes)
    loop_sizes = op.static_loop_sizes()
    iterations = math.prod(min(t, n) for t, n in zip(sizes, loop_sizes, strict=True))
    reuse = Fraction(iterations, footprint)
    return f"{tuple(sizes)}: {footprint} B ({how}), reuse {float(reuse):.4g} iterations/B"


@task06_3
@pytest.mark.parametrize("title, text, budget, min_tiles", CHOICES, ids=lambda v: str(v)[:28])
def test_choose_tile_sizes_is_the_best_that_fits(impl, title, text, budget, min_tiles):
    op = the_op(text)
    loop_sizes = op.static_loop_sizes()
    kinds = op.iterator_types()
    what = f"choose_tile_sizes({title}, budget_bytes={budget}, min_parallel_tiles={min_tiles})"
    found = ask(impl, "06.3", what, "choose_tile_sizes", op, budget, min_tiles)
    expect_instance(what, found, (tuple, list), "a tuple of tile sizes, one per loop")
    found = tuple(found)
    if len(found) != len(loop_sizes):
        raise GradingFailure(f"{what}: expected {len(loop_sizes)} tile sizes, found {found}")
    names = [op.loop_name(p) for p in range(op.num_loops)]
    for name, n, t in zip(names, loop_sizes, found, strict=True):
        if t not in candidates(n):
            raise GradingFailure(
                f"{what}: {found}: tile size {t!r} of loop {name} is not a candidate "
                f"{candidates(n)} (powers of two below {n}, then {n})"
            )
    footprint, how = library_footprint(op, found)
    if footprint > budget:
        raise GradingFailure(
            f"{what}: tile {found} touches {footprint} B = {how}: over the budget of {budget} B"
        )
    tiles = parallel_tiles(loop_sizes, kinds, found)
    if tiles < min_tiles:
        raise GradingFailure(
            f"{what}: tile {found} gives {tiles} tiles along the parallel loops "
            f"({', '.join(n for n, k in zip(names, kinds, strict=True) if k == 'parallel')}); "
            f"{min_tiles} units need one each"
        )
    best = best_reuse(op, budget, min_tiles)
    assert best is not None
    reuse = Fraction(math.prod(found), footprint)
    if reuse != best[0]:
        raise GradingFailure(
            f"{what}: tile {describe_tile(op, found)} fits, but does less work per byte than "
            f"the best, e.g. {describe_tile(op, best[1])}"
        )


@task06_3
def test_choose_tile_sizes_says_when_nothing_fits(impl):
    op = the_op(matmul_text(8, 8, 8))
    what = "choose_tile_sizes(matmul 8x8x8 f32, budget_bytes=8) (a 1x1x1 tile needs 12 B)"
    try:
        found = ask(impl, "06.3", what, "choose_tile_sizes", op, 8, 1)
    except ValueError as error:
        if "8" not in str(error):
            raise GradingFailure(
                f"{what}: the ValueError should say the budget, got: {error}"
            ) from None
        return
    raise GradingFailure(f"{what}: expected a ValueError, found {found!r}")


@task06_3
@pytest.mark.parametrize("kind", ["matmul", "conv"])
def test_chosen_tiles_compile_and_run(impl, kind):
    rng = np.random.default_rng(21)
    if kind == "matmul":
        arrays = [rng.standard_normal(s).astype(np.float32) for s in [(24, 20), (20, 40)]]
        fn, budget, min_tiles = (lambda a, b: a @ b), 2048, 4
        expected = arrays[0].astype(np.float64) @ arrays[1]
    else:
        arrays = [rng.standard_normal(s).astype(np.float32) for s in [(1, 9, 9, 3), (3, 3, 3, 4)]]
        fn, budget, min_tiles = (lambda x, w: conv2d(x, w, stride=2)), 1024, 2
        x, w = (a.astype(np.float64) for a in arrays)
        expected = np.zeros((1, 4, 4, 4))
        for i in range(3):
            for j in range(3):
                expected += np.einsum("nhwc,cf->nhwf", x[:, i : i + 8 : 2, j : j + 8 : 2], w[i, j])
    fused = tinycomp.compile(fn, *arrays, stop_after="fused")
    root = [op for op in fused.ir("fused").walk() if isinstance(op, StructuredOp)][-1]
    asked = f"choose_tile_sizes({kind}, {budget}, {min_tiles})"
    sizes = tuple(
        int(t) for t in ask(impl, "06.3", asked, "choose_tile_sizes", root, budget, min_tiles)
    )
    what = f"tinycomp.compile({kind}, tile_sizes={sizes}) (your choice for {budget} B)"
    program = tinycomp.compile(
        fn, *arrays, options=tinycomp.CompileOptions(tile_sizes=sizes), stop_after="tiled"
    )
    report = program.reports["linalg-tile-and-fuse"]
    result = report.results[-1]
    if not result.tiled:
        raise GradingFailure(f"{what}: the root was not tiled: {result.reason}")
    footprint, how = library_footprint(root, sizes)
    if footprint > budget:
        raise GradingFailure(f"{what}: a tile touches {footprint} B = {how} > {budget} B")
    expect_array_close(
        f"{what}, run by the interpreter", program.run(*arrays, stage="tiled"),
        expected.astype(np.float32), rtol=1e-4, atol=1e-4,
    )  # fmt: skip


# == Task 06.4: the fewest tiles whose slices fit one buffer per operand ==================
def operand_box_bytes(op: StructuredOp, tile_sizes) -> list[tuple[str, tuple[int, ...], int]]:
    """``(operand, full-tile box, bytes)`` for each tensor operand, from the library."""
    pairs = zip(op.static_loop_sizes(), tile_sizes, strict=True)
    full = [n if t == 0 else min(t, n) for n, t in pairs]
    names = operand_names(op)
    found = []
    for name, value, indexing_map in zip(names, op.operands, op.indexing_maps(), strict=True):
        if not isinstance(value.type, ShapedType):
            continue
        box = tuple(footprint_shape(indexing_map, full))
        element_bytes = math.ceil(bitwidth(element_type(value.type)) / 8)
        found.append((name, box, math.prod(box) * element_bytes))
    return found


def tile_count(op: StructuredOp, tile_sizes) -> int:
    return math.prod(
        1 if t == 0 else -(-n // t) for n, t in zip(op.static_loop_sizes(), tile_sizes, strict=True)
    )


def fewest_tiles_search(op: StructuredOp, buffer: int) -> tuple[int, tuple[int, ...]] | None:
    """The exact minimum: every combination of tile counts, fewest tiles first, each with
    its smallest tile sizes (``ceil(N / count)``, the smallest slices for that count)."""
    loop_sizes = op.static_loop_sizes()
    shaped = [
        (indexing_map, math.ceil(bitwidth(element_type(value.type)) / 8))
        for value, indexing_map in zip(op.operands, op.indexing_maps(), strict=True)
        if isinstance(value.type, ShapedType)
    ]
    rows = []  # per operand: per result, the coefficient of each loop
    for indexing_map, element_bytes in shaped:
        zero = [0] * len(loop_sizes)
        base = [e.evaluate(zero) for e in indexing_map.results]
        units = [
            [e.evaluate([int(k == j) for k in range(len(loop_sizes))]) - b
             for j in range(len(loop_sizes))]
            for e, b in zip(indexing_map.results, base, strict=True)
        ]  # fmt: skip
        rows.append((units, element_bytes))
    counts = [sorted({-(-n // t) for t in range(1, n + 1)}) for n in loop_sizes]
    choices = sorted(itertools.product(*counts), key=math.prod)
    for choice in choices:
        sizes = tuple(-(-n // c) for n, c in zip(loop_sizes, choice, strict=True))
        fits = True
        for units, element_bytes in rows:
            box = math.prod(
                1 + sum(a * (t - 1) for a, t in zip(u, sizes, strict=True)) for u in units
            )
            if box * element_bytes > buffer:
                fits = False
                break
        if fits:
            library = max(b for _, _, b in operand_box_bytes(op, sizes))
            if library > buffer:  # the grader's own arithmetic disagrees with the library
                raise RuntimeError(f"the search's footprint of {sizes} is not the library's")
            return math.prod(choice), sizes
    return None


def describe_boxes(op, sizes) -> str:
    return ", ".join(f"{n} {format_box(box)} = {b} B" for n, box, b in operand_box_bytes(op, sizes))


def format_box(box) -> str:
    return "x".join(map(str, box)) or "scalar"


FEWEST_CASES = [
    ("matmul 10x16x8 f32", matmul_text(10, 8, 16), 256),
    ("matmul 512x512x512 f16 -> f32", matmul_text(512, 512, 512, lhs="f16", rhs="f16"), 48 * 1024),
    ("matmul 300x200x100 f32", matmul_text(300, 100, 200), 48 * 1024),
    ("batch_matmul 4x64x64x64 bf16", matmul_text(64, 64, 64, "bf16", "bf16", "bf16", 4), 8192),
    ("conv 1x10x11x3 stride 2", CONV, 256),
    ("row max 6x10", OPS["row_max"], 16),
    ("stencil 12 by 3", OPS["stencil"], 20),
]


def expect_fewest(impl, title: str, op: StructuredOp, buffer: int) -> tuple[int, ...]:
    what = f"fewest_tiles({title}, buffer_bytes={buffer})"
    found = ask(impl, "06.4", what, "fewest_tiles", op, buffer)
    expect_instance(what, found, (tuple, list), "a tuple of tile sizes, one per loop")
    loop_sizes = op.static_loop_sizes()
    names = [op.loop_name(p) for p in range(op.num_loops)]
    if len(found) != len(loop_sizes) or not all(isinstance(t, int) for t in found):
        raise GradingFailure(f"{what}: expected {len(loop_sizes)} int tile sizes, found {found!r}")
    found = tuple(found)
    for name, n, t in zip(names, loop_sizes, found, strict=True):
        if not 0 <= t <= n:
            raise GradingFailure(f"{what}: {found}: loop {name} has {n} iterations, tile {t}")
    for name, box, size in operand_box_bytes(op, found):
        if size > buffer:
            raise GradingFailure(
                f"{what}: tile {found}: the slice of {name} a full tile takes is {format_box(box)}"
                f" = {size} B, over its buffer of {buffer} B ({describe_boxes(op, found)})"
            )
    best = fewest_tiles_search(op, buffer)
    assert best is not None, f"{what}: a case where nothing fits is not a case for this test"
    tiles = tile_count(op, found)
    if tiles > best[0]:
        raise GradingFailure(
            f"{what}: tile {found} makes {tiles} tiles ({describe_boxes(op, found)}); "
            f"{best[1]} makes {best[0]}, every slice within its {buffer} B "
            f"({describe_boxes(op, best[1])})"
        )
    return found


@task06_4
@pytest.mark.parametrize("title, text, buffer", FEWEST_CASES, ids=[c[0] for c in FEWEST_CASES])
def test_fewest_tiles_whose_slices_fit(impl, title, text, buffer):
    expect_fewest(impl, title, the_op(text), buffer)


@task06_4
def test_fewest_tiles_says_when_nothing_fits(impl):
    op = the_op(matmul_text(8, 8, 8, lhs="f16", rhs="f16"))
    what = "fewest_tiles(matmul 8x8x8 f16 -> f32, buffer_bytes=3) (one f32 element is 4 B)"
    try:
        found = ask(impl, "06.4", what, "fewest_tiles", op, 3)
    except ValueError as error:
        if "3" not in str(error):
            raise GradingFailure(
                f"{what}: the ValueError should say the buffer size: {error}"
            ) from None
        return
    raise GradingFailure(f"{what}: expected a ValueError, found {found!r}")


@task06_4
@pytest.mark.parametrize("kind", ["matmul", "conv"])
def test_fewest_tiles_compile_and_run(impl, kind):
    rng = np.random.default_rng(64)
    if kind == "matmul":
        arrays = [rng.standard_normal(s).astype(np.float32) for s in [(30, 20), (20, 24)]]
        fn, buffer = (lambda a, b: a @ b), 512
        expected = arrays[0].astype(np.float64) @ arrays[1]
    else:
        arrays = [rng.standard_normal(s).astype(np.float32) for s in [(1, 9, 9, 3), (3, 3, 3, 4)]]
        fn, buffer = (lambda x, w: conv2d(x, w, stride=2)), 256
        x, w = (a.astype(np.float64) for a in arrays)
        expected = np.zeros((1, 4, 4, 4))
        for i in range(3):
            for j in range(3):
                expected += np.einsum("nhwc,cf->nhwf", x[:, i : i + 8 : 2, j : j + 8 : 2], w[i, j])
    fused = tinycomp.compile(fn, *arrays, stop_after="fused")
    root = [op for op in fused.ir("fused").walk() if isinstance(op, StructuredOp)][-1]
    sizes = expect_fewest(impl, f"the {kind} of tinycomp.compile", root, buffer)
    what = f"tinycomp.compile({kind}, tile_sizes={sizes}) (your tiles for {buffer} B buffers)"
    program = tinycomp.compile(
        fn, *arrays, options=tinycomp.CompileOptions(tile_sizes=sizes), stop_after="tiled"
    )
    result = program.reports["linalg-tile-and-fuse"].results[-1]
    if not result.tiled:
        raise GradingFailure(f"{what}: the root was not tiled: {result.reason}")
    best = fewest_tiles_search(root, buffer)
    expect_equal(f"{what}: tiles in the report", result.total_tiles, best[0])
    expect_array_close(
        f"{what}, run by the interpreter", program.run(*arrays, stage="tiled"),
        expected.astype(np.float32), rtol=1e-4, atol=1e-4,
    )  # fmt: skip

"""Graded tests for chapter 02, affine and indexing maps (`ch02_affine_maps.py`).

Each test carries its task's marker; `impl` is the module under test (see conftest.py).
Answers are compared with the library (`AffineMap.compose`, the maps of
`linalg.conv_2d_nhwc_hwcf`, `AffineMap.tile_footprint`) and with the brute-force
truth: evaluating maps point by point, and running a convolution on random inputs.
While the student's code runs, the grader watches its calls: an answer that reaches the
library's own version of the same thing fails and says so. Random cases come from
hypothesis with a fixed seed (`derandomize`), so a grade never changes from one run to
the next. Task 02.4 is graded on its outcome: the bytes of every tile of a real
`linalg.conv_2d_nhwc_hwcf`, counted from the op's own indexing maps.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from numbers import Integral
from typing import Any

import numpy as np
import pytest
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from tinycomp.affine import (
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    const,
    dim,
    parse_affine_expr,
    parse_affine_map,
)
from tinycomp.affine import sym as symbol
from tinycomp.affine.footprint import expr_range
from tinycomp.affine.simplify import linearize
from tinycomp.dialects.linalg import Conv2DNhwcHwcfOp
from tinycomp.grading.checks import (
    GradingFailure,
    describe_call,
    expect_array_close,
    expect_equal,
    expect_instance,
)
from tinycomp.grading.library_calls import library_calls_refused
from tinycomp.interp import InterpreterError, interpret
from tinycomp.ir import Block, ParseError, RankedTensorType, VerifyError, f32, parse

task02_1 = pytest.mark.task02_1
task02_2 = pytest.mark.task02_2
task02_3 = pytest.mark.task02_3
task02_4 = pytest.mark.task02_4

GRADED = settings(
    max_examples=120,
    derandomize=True,
    database=None,
    deadline=None,
    phases=[Phase.explicit, Phase.generate],
)
"""Random cases: the same ones on every run, no time limit. The first failing case is
reported as it was drawn: shrinking it would make a wrong answer slow to grade, and
the cases come small first anyway."""


def describe_point(dims: Sequence[int], symbols: Sequence[int] = ()) -> str:
    """``d0=3, d1=-1, s0=2``: a point, the way feedback names it."""
    parts = [f"d{i}={v}" for i, v in enumerate(dims)]
    parts += [f"s{j}={v}" for j, v in enumerate(symbols)]
    return ", ".join(parts) or "the empty point"


def results_text(indexing_map: AffineMap) -> str:
    """``(d0, d1 * 2 + d4)``: a map's results, without its header."""
    return "(" + ", ".join(str(result) for result in indexing_map.results) + ")"


def library_refused(reason: str, forbidden: dict[str, Callable[..., Any]]):
    """Run the student's code; fail with ``reason`` if it reached one of ``forbidden``."""
    return library_calls_refused(forbidden, reason)


# == Task 02.1: compose ==================================================================
def library_compose_refused():
    """While the student's `compose` runs, `AffineMap.compose` is off limits."""
    return library_refused(
        "your compose calls {called}, the library's answer; Task 02.1 asks you to write "
        "the substitution yourself (see AffineExpr.replace_dims_and_symbols)",
        {"AffineMap.compose": AffineMap.compose},
    )


def student_compose(impl, f: AffineMap, g: AffineMap) -> AffineMap:
    """Call the student's compose, and check the shape of what it returns."""
    what = f"compose(f, g) with f = {f}, g = {g}"
    with library_compose_refused():
        found = impl.compose(f, g)
    expect_instance(what, found, AffineMap, "an AffineMap")
    expect_equal(f"{what}: number of dimensions (g's)", found.num_dims, g.num_dims)
    expect_equal(
        f"{what}: number of symbols (f's, then g's)",
        found.num_symbols,
        f.num_symbols + g.num_symbols,
    )
    expect_equal(f"{what}: number of results (f's)", found.num_results, f.num_results)
    return found


def expect_law(f: AffineMap, g: AffineMap, found: AffineMap, points: list[tuple]) -> None:
    """``(f ∘ g)(x) == f(g(x))`` at every ``(dims, f's symbols, g's symbols)`` point."""
    for dims, f_symbols, g_symbols in points:
        expected = f.evaluate(g.evaluate(dims, g_symbols), f_symbols)
        got = found.evaluate(dims, [*f_symbols, *g_symbols])
        if got != expected:
            raise GradingFailure(
                f"compose(f, g) with f = {f}, g = {g}: expected {f.compose(g)}, found {found}; "
                f"at {describe_point(dims, [*f_symbols, *g_symbols])} yours gives {got}, "
                f"f(g(x)) gives {expected}{compose_hint(f, g, found)}"
            )


def compose_hint(f: AffineMap, g: AffineMap, found: AffineMap) -> str:
    """Name the common slips: g's symbols not renumbered, or the maps the wrong way round."""
    symbols = f.num_symbols + g.num_symbols
    if f.num_symbols and g.num_symbols:
        unshifted = AffineMap(g.num_dims, symbols, g.results)  # g's s0 collides with f's s0
        f_symbols = [symbol(j) for j in range(f.num_symbols)]
        collided = f.replace_dims_and_symbols(unshifted.results, f_symbols, g.num_dims, symbols)
        if collided.simplify() == found.simplify():
            return (
                f": g's symbols must be numbered after f's, so g's s0 is s{f.num_symbols} "
                "in the result; here the two s0 became one"
            )
    return ""


COMPOSE_EXAMPLES = [
    # Two permutations that undo each other.
    ("(d0, d1, d2) -> (d2, d0, d1)", "(d0, d1, d2) -> (d1, d2, d0)"),
    # matmul's A map after a tiling map (tile index, then the index inside the tile).
    ("(d0, d1, d2) -> (d0, d2)",
     "(d0, d1, d2, d3, d4, d5) -> (d0 * 32 + d3, d1 * 32 + d4, d2 * 8 + d5)"),
    # MLIR's own example: symbols of both maps.
    ("(d0, d1)[s0, s1] -> (d0 + 1 + s1, d1 - 1 - s0)", "(d0)[s0] -> (d0 + s0, d0 - s0)"),
    # A strided window after a split of one loop in two.
    ("(d0, d1) -> (d0 * 2 + d1)", "(d0) -> (d0 floordiv 3, d0 mod 3)"),
    # Constants and unused dimensions.
    ("(d0, d1) -> (0, d1)", "(d0, d1, d2) -> (d2, d0 + d1)"),
    # g has no dimensions, only a symbol.
    ("(d0) -> (d0 * 4)", "()[s0] -> (s0 + 1)"),
]  # fmt: skip


@task02_1
@pytest.mark.parametrize("f_text, g_text", COMPOSE_EXAMPLES)
def test_compose_examples(impl, f_text, g_text):
    f, g = parse_affine_map(f_text), parse_affine_map(g_text)
    expected = f.compose(g)
    found = student_compose(impl, f, g)
    rng = np.random.default_rng(2)
    points = [
        (
            rng.integers(-20, 21, g.num_dims).tolist(),
            rng.integers(-20, 21, f.num_symbols).tolist(),
            rng.integers(-20, 21, g.num_symbols).tolist(),
        )
        for _ in range(20)
    ]
    expect_law(f, g, found, points)
    if found.simplify() != expected:
        raise GradingFailure(
            f"compose(f, g) with f = {f}, g = {g}: expected {expected}, found {found}"
        )


@task02_1
def test_compose_rejects_maps_that_do_not_fit(impl):
    f = parse_affine_map("(d0, d1) -> (d0 + d1)")
    g = parse_affine_map("(d0) -> (d0, d0 * 2, 0)")
    what = f"compose(f, g) with f = {f} (2 dimensions), g = {g} (3 results)"
    try:
        with library_compose_refused():
            found = impl.compose(f, g)
    except ValueError:
        return
    except NotImplementedError:
        raise
    except Exception as error:  # a crash deep inside is not an answer a user can act on
        raise GradingFailure(
            f"{what}: expected ValueError, found {type(error).__name__}: {error}"
        ) from None
    raise GradingFailure(f"{what}: expected ValueError, found the map {found}")


DIVISORS = st.integers(1, 6)


def affine_exprs(num_dims: int, num_symbols: int) -> st.SearchStrategy[AffineExpr]:
    """Random affine expressions: dims, symbols and constants under + - * // % ceildiv."""
    leaves = [st.builds(const, st.integers(-6, 6))]
    if num_dims:
        leaves += [st.builds(dim, st.integers(0, num_dims - 1))] * 2
    if num_symbols:
        leaves.append(st.builds(symbol, st.integers(0, num_symbols - 1)))

    def extend(children: st.SearchStrategy[AffineExpr]) -> st.SearchStrategy[AffineExpr]:
        return st.one_of(
            st.builds(lambda a, b: a + b, children, children),
            st.builds(lambda a, b: a - b, children, children),
            st.builds(lambda a, k: a * k, children, st.integers(-4, 4)),
            st.builds(lambda a, k: a // k, children, DIVISORS),
            st.builds(lambda a, k: a % k, children, DIVISORS),
            st.builds(lambda a, k: a.ceildiv(k), children, DIVISORS),
        )

    return st.recursive(st.one_of(*leaves), extend, max_leaves=8)


@st.composite
def composable_maps(draw: st.DrawFn) -> tuple[AffineMap, AffineMap, list[tuple]]:
    """Maps f and g with one result of g per dimension of f, and points to check."""
    g_dims, middle, f_results = (draw(st.integers(0, 3)) for _ in range(3))
    f_symbols, g_symbols = draw(st.integers(0, 2)), draw(st.integers(0, 2))
    g_exprs = draw(st.lists(affine_exprs(g_dims, g_symbols), min_size=middle, max_size=middle))
    f_exprs = draw(
        st.lists(affine_exprs(middle, f_symbols), min_size=f_results, max_size=f_results)
    )
    f, g = AffineMap(middle, f_symbols, f_exprs), AffineMap(g_dims, g_symbols, g_exprs)
    values = st.integers(-30, 30)
    point = st.tuples(
        st.lists(values, min_size=g_dims, max_size=g_dims),
        st.lists(values, min_size=f_symbols, max_size=f_symbols),
        st.lists(values, min_size=g_symbols, max_size=g_symbols),
    )
    return f, g, draw(st.lists(point, min_size=5, max_size=5))


@task02_1
def test_compose_obeys_the_law_on_random_maps(impl):
    """``(f ∘ g)(x) == f(g(x))``, and the maps have the dims and symbols MLIR gives them."""
    student_compose(impl, *map(parse_affine_map, COMPOSE_EXAMPLES[0]))  # a stub stops here

    @GRADED
    @given(case=composable_maps())
    def check(case):
        f, g, points = case
        expect_law(f, g, student_compose(impl, f, g), points)

    check()


# == Task 02.2: conv2d ====================================================================
CONV_LOOPS = ("n", "oh", "ow", "f", "kh", "kw", "c")
CONV_OPERANDS = ("input", "filter", "output")
CONV_CASES = [
    ((1, 1), (1, 1)),
    ((2, 2), (1, 1)),
    ((1, 1), (2, 2)),
    ((2, 3), (1, 2)),
    ((3, 1), (2, 3)),
]
N, OH, OW, F, KH, KW, C = 2, 5, 6, 7, 3, 4, 8
"""Loop sizes of the test convolution: all different, so a swapped loop shows."""


def conv_types(strides: Sequence[int], dilations: Sequence[int]) -> list[RankedTensorType]:
    """Types of input, filter and output: the input just large enough for the window."""
    (sh, sw), (dh, dw) = strides, dilations
    height, width = (OH - 1) * sh + (KH - 1) * dh + 1, (OW - 1) * sw + (KW - 1) * dw + 1
    shapes = [(N, height, width, C), (KH, KW, C, F), (N, OH, OW, F)]
    return [RankedTensorType(shape, f32) for shape in shapes]


def library_conv(strides: Sequence[int], dilations: Sequence[int]) -> Conv2DNhwcHwcfOp:
    """tinycomp's `linalg.conv_2d_nhwc_hwcf` on the test types."""
    values = Block(conv_types(strides, dilations)).arguments
    return Conv2DNhwcHwcfOp.build(*values, strides=strides, dilations=dilations)


def library_conv_refused():
    """While the student's conv functions run, the named op's own maps are off limits."""
    return library_refused(
        "your code calls {called}, the library's answer; Task 02.2 asks you to write the "
        "maps of the convolution yourself",
        {
            "Conv2DNhwcHwcfOp.indexing_maps": Conv2DNhwcHwcfOp.indexing_maps,
            "Conv2DNhwcHwcfOp.iterator_types": Conv2DNhwcHwcfOp.iterator_types,
        },
    )


def student_conv_maps(impl, strides, dilations) -> list[AffineMap]:
    """The student's maps, checked for their number, kind and size."""
    what = describe_call(impl.conv2d_nhwc_hwcf_maps, strides=strides, dilations=dilations)
    with library_conv_refused():
        found = impl.conv2d_nhwc_hwcf_maps(strides=strides, dilations=dilations)
    expect_instance(what, found, (list, tuple), "a list of 3 AffineMaps (input, filter, output)")
    expect_equal(f"number of maps returned by {what}", len(found), 3)
    for position, (name, indexing_map) in enumerate(zip(CONV_OPERANDS, found, strict=True)):
        where = f"map {position} ({name}) of {what}"
        expect_instance(where, indexing_map, AffineMap, "an AffineMap")
        expect_equal(f"{where}: dimensions (one per loop n, oh, ow, f, kh, kw, c)",
                     indexing_map.num_dims, 7)  # fmt: skip
        expect_equal(f"{where}: symbols", indexing_map.num_symbols, 0)
        expect_equal(f"{where}: results (the rank of {name})", indexing_map.num_results, 4)
    return list(found)


def student_iterator_types(impl) -> list[str]:
    what = describe_call(impl.conv2d_nhwc_hwcf_iterator_types)
    with library_conv_refused():
        found = impl.conv2d_nhwc_hwcf_iterator_types()
    expect_instance(what, found, (list, tuple), "a list of 7 strings")
    expect_equal(f"number of iterator types from {what} (one per loop)", len(found), 7)
    return list(found)


@task02_2
def test_conv_iterator_types(impl):
    found = student_iterator_types(impl)
    expected = library_conv((1, 1), (1, 1)).iterator_types()
    for position, (loop, got, wanted) in enumerate(zip(CONV_LOOPS, found, expected, strict=True)):
        expect_equal(f"iterator type of loop {loop} (d{position}) of conv2d", got, wanted)


@task02_2
@pytest.mark.parametrize("strides, dilations", CONV_CASES)
def test_conv_maps_match_linalg(impl, strides, dilations):
    found = student_conv_maps(impl, strides, dilations)
    expected = [m.simplify() for m in library_conv(strides, dilations).indexing_maps()]
    for position, (name, got, wanted) in enumerate(
        zip(CONV_OPERANDS, found, expected, strict=True)
    ):
        if got.simplify() != wanted:
            raise GradingFailure(
                f"map {position} ({name}) of conv2d with strides {strides}, dilations "
                f"{dilations}: expected {results_text(wanted)}, found {results_text(got)} "
                f"(loops: n, oh, ow, f, kh, kw, c = d0 ... d6)"
            )


def conv_module_text(maps: Sequence[AffineMap], iterator_types: Sequence[str], types) -> str:
    """A function holding one `linalg.generic` with the given maps: a convolution's body."""
    input_type, filter_type, output_type = types
    maps_text = ", ".join(f"affine_map<{m}>" for m in maps)
    kinds = ", ".join(f'"{kind}"' for kind in iterator_types)
    return f"""
func.func @conv(%input: {input_type}, %filter: {filter_type},
                %init: {output_type}) -> {output_type} {{
  %0 = linalg.generic {{indexing_maps = [{maps_text}], iterator_types = [{kinds}]}}
      ins(%input, %filter : {input_type}, {filter_type}) outs(%init : {output_type}) {{
  ^bb0(%in: f32, %w: f32, %out: f32):
    %product = arith.mulf %in, %w : f32
    %sum = arith.addf %out, %product : f32
    linalg.yield %sum : f32
  }} -> {output_type}
  return %0 : {output_type}
}}"""  # fmt: skip


def numpy_conv(x, w, init, strides, dilations) -> np.ndarray:
    """The reference: for each filter tap, a strided window of x times the tap's matrix."""
    (sh, sw), (dh, dw) = strides, dilations
    out = init.astype(np.float64)
    for kh, kw in itertools.product(range(KH), range(KW)):
        rows = slice(kh * dh, kh * dh + (OH - 1) * sh + 1, sh)
        columns = slice(kw * dw, kw * dw + (OW - 1) * sw + 1, sw)
        out += x[:, rows, columns, :].astype(np.float64) @ w[kh, kw].astype(np.float64)
    return out.astype(np.float32)


@task02_2
@pytest.mark.parametrize("strides, dilations", CONV_CASES)
def test_a_generic_built_from_your_maps_computes_the_convolution(impl, strides, dilations):
    maps = student_conv_maps(impl, strides, dilations)
    kinds = student_iterator_types(impl)
    types = conv_types(strides, dilations)
    what = f"linalg.generic built from your maps (strides {strides}, dilations {dilations})"
    text = conv_module_text(maps, kinds, types)
    try:
        module = parse(text)
    except (ParseError, VerifyError) as error:
        raise GradingFailure(f"{what} is not valid IR: {error}") from None
    rng = np.random.default_rng(sum(strides) * 10 + sum(dilations))
    x, w, init = (rng.standard_normal(t.shape).astype(np.float32) for t in types)
    try:
        found = interpret(module, x, w, init, entry="conv")
    except InterpreterError as error:
        raise GradingFailure(f"{what} fails to run: {error}\n{text}") from None
    expected = numpy_conv(x, w, init, strides, dilations)
    expect_array_close(f"{what}, run on random inputs", found, expected, rtol=1e-4, atol=1e-5)


# == Task 02.3: footprints ================================================================
def brute_force_bounds(expr: AffineExpr, box: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Smallest and largest value of ``expr`` over every point of ``box`` (ends included)."""
    values = [
        expr.evaluate(point)
        for point in itertools.product(*(range(first, last + 1) for first, last in box))
    ]
    return min(values), max(values)


FOOTPRINT_LIBRARY = {
    "AffineMap.tile_footprint": AffineMap.tile_footprint,
    "AffineMap.footprint": AffineMap.footprint,
    "tinycomp.affine.footprint.expr_range": expr_range,
}


def library_footprint_refused():
    """While the student's footprint functions run, the library's footprints are off limits."""
    return library_refused(
        "your code calls {called}, the library's answer; Task 02.3 asks you to find the "
        "bounds yourself",
        FOOTPRINT_LIBRARY,
    )


def bounds_hint(expr: AffineExpr, box, found) -> str:
    """Name the slip behind a wrong pair of bounds, when it is a common one."""
    form = linearize(expr.simplify())
    constant = form.constant
    ends = [(box[t.position][0], box[t.position][1], c) for t, c in form.terms.items()]
    unswapped = (
        constant + sum(c * lo for lo, _, c in ends),
        constant + sum(c * hi for _, hi, c in ends),
    )
    if tuple(found) == unswapped and any(c < 0 for _, _, c in ends):
        return (
            ": a negative coefficient turns a range around (the top of the range gives "
            "the smallest value)"
        )
    counts = Counter(leaf.position for leaf in expr.leaves() if isinstance(leaf, AffineDimExpr))
    if any(count > 1 for count in counts.values()):
        return (
            ": a dimension that appears twice is one loop index, not two independent ones; "
            "the terms of the same dimension add up first (simplify() collects them)"
        )
    return ""


def student_bounds(impl, expr: AffineExpr, box) -> tuple[int, int]:
    what = describe_call("expr_bounds", str(expr), box)
    with library_footprint_refused():
        found = impl.expr_bounds(expr, box)
    expect_instance(what, found, (tuple, list), "a (smallest, largest) pair")
    expect_equal(f"len({what})", len(found), 2)
    expected = brute_force_bounds(expr, box)
    if tuple(found) != expected:
        raise GradingFailure(
            f"{what}: expected {expected}, found {tuple(found)}{bounds_hint(expr, box, found)}"
        )
    return found


BOUNDS_EXAMPLES = [
    ("d0", 1, [(3, 7)]),
    ("5", 1, [(0, 9)]),
    ("d0 * 2 + d1", 2, [(4, 7), (0, 2)]),
    ("-d0 + 7", 1, [(0, 3)]),
    ("d0 * -2 + d1 * 3 - 1", 2, [(1, 4), (-2, 2)]),
    ("d0 - d0 + d1", 2, [(0, 5), (2, 3)]),  # simplify first, or d0 - d0 spans -5..5
    ("2 * d0 + d0 - d1 * 2 + d1", 2, [(1, 2), (0, 3)]),
]


@task02_3
@pytest.mark.parametrize("text, num_dims, box", BOUNDS_EXAMPLES)
def test_expr_bounds_examples(impl, text, num_dims, box):
    student_bounds(impl, parse_affine_expr(text, num_dims, 0), box)


@task02_3
@pytest.mark.parametrize("text", ["d0 floordiv 2", "d0 mod 4", "d0 ceildiv 3", "d0 + s0"])
def test_expr_bounds_rejects_what_is_not_a_sum(impl, text):
    expr = parse_affine_expr(text, 1, 1)
    what = describe_call("expr_bounds", text, [(0, 7)])
    try:
        with library_footprint_refused():
            found = impl.expr_bounds(expr, [(0, 7)])
    except ValueError:
        return
    except NotImplementedError:
        raise
    except Exception as error:
        raise GradingFailure(
            f"{what}: expected ValueError, found {type(error).__name__}: {error}"
        ) from None
    raise GradingFailure(f"{what}: expected ValueError, found {found!r}")


def linear_exprs(num_dims: int) -> st.SearchStrategy[AffineExpr]:
    """Sums of dimensions times constants, in any tree shape, dimensions repeating."""
    leaves = st.one_of(
        st.builds(dim, st.integers(0, num_dims - 1)), st.builds(const, st.integers(-5, 5))
    )

    def extend(children: st.SearchStrategy[AffineExpr]) -> st.SearchStrategy[AffineExpr]:
        return st.one_of(
            st.builds(lambda a, b: a + b, children, children),
            st.builds(lambda a, b: a - b, children, children),
            st.builds(lambda a, k: a * k, children, st.integers(-3, 3)),
        )

    return st.recursive(leaves, extend, max_leaves=6)


@st.composite
def exprs_and_boxes(draw: st.DrawFn) -> tuple[AffineExpr, list[tuple[int, int]]]:
    num_dims = draw(st.integers(1, 3))
    expr = draw(linear_exprs(num_dims))
    first = st.integers(-6, 6)
    box = [
        (lo, lo + draw(st.integers(0, 4)))
        for lo in draw(st.lists(first, min_size=num_dims, max_size=num_dims))
    ]
    return expr, box


@task02_3
def test_expr_bounds_on_random_sums(impl):
    student_bounds(impl, dim(0), [(0, 1)])  # a stub stops here, before the random cases

    @GRADED
    @given(case=exprs_and_boxes())
    def check(case):
        student_bounds(impl, *case)

    check()


def clamp(lowest: int, highest: int, extent: int) -> tuple[int, int]:
    """A range cut to the operand ``0 .. extent - 1``, as tiling cuts it."""
    return max(lowest, 0), min(highest, extent - 1)


def check_tile_footprint(impl, indexing_map, offsets, sizes, operand_shape=None) -> None:
    """The student's slice against the brute force and the library, result by result."""
    what = describe_call("tile_footprint", str(indexing_map), offsets, sizes)
    with library_footprint_refused():
        if operand_shape is not None:
            what = what[:-1] + f", operand_shape={list(operand_shape)})"
            found = impl.tile_footprint(indexing_map, offsets, sizes, operand_shape)
        else:
            found = impl.tile_footprint(indexing_map, offsets, sizes)
    expect_instance(what, found, (tuple, list), "an (offsets, sizes) pair")
    expect_equal(f"len({what})", len(found), 2)
    found_offsets, found_sizes = (tuple(part) for part in found)
    count = indexing_map.num_results
    expect_equal(f"number of offsets from {what} (one per map result)", len(found_offsets), count)
    expect_equal(f"number of sizes from {what} (one per map result)", len(found_sizes), count)
    box = [(offset, offset + size - 1) for offset, size in zip(offsets, sizes, strict=True)]
    library = indexing_map.tile_footprint(offsets, sizes)
    for position, result in enumerate(indexing_map.results):
        lowest, highest = brute_force_bounds(result, box)
        assert (lowest, highest - lowest + 1) == (
            library.offsets[position],
            library.sizes[position],
        )
        reach = f"result {position} ({result}) reaches {lowest}..{highest} over the tile"
        if operand_shape is not None:
            lowest, highest = clamp(lowest, highest, operand_shape[position])
            reach += f", {lowest}..{highest} inside the operand"
        wanted = (lowest, highest - lowest + 1)
        got = (found_offsets[position], found_sizes[position])
        if got != wanted:
            hint = ""
            if got == (wanted[0], wanted[1] - 1):
                hint = f": the range {lowest}..{highest} holds both ends"
            elif got[0] < 0:
                hint = ": the operand has no element below index 0"
            elif operand_shape is not None and got[0] + got[1] > operand_shape[position]:
                hint = f": the operand ends at index {operand_shape[position] - 1}"
            raise GradingFailure(
                f"{what}: {reach}, so expected offset {wanted[0]} and size {wanted[1]}, "
                f"found offset {got[0]} and size {got[1]}{hint}"
            )


FOOTPRINT_EXAMPLES = [
    # (map, offsets, sizes): matmul's three operands for one 4x4x6 tile.
    ("(m, n, k) -> (m, k)", [4, 8, 0], [4, 4, 6]),
    ("(m, n, k) -> (k, n)", [4, 8, 0], [4, 4, 6]),
    ("(m, n, k) -> (m, n)", [4, 8, 0], [4, 4, 6]),
    ("(i, j) -> (j, i)", [2, 6], [2, 3]),  # a transpose
    ("(i, j) -> (0, j)", [3, 4], [2, 4]),  # a broadcast along a size-1 dimension
    ("(i, j) -> (i)", [2, 0], [3, 10]),  # the output of a row reduction
    # conv2d's input, strided, then dilated.
    ("(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow * 2 + kw, c)",
     [0, 2, 0, 0, 0, 0, 0], [1, 2, 3, 4, 3, 3, 3]),
    ("(n, oh, ow, f, kh, kw, c) -> (n, oh + kh * 2, ow + kw * 2, c)",
     [1, 0, 4, 0, 0, 0, 0], [1, 4, 4, 8, 3, 3, 8]),
    ("(i) -> (-i + 9)", [4], [3]),  # reads backwards
    ("(i, j) -> (i, i)", [1, 0], [3, 5]),  # the diagonal
]  # fmt: skip


@task02_3
@pytest.mark.parametrize("text, offsets, sizes", FOOTPRINT_EXAMPLES)
def test_tile_footprint_examples(impl, text, offsets, sizes):
    check_tile_footprint(impl, parse_affine_map(text), offsets, sizes)


PARTIAL_TILES = [
    # A strided conv's input rows, 6 output rows in tiles of 4: the second tile is cut.
    ("(oh, kh) -> (oh * 2 + kh)", [4, 0], [4, 3], [13]),
    # matmul's A, 10 rows in tiles of 4: the last tile runs 8..11 and is cut at 9.
    ("(m, n, k) -> (m, k)", [8, 0, 0], [4, 4, 6], [10, 6]),
    # Reading backwards from 9: the tile 8..11 would reach -2.
    ("(i) -> (-i + 9)", [8], [4], [10]),
]


@task02_3
@pytest.mark.parametrize("text, offsets, sizes, shape", PARTIAL_TILES)
def test_tile_footprint_clamps_partial_tiles(impl, text, offsets, sizes, shape):
    check_tile_footprint(impl, parse_affine_map(text), offsets, sizes, shape)


@st.composite
def maps_and_tiles(draw: st.DrawFn) -> tuple[AffineMap, list, list, list | None]:
    """A map whose results stay inside its operand over the whole loop nest, one tile
    that starts inside the loops (and may run past their end), and maybe the shape."""
    num_dims = draw(st.integers(1, 4))
    loops = draw(st.lists(st.integers(1, 8), min_size=num_dims, max_size=num_dims))
    results = draw(st.lists(linear_exprs(num_dims), min_size=1, max_size=3))
    whole = [(0, size - 1) for size in loops]
    shifted, shape = [], []
    for result in results:  # move each result so that it starts at 0 over the loops
        lowest, highest = brute_force_bounds(result, whole)
        shifted.append(result - lowest)
        shape.append(highest - lowest + 1)
    offsets = [draw(st.integers(0, size - 1)) for size in loops]
    sizes = [draw(st.integers(1, size)) for size in loops]
    clamped = draw(st.booleans())
    return AffineMap(num_dims, 0, tuple(shifted)), offsets, sizes, shape if clamped else None


@task02_3
def test_tile_footprint_on_random_maps_and_tiles(impl):
    check_tile_footprint(impl, AffineMap.identity(1), [0], [1])  # a stub stops here

    @GRADED
    @given(case=maps_and_tiles())
    def check(case):
        check_tile_footprint(impl, *case)

    check()


# == Task 02.4: a tiling under a traffic budget ============================================
CONV_TEXT = """
func.func @conv(%in: tensor<1x34x34x32xf32>, %w: tensor<3x3x32x64xf32>,
                %out: tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%in, %w : tensor<1x34x34x32xf32>, tensor<3x3x32x64xf32>)
                                outs(%out : tensor<1x32x32x64xf32>) -> tensor<1x32x32x64xf32>
  return %0 : tensor<1x32x32x64xf32>
}"""
TILE_BYTES = 48 * 1024
TRAFFIC_BUDGET = 1_800_000
TILED = {1: "th", 2: "tw", 3: "tf"}  # loop position -> the name of its tile size


def the_conv() -> Conv2DNhwcHwcfOp:
    """The convolution of Task 02.4, parsed and verified by the real library."""
    return next(op for op in parse(CONV_TEXT).walk() if isinstance(op, Conv2DNhwcHwcfOp))


def tiles_along(size: int, tile: int) -> list[tuple[int, int, int]]:
    """``(offset, extent, how many)`` of the tiles along one loop: the full ones (counted
    once, at their first offset), then the cut one."""
    full, rest = divmod(size, tile)
    groups = [(0, tile, full)] if full else []
    return groups + ([(full * tile, rest, 1)] if rest else [])


def operand_bytes(op: Conv2DNhwcHwcfOp, offsets, sizes) -> list[int]:
    """The bytes of each operand's footprint for one tile, cut to the operand."""
    found = []
    for indexing_map, value in zip(op.indexing_maps(), op.operands, strict=True):
        footprint = indexing_map.tile_footprint(offsets, sizes)
        shape = value.type.shape
        elements = 1
        for offset, size, extent in zip(footprint.offsets, footprint.sizes, shape, strict=True):
            elements *= min(offset + size, extent) - max(offset, 0)
        found.append(elements * 4)  # f32
    return found


@task02_4
def test_conv_tile_fits_and_stays_within_the_traffic_budget(impl):
    found = impl.conv_tile()
    what = "conv_tile()"
    expect_instance(what, found, (tuple, list), "a (th, tw, tf) tuple")
    expect_equal(f"len({what})", len(found), 3)
    op = the_conv()
    loops = op.static_loop_sizes()
    for (position, name), value in zip(TILED.items(), found, strict=True):
        if not isinstance(value, Integral) or isinstance(value, bool):
            raise GradingFailure(f"{what}: expected {name} to be an int, found {value!r}")
        if not 1 <= value <= loops[position]:
            raise GradingFailure(
                f"{what}: expected 1 <= {name} <= {loops[position]}, found {value}"
            )
    tile = [int(value) for value in found]
    full = list(loops)
    for position, size in zip(TILED, tile, strict=True):
        full[position] = size
    per_tile = operand_bytes(op, [0] * 7, full)
    if sum(per_tile) > TILE_BYTES:
        raise GradingFailure(
            f"{what} = {tuple(tile)}: a full tile brings {sum(per_tile):,} bytes (input window "
            f"{per_tile[0]:,}, filter slice {per_tile[1]:,}, output tile {per_tile[2]:,}), "
            f"more than the {TILE_BYTES:,} bytes a tile may use"
        )
    traffic, tiles = [0, 0, 0], 0
    # The input is exactly as large as the windows need, so no window reaches past it:
    # the tiles of one group (same extents) all bring the same bytes.
    groups = [tiles_along(loops[p], size) for p, size in zip(TILED, tile, strict=True)]
    for group in itertools.product(*groups):
        offsets, sizes = [0] * 7, list(loops)
        count = 1
        for position, (offset, extent, how_many) in zip(TILED, group, strict=True):
            offsets[position], sizes[position] = offset, extent
            count *= how_many
        tiles += count
        for number, size in enumerate(operand_bytes(op, offsets, sizes)):
            traffic[number] += count * size
    total = sum(traffic)
    if total > TRAFFIC_BUDGET:
        spatial = math.ceil(loops[1] / tile[0]) * math.ceil(loops[2] / tile[1])
        groups_of_f = math.ceil(loops[3] / tile[2])
        raise GradingFailure(
            f"{what} = {tuple(tile)}: {tiles} tiles ({spatial} in space x {groups_of_f} "
            f"groups of output channels) bring {total:,} bytes, over the budget of "
            f"{TRAFFIC_BUDGET:,}: input windows {traffic[0]:,} (the input is "
            f"{operand_bytes(op, [0] * 7, list(loops))[0]:,}), filter slices {traffic[1]:,} "
            f"(the filter is {operand_bytes(op, [0] * 7, list(loops))[1]:,}), output "
            f"{traffic[2]:,}. Which operand is brought again and again, and what decides "
            "how often?"
        )

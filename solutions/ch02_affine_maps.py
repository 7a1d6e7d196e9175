"""Chapter 02: affine and indexing maps (reference answers).

An affine map sends the loop indices of an iteration space to the indices of an
array. `linalg.generic` gives each operand one such *indexing map*, and every later
stage of the compiler reads them: fusion composes them (Task 02.1), a convolution is
little more than three of them (Task 02.2), and tiling asks for the slice of each
operand that one tile of the loops touches, its *footprint* (Task 02.3).

The functions below build on `tinycomp.affine`: `AffineMap(num_dims, num_symbols,
results)`, the expressions `dim(i)`, `sym(j)`, `const(c)` with `+ - * // %`, and
`parse_affine_map("(d0, d1) -> (d1, d0)")`. The two worked examples at the top show
the style.

Fill in each TODO in `exercises/ch02_affine_maps.py`, then run `tinycomp grade ch02`.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    dim,
    parse_affine_map,
    sym,
)

__all__ = [
    "compose",
    "conv2d_nhwc_hwcf_iterator_types",
    "conv2d_nhwc_hwcf_maps",
    "expr_bounds",
    "matmul_iterator_types",
    "matmul_maps",
    "tile_footprint",
]


# -- worked examples: the maps of linalg.matmul ------------------------------------------
def matmul_maps() -> list[AffineMap]:
    """The indexing maps of `C[m, n] += A[m, k] * B[k, n]`: A, B, then C.

    The loops are `(m, n, k)`, which the maps call `(d0, d1, d2)`.

    >>> [str(m) for m in matmul_maps()]
    ['(d0, d1, d2) -> (d0, d2)', '(d0, d1, d2) -> (d2, d1)', '(d0, d1, d2) -> (d0, d1)']
    """
    return [
        parse_affine_map("(m, n, k) -> (m, k)"),  # A is read at row m, column k
        parse_affine_map("(m, n, k) -> (k, n)"),  # B at row k, column n
        parse_affine_map("(m, n, k) -> (m, n)"),  # C is written at (m, n)
    ]


def matmul_iterator_types() -> list[str]:
    """One kind per loop: `m` and `n` are parallel, `k` is a reduction (C sums over it).

    >>> matmul_iterator_types()
    ['parallel', 'parallel', 'reduction']
    """
    return ["parallel", "parallel", "reduction"]


# -- Task 02.1 ---------------------------------------------------------------------------
def compose(f: AffineMap, g: AffineMap) -> AffineMap:
    """`f ∘ g`, the map `x -> f(g(x))`, with MLIR's meaning (`AffineMap::compose`).

    The results of `g` are substituted for the dimensions of `f`: `f`'s `d_i` becomes
    `g`'s result `i`. The composed map takes `g`'s dimensions. Symbols are kept, all
    of them: `f`'s symbols come first and keep their numbers, then `g`'s, renumbered
    after them (`g`'s `s0` becomes `s<f.num_symbols>`). Return simplified results.
    Raise `ValueError` unless `g` has one result per dimension of `f`.

    Do not call `AffineMap.compose`: writing it is the task. Useful:
    `AffineExpr.replace_dims_and_symbols(dims, symbols)` and `AffineExpr.simplify()`.

    >>> f = parse_affine_map("(d0, d1) -> (d1, d0 + 1)")
    >>> g = parse_affine_map("(d0) -> (d0 * 2, d0 + 3)")
    >>> print(compose(f, g))
    (d0) -> (d0 + 3, d0 * 2 + 1)
    >>> print(compose(parse_affine_map("(d0)[s0] -> (d0 + s0)"),
    ...               parse_affine_map("(d0)[s0] -> (d0 * 4 + s0)")))
    (d0)[s0, s1] -> (d0 * 4 + s0 + s1)
    """
    if f.num_dims != g.num_results:
        raise ValueError(
            f"expected g to have {f.num_dims} results (one per dimension of f = {f}), "
            f"got {g.num_results} (g = {g})"
        )
    # 1. Renumber g's symbols so that they come after f's.
    g_dims = [dim(i) for i in range(g.num_dims)]
    g_symbols = [sym(f.num_symbols + j) for j in range(g.num_symbols)]
    inner = [result.replace_dims_and_symbols(g_dims, g_symbols) for result in g.results]
    # 2. Substitute g's results for f's dimensions; f's symbols stay where they are.
    f_symbols = [sym(j) for j in range(f.num_symbols)]
    results = [result.replace_dims_and_symbols(inner, f_symbols) for result in f.results]
    # 3. Simplify, so the map prints in canonical form.
    simplified = tuple(result.simplify() for result in results)
    return AffineMap(g.num_dims, f.num_symbols + g.num_symbols, simplified)


# -- Task 02.2 ---------------------------------------------------------------------------
def conv2d_nhwc_hwcf_maps(
    strides: Sequence[int] = (1, 1), dilations: Sequence[int] = (1, 1)
) -> list[AffineMap]:
    """The indexing maps of `linalg.conv_2d_nhwc_hwcf`: input, filter, output.

    The loops are `(n, oh, ow, f, kh, kw, c)`, the maps' `(d0, ..., d6)`: batch,
    output row, output column, output channel, filter row, filter column, input
    channel. With strides `(sh, sw)` and dilations `(dh, dw)`:

        output[n, oh, ow, f] += input[n, oh * sh + kh * dh, ow * sw + kw * dw, c]
                                * filter[kh, kw, c, f]

    Return the maps in that order: input, filter, output. (`simplify()` makes them print
    as `mlir-opt` prints them: `d4`, not `d4 * 1`.)

    >>> print(conv2d_nhwc_hwcf_maps(strides=(2, 2))[0])
    (d0, d1, d2, d3, d4, d5, d6) -> (d0, d1 * 2 + d4, d2 * 2 + d5, d6)
    """
    sh, sw = strides
    dh, dw = dilations
    loops = "(n, oh, ow, f, kh, kw, c)"
    maps = [
        parse_affine_map(f"{loops} -> (n, oh * {sh} + kh * {dh}, ow * {sw} + kw * {dw}, c)"),
        parse_affine_map(f"{loops} -> (kh, kw, c, f)"),
        parse_affine_map(f"{loops} -> (n, oh, ow, f)"),
    ]
    return [indexing_map.simplify() for indexing_map in maps]


def conv2d_nhwc_hwcf_iterator_types() -> list[str]:
    """`"parallel"` or `"reduction"` for each loop `(n, oh, ow, f, kh, kw, c)`.

    A loop is a reduction when the output does not depend on it: many of its
    iterations add into the same output element.

    >>> conv2d_nhwc_hwcf_iterator_types()[:2]
    ['parallel', 'parallel']
    """
    return ["parallel"] * 4 + ["reduction"] * 3


# -- Task 02.3 ---------------------------------------------------------------------------
def expr_bounds(expr: AffineExpr, box: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The smallest and largest value of `expr` while each `d_i` runs over `box[i]`.

    `box[i] = (first, last)` gives the first and the last value of `d_i` (both
    included). `expr` is a sum of constants and dimensions times constants (what
    indexing maps are made of: `d0`, `0`, `d1 * 2 + d4`, `-d0 + 7`); raise
    `ValueError` for anything else (symbols, `floordiv`, `ceildiv`, `mod`).

    Work on `expr.simplify()`: then each dimension appears once, and interval
    arithmetic on the tree is exact. (On `d0 - d0` it would not be.)

    >>> from tinycomp.affine import dim
    >>> expr_bounds(dim(0) * 2 + dim(1), [(4, 7), (0, 2)])
    (8, 16)
    >>> expr_bounds(-dim(0) + 7, [(0, 3)])
    (4, 7)
    """
    return _interval(expr.simplify(), box)


def _interval(expr: AffineExpr, box: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """Interval arithmetic on the tree: `(lowest, highest)` of `expr` over `box`."""
    if isinstance(expr, AffineConstantExpr):
        return expr.value, expr.value
    if isinstance(expr, AffineDimExpr):
        if expr.position >= len(box):
            raise ValueError(f"expected a range for d{expr.position}, got {len(box)} ranges")
        return box[expr.position]
    if isinstance(expr, AffineBinaryExpr) and expr.kind == "add":
        lhs_low, lhs_high = _interval(expr.lhs, box)
        rhs_low, rhs_high = _interval(expr.rhs, box)
        return lhs_low + rhs_low, lhs_high + rhs_high
    if isinstance(expr, AffineBinaryExpr) and expr.kind == "mul":
        if isinstance(expr.rhs, AffineConstantExpr):  # simplify puts the constant right
            factor, term = expr.rhs.value, expr.lhs
        elif isinstance(expr.lhs, AffineConstantExpr):
            factor, term = expr.lhs.value, expr.rhs
        else:
            raise ValueError(f"expected a dimension times a constant, got '{expr}'")
        low, high = _interval(term, box)
        # A negative factor turns the interval around: -1 * [2, 5] is [-5, -2].
        return (factor * low, factor * high) if factor >= 0 else (factor * high, factor * low)
    raise ValueError(f"expected a sum of dimensions times constants, got '{expr}'")


def tile_footprint(
    indexing_map: AffineMap,
    offsets: Sequence[int],
    sizes: Sequence[int],
    operand_shape: Sequence[int] | None = None,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The slice `(offsets, sizes)` of an operand that a tile of the loops touches.

    The tile runs `d_i` over `offsets[i], ..., offsets[i] + sizes[i] - 1`. For each
    result of `indexing_map` the slice starts at the result's smallest value and
    ends at its largest (use `expr_bounds`): `offset = lowest`,
    `size = highest - lowest + 1`. The map has no symbols.

    A tile at the edge of the loops may reach past the end of the operand (tiling
    does that when the tile size does not divide the loop). With `operand_shape`,
    clamp each range to the operand, as MLIR's tiling does with `affine.min`:
    `offset = max(lowest, 0)` and `size = min(highest + 1, operand_shape[i]) - offset`.

    >>> conv_rows = parse_affine_map("(oh, kh) -> (oh * 2 + kh)")
    >>> tile_footprint(conv_rows, offsets=[4, 0], sizes=[2, 3])
    ((8,), (5,))
    >>> tile_footprint(conv_rows, offsets=[4, 0], sizes=[2, 3], operand_shape=[12])
    ((8,), (4,))
    """
    if indexing_map.num_symbols:
        raise ValueError(f"expected a map without symbols, got {indexing_map}")
    if not len(offsets) == len(sizes) == indexing_map.num_dims:
        raise ValueError(
            f"expected {indexing_map.num_dims} offsets and sizes (one per loop), "
            f"got {len(offsets)} and {len(sizes)}"
        )
    box = [(offset, offset + size - 1) for offset, size in zip(offsets, sizes, strict=True)]
    slice_offsets: list[int] = []
    slice_sizes: list[int] = []
    for position, result in enumerate(indexing_map.results):
        lowest, highest = expr_bounds(result, box)
        if operand_shape is not None:
            lowest, highest = max(lowest, 0), min(highest, operand_shape[position] - 1)
        slice_offsets.append(lowest)
        slice_sizes.append(highest - lowest + 1)
    return tuple(slice_offsets), tuple(slice_sizes)

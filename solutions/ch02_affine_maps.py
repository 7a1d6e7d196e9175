"""Chapter 02: affine and indexing maps (reference answers).

An affine map sends the loop indices of an iteration space to the indices of an
array. `linalg.generic` gives each operand one such *indexing map*, and every later
stage of the compiler reads them: fusion composes them (Task 02.1), a convolution is
little more than three of them (Task 02.2), and tiling asks for the slice of each
operand that one tile of the loops touches, its *footprint* (Task 02.3). Task 02.4 is
an open one: tile a convolution so that its DRAM traffic stays under a budget.

The functions below build on `tinycomp.affine`: `AffineMap(num_dims, num_symbols,
results)`, the expressions `dim(i)`, `sym(j)`, `const(c)` with `+ - * // %`, and
`parse_affine_map("(d0, d1) -> (d1, d0)")`. The two worked examples at the top show
the style. Each task's docstring is its contract and names the section of
`chapters/02_affine_maps.ipynb` that teaches it. The grader refuses answers that call
the library's own version of the same thing (`AffineMap.compose`, the maps of
`linalg.conv_2d_nhwc_hwcf`, `AffineMap.tile_footprint`).

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
    "conv_tile",
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

    Contract:

    * `(f ∘ g)(x, symbols) == f(g(x, g_symbols), f_symbols)` at every point;
    * the result has `g`'s dimensions, `f`'s results, and the symbols of both: `f`'s
      first, keeping their numbers, then `g`'s, numbered after them (`g`'s `s0` becomes
      `s<f.num_symbols>`);
    * `ValueError` unless `g` has one result per dimension of `f`.

    Results in any form are accepted (the grader compares them after `simplify()`).
    Worked examples, the second from MLIR's documentation; taught in "Composition":

    >>> f = parse_affine_map("(d0, d1) -> (d1, d0 + 1)")
    >>> g = parse_affine_map("(d0) -> (d0 * 2, d0 + 3)")
    >>> print(compose(f, g).simplify())
    (d0) -> (d0 + 3, d0 * 2 + 1)
    >>> print(compose(parse_affine_map("(d0)[s0] -> (d0 + s0)"),
    ...               parse_affine_map("(d0)[s0] -> (d0 * 4 + s0)")).simplify())
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

    Contract: the loops are `(n, oh, ow, f, kh, kw, c)`, the maps' `(d0, ..., d6)`:
    batch, output row, output column, output channel, filter row, filter column, input
    channel. With strides `(sh, sw)` and dilations `(dh, dw)` the op computes

        output[n, oh, ow, f] += input[n, oh * sh + kh * dh, ow * sw + kw * dw, c]
                                * filter[kh, kw, c, f]

    Return three maps with 7 dimensions and 4 results each, in that order. Any form of
    the right maps is accepted. Taught in "A strided convolution"; the grader also runs
    a `linalg.generic` built from your maps against numpy.

    >>> print(conv2d_nhwc_hwcf_maps(strides=(2, 2))[0].simplify())
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

    Contract: seven strings, one per loop, in loop order, with the meaning of "Parallel
    or reduction" in the chapter (section 3).

    >>> conv2d_nhwc_hwcf_iterator_types()[:2]
    ['parallel', 'parallel']
    """
    return ["parallel"] * 4 + ["reduction"] * 3


# -- Task 02.3 ---------------------------------------------------------------------------
def expr_bounds(expr: AffineExpr, box: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The smallest and the largest value of `expr` while each `d_i` runs over `box[i]`.

    Contract: `box[i] = (first, last)` gives the first and the last value of `d_i`, both
    included. `expr` is a sum of constants and dimensions times constants, in any shape
    of tree, a dimension possibly appearing more than once (`d0`, `0`, `d1 * 2 + d4`,
    `-d0 + 7`, `d0 - d0 + d1`); the answer is exact, the values some point of the box
    really reaches. Raise `ValueError` for anything else (symbols, `floordiv`,
    `ceildiv`, `mod`). Taught in "Footprints" (section 4) and "Simplification".

    >>> from tinycomp.affine import dim
    >>> expr_bounds(dim(0) * 2 + dim(1), [(4, 7), (0, 2)])
    (8, 16)
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
    """The slice `(offsets, sizes)` of an operand that one tile of the loops touches.

    Contract: the tile runs `d_i` over `offsets[i], ..., offsets[i] + sizes[i] - 1`;
    `indexing_map` has no symbols, and its results are what `expr_bounds` accepts. The
    slice is the smallest box of operand indices, one `(offset, size)` per result of the
    map, that holds every element the tile touches. With `operand_shape`, it is that box
    cut to the operand (`0 <= index < operand_shape[i]`), which is what MLIR's tiling
    takes at the edge of a loop whose tile size does not divide it.

    Taught in "Footprints" and "Tiles at the edge":

    >>> conv_rows = parse_affine_map("(oh, kh) -> (oh * 2 + kh)")
    >>> tile_footprint(conv_rows, offsets=[4, 0], sizes=[2, 3])
    ((8,), (5,))
    >>> tile_footprint(conv_rows, offsets=[4, 0], sizes=[4, 3], operand_shape=[12])
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


# -- Task 02.4 (open) --------------------------------------------------------------------
def conv_tile() -> tuple[int, int, int]:
    """Tile sizes `(th, tw, tf)` for the loops `oh, ow, f` of this convolution that keep
    every tile within 48 KiB and the whole run within 1,800,000 bytes of DRAM traffic:

        linalg.conv_2d_nhwc_hwcf ins(%in, %w : tensor<1x34x34x32xf32>, tensor<3x3x32x64xf32>)
                                 outs(%out : tensor<1x32x32x64xf32>)     (stride 1, 3 x 3)

    Contract (the model of "Footprints" and the tile explorer): the other loops, `n`,
    `kh`, `kw`, `c`, are not tiled. Each tile brings its footprint of each operand (its
    input window, its slice of the filter, its output tile) through DRAM once, and
    tiles share nothing with each other; a tile at the edge counts only what it
    touches. Then:

    * a full tile's footprints, input + filter + output in f32, fit in 49152 bytes;
    * the sum over all tiles of what they bring is at most 1,800,000 bytes;
    * `1 <= th, tw <= 32` and `1 <= tf <= 64`.

    Many tiles qualify; any of them passes. Worked example of the counting (not an
    answer): `(8, 8, 16)` needs 35,328 bytes per tile, but its 64 tiles bring 2,260,992
    bytes in all: over the budget.
    """
    # Every spatial tile brings the filter (72 KiB in all), and every channel group brings
    # its input windows again: the traffic is mostly filter, so the fewest spatial tiles
    # win. 11 x 11 pixels cover 32 x 32 in 3 x 3 tiles; 16 output channels (4 groups)
    # leave room for the window: 47,808 bytes per tile, 1,665,024 bytes in all.
    return 11, 11, 16

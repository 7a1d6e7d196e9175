"""Chapter 02: affine and indexing maps.

An affine map sends the loop indices of an iteration space to the indices of an
array. `linalg.generic` gives each operand one such *indexing map*, and every later
stage of the compiler reads them: fusion composes them (Task 02.1), a convolution is
little more than three of them (Task 02.2), and tiling asks for the slice of each
operand that one tile of the loops touches, its *footprint* (Task 02.3).

The functions below build on `tinycomp.affine`: `AffineMap(num_dims, num_symbols,
results)`, the expressions `dim(i)`, `sym(j)`, `const(c)` with `+ - * // %`, and
`parse_affine_map("(d0, d1) -> (d1, d0)")`. The two worked examples at the top show
the style.

Fill in each TODO, then run `tinycomp grade ch02`.
"""

from __future__ import annotations

from collections.abc import Sequence

# What your code will need: `dim`, `sym` and `simplify()` build maps (Tasks 02.1 and 02.2),
# the expression classes tell the nodes of a tree apart (Task 02.3). The stubs do not use
# them yet, hence the `noqa`.
from tinycomp.affine import (  # noqa: F401
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
    # TODO(Task 02.1): compose two affine maps by substitution
    raise NotImplementedError("Task 02.1: substitute the results of g for the dimensions of f")


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
    # TODO(Task 02.2): the indexing maps of a strided, dilated conv2d
    raise NotImplementedError(
        "Task 02.2: write the input, filter and output maps of conv_2d_nhwc_hwcf"
    )


def conv2d_nhwc_hwcf_iterator_types() -> list[str]:
    """`"parallel"` or `"reduction"` for each loop `(n, oh, ow, f, kh, kw, c)`.

    A loop is a reduction when the output does not depend on it: many of its
    iterations add into the same output element.

    >>> conv2d_nhwc_hwcf_iterator_types()[:2]
    ['parallel', 'parallel']
    """
    # TODO(Task 02.2): the indexing maps of a strided, dilated conv2d
    raise NotImplementedError("Task 02.2: say which loops are parallel and which are reductions")


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
    # TODO(Task 02.3): the footprint of a tile
    raise NotImplementedError("Task 02.3: find the smallest and largest value of expr over the box")


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
    # TODO(Task 02.3): the footprint of a tile
    raise NotImplementedError("Task 02.3: find the slice of the operand that the tile touches")

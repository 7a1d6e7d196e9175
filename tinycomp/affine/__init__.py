"""Affine expressions, affine maps and integer sets, printed and parsed as MLIR text.

This package is the index arithmetic of tinycomp: ``linalg.generic`` indexing maps,
``affine.apply``/``affine.for`` bounds, ``affine.if`` conditions, and the footprint
computations that tiling uses to find operand slices.

>>> from tinycomp.affine import AffineMap, d, parse_affine_map
>>> m = parse_affine_map("(d0, d1) -> (d0 * 4 + d1)")
>>> m.evaluate([2, 3])
(11,)
>>> m.tile_footprint(offsets=[8, 0], sizes=[2, 4])
TileFootprint(offsets=(32,), sizes=(8,))
"""

from tinycomp.affine.expr import (
    AffineBinaryExpr,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineSymbolExpr,
    BinaryKind,
    ExprLike,
    as_expr,
    c,
    const,
    d,
    dim,
    s,
    sym,
)
from tinycomp.affine.footprint import Box, ValueRange, expr_range
from tinycomp.affine.integer_set import IntegerSet
from tinycomp.affine.lexer import AffineParseError
from tinycomp.affine.linear import LinearForm
from tinycomp.affine.map import AffineMap, TileFootprint
from tinycomp.affine.parser import parse_affine_expr, parse_affine_map, parse_integer_set
from tinycomp.affine.simplify import simplify_expr

__all__ = [
    "AffineBinaryExpr",
    "AffineConstantExpr",
    "AffineDimExpr",
    "AffineExpr",
    "AffineMap",
    "AffineParseError",
    "AffineSymbolExpr",
    "BinaryKind",
    "Box",
    "ExprLike",
    "IntegerSet",
    "LinearForm",
    "TileFootprint",
    "ValueRange",
    "as_expr",
    "c",
    "const",
    "d",
    "dim",
    "expr_range",
    "parse_affine_expr",
    "parse_affine_map",
    "parse_integer_set",
    "s",
    "simplify_expr",
    "sym",
]

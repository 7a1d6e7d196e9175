"""Affine maps: ``(d0, d1)[s0] -> (d0 + s0, d1)``, a function from indices to indices.

A map takes ``num_dims`` dimension values and ``num_symbols`` symbol values and
returns one value per result expression. ``linalg.generic`` gives each operand an
*indexing map* from the loop indices to the element it touches; fusion composes
those maps and tiling asks for their footprint over a tile.

>>> from tinycomp.affine import dim
>>> matmul_lhs = AffineMap(3, 0, (dim(0), dim(2)))  # (i, j, k) -> (i, k)
>>> print(matmul_lhs)
(d0, d1, d2) -> (d0, d2)
>>> matmul_lhs.evaluate([4, 5, 6])
(4, 6)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from tinycomp.affine.expr import AffineDimExpr, AffineExpr, ExprLike, as_expr, const, dim, sym
from tinycomp.affine.footprint import Box, expr_range
from tinycomp.affine.map_builders import MapBuilders
from tinycomp.affine.space import check_space, format_space


class TileFootprint(NamedTuple):
    """The slice of an operand a tile touches: one offset and one size per map result.

    >>> offsets, sizes = TileFootprint(offsets=(0, 64), sizes=(128, 32))
    >>> sizes
    (128, 32)
    """

    offsets: tuple[int, ...]
    sizes: tuple[int, ...]


@dataclass(frozen=True)
class AffineMap(MapBuilders):
    """A frozen affine map; results may be given as a list, and ints become constants.

    >>> AffineMap(2, 1, [dim(1), 0]).num_inputs
    3
    """

    num_dims: int
    """How many dimensions (``d0 ...``) the map takes."""
    num_symbols: int
    """How many symbols (``s0 ...``) the map takes."""
    results: tuple[AffineExpr, ...]
    """One expression per result."""

    def __post_init__(self) -> None:
        results = tuple(as_expr(result) for result in self.results)
        object.__setattr__(self, "results", results)  # frozen: set once, here
        check_space(results, self.num_dims, self.num_symbols)

    def __str__(self) -> str:
        header = format_space(self.num_dims, self.num_symbols)
        return f"{header} -> ({', '.join(str(result) for result in self.results)})"

    @property
    def num_inputs(self) -> int:
        """Dimensions plus symbols.

        >>> AffineMap(2, 1, ()).num_inputs
        3
        """
        return self.num_dims + self.num_symbols

    @property
    def num_results(self) -> int:
        """How many results the map has.

        >>> AffineMap(2, 0, (dim(1),)).num_results
        1
        """
        return len(self.results)

    def evaluate(self, dims: Sequence[int], symbols: Sequence[int] = ()) -> tuple[int, ...]:
        """Apply the map to one point.

        >>> AffineMap(2, 1, (dim(0) * 4 + sym(0), dim(1))).evaluate([1, 2], [3])
        (7, 2)
        """
        if len(dims) != self.num_dims or len(symbols) != self.num_symbols:
            raise ValueError(
                f"expected {self.num_dims} dims and {self.num_symbols} symbols, "
                f"got {len(dims)} and {len(symbols)}"
            )
        return tuple(result.evaluate(dims, symbols) for result in self.results)

    def compose(self, other: AffineMap) -> AffineMap:
        """``self ∘ other``: the results of ``other`` feed the dimensions of ``self``.

        The result takes ``other``'s dimensions and the symbols of both maps, those of
        ``self`` first; its results are simplified. Worked example (MLIR's own)::

            self:  (d0, d1)[s0, s1] -> (d0 + 1 + s1, d1 - 1 - s0)
            other: (d0)[s0] -> (d0 + s0, d0 - s0)
            other's s0 becomes s2 (after self's s0, s1); put its results in for d0, d1:
                   (d0 + s2) + 1 + s1,  (d0 - s2) - 1 - s0
            result: (d0)[s0, s1, s2] -> (d0 + s1 + s2 + 1, d0 - s0 - s2 - 1)

        >>> from tinycomp.affine import parse_affine_map
        >>> a = parse_affine_map("(d0, d1)[s0, s1] -> (d0 + 1 + s1, d1 - 1 - s0)")
        >>> print(a.compose(parse_affine_map("(d0)[s0] -> (d0 + s0, d0 - s0)")))
        (d0)[s0, s1, s2] -> (d0 + s1 + s2 + 1, d0 - s0 - s2 - 1)
        """
        if self.num_dims != other.num_results:
            raise ValueError(
                f"expected a map with {self.num_dims} results to compose with, "
                f"got {other.num_results} results"
            )
        own_symbols = [sym(i) for i in range(self.num_symbols)]
        shifted = [sym(self.num_symbols + i) for i in range(other.num_symbols)]
        other_dims = [dim(i) for i in range(other.num_dims)]
        inner = [r.replace_dims_and_symbols(other_dims, shifted) for r in other.results]
        results = [r.replace_dims_and_symbols(inner, own_symbols).simplify() for r in self.results]
        return AffineMap(other.num_dims, self.num_symbols + other.num_symbols, tuple(results))

    def simplify(self) -> AffineMap:
        """Simplify every result (see ``tinycomp.affine.simplify``).

        >>> print(AffineMap(2, 0, (dim(0) * 4 + dim(1) * 0,)).simplify())
        (d0, d1) -> (d0 * 4)
        """
        return AffineMap(self.num_dims, self.num_symbols, tuple(r.simplify() for r in self.results))

    def used_dims(self) -> tuple[int, ...]:
        """Positions of the dimensions some result uses, sorted.

        >>> AffineMap(3, 0, (dim(2), dim(0) + dim(2))).used_dims()
        (0, 2)
        """
        return tuple(sorted({p for result in self.results for p in result.used_dims()}))

    def is_function_of_dim(self, position: int) -> bool:
        """True when some result uses ``d<position>`` (a syntactic test).

        >>> AffineMap(2, 0, (dim(1),)).is_function_of_dim(0)
        False
        """
        return position in self.used_dims()

    def is_identity(self) -> bool:
        """True for ``(d0, ..., dn-1) -> (d0, ..., dn-1)`` (symbols are ignored, as in MLIR).

        >>> AffineMap.identity(2).is_identity(), AffineMap(2, 0, (dim(1), dim(0))).is_identity()
        (True, False)
        """
        expected = tuple(dim(i) for i in range(self.num_dims))
        return self.results == expected

    def is_projected_permutation(self, allow_zero_in_results: bool = False) -> bool:
        """True when every result is a different dimension and there are no symbols.

        ``allow_zero_in_results`` also accepts the constant 0 (a broadcast dimension).

        >>> AffineMap(3, 0, (dim(2), dim(0))).is_projected_permutation()
        True
        """
        if self.num_symbols > 0:
            return False
        seen: set[AffineExpr] = set()
        for result in self.results:
            if allow_zero_in_results and result == const(0):
                continue
            if not isinstance(result, AffineDimExpr) or result in seen:
                return False
            seen.add(result)
        return True

    def is_permutation(self) -> bool:
        """A projected permutation that uses every dimension exactly once.

        >>> AffineMap(2, 0, (dim(1), dim(0))).is_permutation()
        True
        """
        return self.num_dims == self.num_results and self.is_projected_permutation()

    def permutation_vector(self) -> tuple[int, ...]:
        """The dimension position of each result of a projected permutation.

        >>> AffineMap(3, 0, (dim(2), dim(0))).permutation_vector()
        (2, 0)
        """
        if not self.is_projected_permutation():
            raise ValueError(f"expected a projected permutation, got {self}")
        return tuple(r.position for r in self.results if isinstance(r, AffineDimExpr))

    get_permutation = permutation_vector  # the same query under its other common name

    def inverse_permutation(self) -> AffineMap:
        """The permutation ``q`` with ``self.compose(q)`` and ``q.compose(self)`` the identity.

        >>> print(AffineMap.from_permutation([1, 2, 0]).inverse_permutation())
        (d0, d1, d2) -> (d2, d0, d1)
        """
        if not self.is_permutation():
            raise ValueError(f"expected a permutation, got {self}")
        inverse: list[AffineExpr] = [const(0)] * self.num_dims
        for i, position in enumerate(self.permutation_vector()):
            inverse[position] = dim(i)  # result i reads d<position>, so undo that
        return AffineMap(self.num_dims, 0, tuple(inverse))

    def sub_map(self, result_positions: Iterable[int]) -> AffineMap:
        """Only the results at ``result_positions``, in that order.

        >>> print(AffineMap(2, 0, (dim(0), dim(1), dim(0) + dim(1))).sub_map([2, 0]))
        (d0, d1) -> (d0 + d1, d0)
        """
        picked = []
        for position in result_positions:
            if not 0 <= position < self.num_results:
                raise ValueError(
                    f"expected a result position in [0, {self.num_results}), got {position}"
                )
            picked.append(self.results[position])
        return AffineMap(self.num_dims, self.num_symbols, tuple(picked))

    def drop_results(self, result_positions: Iterable[int]) -> AffineMap:
        """All results except those at ``result_positions``.

        >>> print(AffineMap(2, 0, (dim(0), dim(1))).drop_results([0]))
        (d0, d1) -> (d1)
        """
        dropped = set(result_positions)
        for position in dropped:
            if not 0 <= position < self.num_results:
                raise ValueError(
                    f"expected a result position in [0, {self.num_results}), got {position}"
                )
        return self.sub_map(i for i in range(self.num_results) if i not in dropped)

    def replace_dims_and_symbols(
        self,
        dims: Sequence[ExprLike],
        symbols: Sequence[ExprLike],
        num_result_dims: int,
        num_result_symbols: int,
    ) -> AffineMap:
        """Substitute in every result; the new map has the given dim and symbol counts.

        >>> m = AffineMap(2, 0, (dim(0) + dim(1),))
        >>> print(m.replace_dims_and_symbols([dim(0), sym(0)], [], 1, 1))
        (d0)[s0] -> (d0 + s0)
        """
        dim_exprs = [as_expr(e) for e in dims]
        symbol_exprs = [as_expr(e) for e in symbols]
        results = tuple(r.replace_dims_and_symbols(dim_exprs, symbol_exprs) for r in self.results)
        return AffineMap(num_result_dims, num_result_symbols, results)

    def footprint(self, box: Box, symbols: Sequence[int] = ()) -> tuple[tuple[int, int], ...]:
        """The half-open range ``(lo, hi)`` each result reaches while ``di`` runs over ``box[i]``.

        ``box`` holds one half-open ``(lo, hi)`` per dimension. The ranges are exact for
        sums of independent terms (every projected permutation, every ``d0 * 4 + d1``);
        with divisions that share a dimension they are sound bounds
        (see ``tinycomp.affine.footprint``).

        >>> conv_input = AffineMap(2, 0, (dim(0) * 2 + dim(1),))  # (oh, kh) -> (oh*2 + kh)
        >>> conv_input.footprint([(0, 4), (0, 3)])
        ((0, 9),)
        """
        if len(box) != self.num_dims or len(symbols) != self.num_symbols:
            raise ValueError(
                f"expected {self.num_dims} ranges and {self.num_symbols} symbols, "
                f"got {len(box)} and {len(symbols)}"
            )
        ranges = [expr_range(result, box, symbols) for result in self.results]
        return tuple((r.lo, r.hi) for r in ranges)

    def tile_footprint(
        self, offsets: Sequence[int], sizes: Sequence[int], symbols: Sequence[int] = ()
    ) -> TileFootprint:
        """The operand slice (offsets, sizes) touched by the tile ``offsets[i] + [0, sizes[i])``.

        >>> matmul_rhs = AffineMap(3, 0, (dim(2), dim(1)))  # (i, j, k) -> (k, j)
        >>> matmul_rhs.tile_footprint(offsets=[32, 64, 0], sizes=[32, 32, 128])
        TileFootprint(offsets=(0, 64), sizes=(128, 32))
        """
        if len(offsets) != len(sizes):
            raise ValueError(
                f"expected as many sizes as offsets, got {len(sizes)} and {len(offsets)}"
            )
        box = [(offset, offset + size) for offset, size in zip(offsets, sizes, strict=True)]
        ranges = self.footprint(box, symbols)
        return TileFootprint(tuple(lo for lo, _ in ranges), tuple(hi - lo for lo, hi in ranges))

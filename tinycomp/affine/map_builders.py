"""Named constructors of ``AffineMap``: identities, permutations, constants.

``AffineMap`` inherits these class methods, so they read ``AffineMap.identity(3)``;
they live here only to keep ``map.py`` short. Each matches an MLIR builder
(``getMultiDimIdentityMap``, ``getPermutationMap``, ``getMinorIdentityMap``,
``getConstantMap``).

>>> from tinycomp.affine import AffineMap
>>> print(AffineMap.identity(2))
(d0, d1) -> (d0, d1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, TypeVar

from tinycomp.affine.expr import AffineExpr, const, dim

if TYPE_CHECKING:
    from tinycomp.affine.map import AffineMap

MapT = TypeVar("MapT", bound="AffineMap")


class MapBuilders:
    """Class methods that build common maps; ``AffineMap`` inherits them.

    >>> from tinycomp.affine import AffineMap
    >>> print(AffineMap.from_permutation([2, 0, 1]).compose(AffineMap.identity(3)))
    (d0, d1, d2) -> (d2, d0, d1)
    """

    @classmethod
    def identity(cls: type[MapT], num_dims: int) -> MapT:
        """``(d0, ..., dn-1) -> (d0, ..., dn-1)``.

        >>> from tinycomp.affine import AffineMap
        >>> print(AffineMap.identity(3))
        (d0, d1, d2) -> (d0, d1, d2)
        """
        return cls(num_dims, 0, tuple(dim(i) for i in range(num_dims)))

    @classmethod
    def from_permutation(cls: type[MapT], permutation: Sequence[int]) -> MapT:
        """The map whose result ``i`` is ``d<permutation[i]>``.

        >>> from tinycomp.affine import AffineMap
        >>> print(AffineMap.from_permutation([1, 0]))  # a transpose
        (d0, d1) -> (d1, d0)
        """
        if sorted(permutation) != list(range(len(permutation))):
            raise ValueError(
                f"expected a permutation of 0..{len(permutation) - 1}, got {list(permutation)}"
            )
        return cls(len(permutation), 0, tuple(dim(p) for p in permutation))

    @classmethod
    def minor_identity(cls: type[MapT], num_dims: int, num_results: int) -> MapT:
        """The identity on the last ``num_results`` (innermost) dimensions.

        >>> from tinycomp.affine import AffineMap
        >>> print(AffineMap.minor_identity(3, 2))
        (d0, d1, d2) -> (d1, d2)
        """
        if not 0 <= num_results <= num_dims:
            raise ValueError(f"expected at most {num_dims} results, got {num_results}")
        first = num_dims - num_results
        return cls(num_dims, 0, tuple(dim(i) for i in range(first, num_dims)))

    @classmethod
    def constant_map(cls: type[MapT], values: int | Sequence[int], num_dims: int = 0) -> MapT:
        """A map whose results are the constants ``values`` (one int or several).

        >>> from tinycomp.affine import AffineMap
        >>> print(AffineMap.constant_map([0, 4], num_dims=2))
        (d0, d1) -> (0, 4)
        """
        if isinstance(values, int):
            values = [values]
        results: tuple[AffineExpr, ...] = tuple(const(v) for v in values)
        return cls(num_dims, 0, results)

"""Integer sets: the conditions of ``affine.if``, ``(d0)[s0] : (d0 - 10 >= 0, s0 - d0 == 0)``.

An integer set is the set of points whose constraints all hold. Each constraint is
an affine expression compared with zero: ``expr >= 0`` (an inequality) or
``expr == 0`` (an equality, when its ``eq_flags`` entry is True). A set with no
constraints holds everywhere.

>>> from tinycomp.affine import dim, sym
>>> in_bounds = IntegerSet(1, 1, (dim(0), sym(0) - dim(0) - 1), (False, False))
>>> print(in_bounds)
(d0)[s0] : (d0 >= 0, s0 - d0 - 1 >= 0)
>>> in_bounds.contains([3], [4]), in_bounds.contains([4], [4])
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine.expr import AffineExpr, as_expr
from tinycomp.affine.space import check_space, format_space


@dataclass(frozen=True)
class IntegerSet:
    """A frozen conjunction of ``expr >= 0`` and ``expr == 0`` constraints.

    >>> from tinycomp.affine import dim
    >>> IntegerSet(1, 0, [dim(0) - 2], [True]).contains([2])
    True
    """

    num_dims: int
    """How many dimensions (``d0 ...``) the set is over."""
    num_symbols: int
    """How many symbols (``s0 ...``) the set takes."""
    constraints: tuple[AffineExpr, ...]
    """The left-hand sides; each is compared with zero."""
    eq_flags: tuple[bool, ...]
    """``eq_flags[i]`` is True for ``constraints[i] == 0`` and False for ``>= 0``."""

    def __post_init__(self) -> None:
        constraints = tuple(as_expr(constraint) for constraint in self.constraints)
        eq_flags = tuple(bool(flag) for flag in self.eq_flags)
        object.__setattr__(self, "constraints", constraints)  # frozen: set once, here
        object.__setattr__(self, "eq_flags", eq_flags)
        if len(constraints) != len(eq_flags):
            raise ValueError(
                f"expected one eq flag per constraint, got {len(eq_flags)} flags "
                f"for {len(constraints)} constraints"
            )
        check_space(constraints, self.num_dims, self.num_symbols)

    def __str__(self) -> str:
        header = format_space(self.num_dims, self.num_symbols)
        parts = [
            f"{constraint} {'==' if is_eq else '>='} 0"
            for constraint, is_eq in zip(self.constraints, self.eq_flags, strict=True)
        ]
        return f"{header} : ({', '.join(parts)})"

    @property
    def num_constraints(self) -> int:
        """How many constraints the set has.

        >>> from tinycomp.affine import dim
        >>> IntegerSet(1, 0, (dim(0), dim(0) - 1), (False, True)).num_constraints
        2
        """
        return len(self.constraints)

    def contains(self, dims: Sequence[int], symbols: Sequence[int] = ()) -> bool:
        """True when every constraint holds at this point.

        >>> from tinycomp.affine import dim
        >>> even = IntegerSet(1, 0, [dim(0) % 2], [True])
        >>> [x for x in range(6) if even.contains([x])]
        [0, 2, 4]
        """
        if len(dims) != self.num_dims or len(symbols) != self.num_symbols:
            raise ValueError(
                f"expected {self.num_dims} dims and {self.num_symbols} symbols, "
                f"got {len(dims)} and {len(symbols)}"
            )
        for constraint, is_eq in zip(self.constraints, self.eq_flags, strict=True):
            value = constraint.evaluate(dims, symbols)
            if (value != 0) if is_eq else (value < 0):
                return False
        return True

    def simplify(self) -> IntegerSet:
        """Simplify every constraint (the set stays the same set).

        >>> from tinycomp.affine import dim
        >>> print(IntegerSet(1, 0, [dim(0) * 2 - dim(0) - 10], [False]).simplify())
        (d0) : (d0 - 10 >= 0)
        """
        constraints = tuple(constraint.simplify() for constraint in self.constraints)
        return IntegerSet(self.num_dims, self.num_symbols, constraints, self.eq_flags)

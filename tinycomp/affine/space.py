"""The space of an affine map or set: how many dimensions and symbols it takes.

Maps and integer sets share two chores: printing their header ``(d0, d1)[s0]`` and
checking that their expressions use no dimension or symbol beyond it.

>>> print(format_space(2, 1))
(d0, d1)[s0]
"""

from __future__ import annotations

from collections.abc import Iterable

from tinycomp.affine.expr import AffineExpr


def format_space(num_dims: int, num_symbols: int) -> str:
    """``(d0, ..., dn-1)[s0, ..., sm-1]``, leaving out ``[]`` when there are no symbols.

    >>> format_space(0, 1), format_space(1, 0)
    ('()[s0]', '(d0)')
    """
    dims = ", ".join(f"d{i}" for i in range(num_dims))
    symbols = ", ".join(f"s{i}" for i in range(num_symbols))
    return f"({dims})" + (f"[{symbols}]" if num_symbols else "")


def check_space(exprs: Iterable[AffineExpr], num_dims: int, num_symbols: int) -> None:
    """Raise ValueError if an expression uses a dimension or symbol the space lacks.

    >>> from tinycomp.affine import dim
    >>> check_space([dim(2)], 2, 0)
    Traceback (most recent call last):
    ...
    ValueError: expected dims d0..d1, got d2
    """
    if num_dims < 0 or num_symbols < 0:
        raise ValueError(
            f"expected non-negative counts, got {num_dims} dims and {num_symbols} symbols"
        )
    for expr in exprs:
        for position in expr.used_dims():
            if position >= num_dims:
                raise ValueError(f"expected dims d0..d{num_dims - 1}, got d{position}")
        for position in expr.used_symbols():
            if position >= num_symbols:
                raise ValueError(f"expected symbols s0..s{num_symbols - 1}, got s{position}")

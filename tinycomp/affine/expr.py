"""Affine expressions: the index arithmetic inside MLIR's affine maps.

An affine expression is a small tree whose leaves are dimensions (``d0``, ``d1``, ...:
the loop indices of an iteration space), symbols (``s0``, ``s1``, ...: values fixed
while the loops run, such as sizes) and integer constants, and whose inner nodes are
``+``, ``*``, ``floordiv``, ``ceildiv`` or ``mod``. Two rules keep it affine (with
MLIR's "semi-affine" relaxation for symbols): in ``a * b`` one side has no dimension,
and a divisor has no dimension and, when constant, is positive.

Python's operators build expressions, folding only as much as ``build_binary`` says.

>>> e = dim(0) * 4 + sym(0)
>>> print(e)
d0 * 4 + s0
>>> e.evaluate(dims=[3], symbols=[5])
17
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Union

BinaryKind = Literal["add", "mul", "floordiv", "ceildiv", "mod"]
"""The five operators of an affine expression, as MLIR names them."""

BINARY_KINDS: tuple[str, ...] = ("add", "mul", "floordiv", "ceildiv", "mod")
DIVISION_KINDS: tuple[str, ...] = ("floordiv", "ceildiv", "mod")

ExprLike = Union["AffineExpr", int]
"""Anything an operator accepts as an operand: an expression or a plain int."""


def apply_binary(kind: str, lhs: int, rhs: int) -> int:
    """Apply one affine operator to two integers with MLIR's meaning.

    ``floordiv`` rounds toward minus infinity, ``ceildiv`` toward plus infinity, and
    ``mod`` is the non-negative remainder; the divisor must be positive.

    >>> apply_binary("floordiv", -7, 2), apply_binary("ceildiv", -7, 2), apply_binary("mod", -7, 2)
    (-4, -3, 1)
    """
    if kind == "add":
        return lhs + rhs
    if kind == "mul":
        return lhs * rhs
    if rhs < 1:
        raise ValueError(f"expected a positive divisor for '{kind}', got {rhs}")
    if kind == "floordiv":
        return lhs // rhs
    if kind == "ceildiv":
        return -(-lhs // rhs)
    return lhs % rhs  # "mod": Python's % is already non-negative for rhs > 0


class AffineExpr:
    """Base class of the expression nodes; holds the operators and shared queries.

    >>> print((dim(0) + 1) % 3)
    (d0 + 1) mod 3
    """

    # -- building expressions with Python operators --------------------------------
    def __add__(self, other: ExprLike) -> AffineExpr:
        return build_binary("add", self, as_expr(other))

    def __radd__(self, other: ExprLike) -> AffineExpr:
        return build_binary("add", as_expr(other), self)

    def __neg__(self) -> AffineExpr:
        return build_binary("mul", self, AffineConstantExpr(-1))

    def __sub__(self, other: ExprLike) -> AffineExpr:
        return self + (-as_expr(other))  # a - b is a + b * -1, as in MLIR

    def __rsub__(self, other: ExprLike) -> AffineExpr:
        return as_expr(other) + (-self)

    def __mul__(self, other: ExprLike) -> AffineExpr:
        return build_binary("mul", self, as_expr(other))

    def __rmul__(self, other: ExprLike) -> AffineExpr:
        return build_binary("mul", as_expr(other), self)

    def __floordiv__(self, other: ExprLike) -> AffineExpr:
        return build_binary("floordiv", self, as_expr(other))

    def __rfloordiv__(self, other: ExprLike) -> AffineExpr:
        return build_binary("floordiv", as_expr(other), self)

    def __mod__(self, other: ExprLike) -> AffineExpr:
        return build_binary("mod", self, as_expr(other))

    def __rmod__(self, other: ExprLike) -> AffineExpr:
        return build_binary("mod", as_expr(other), self)

    def ceildiv(self, other: ExprLike) -> AffineExpr:
        """Division rounding up: ``self ceildiv other``.

        >>> print(dim(0).ceildiv(4))
        d0 ceildiv 4
        """
        return build_binary("ceildiv", self, as_expr(other))

    # -- queries -------------------------------------------------------------------
    def __str__(self) -> str:
        from tinycomp.affine.printer import format_expr  # the printer imports this module

        return format_expr(self)

    def evaluate(self, dims: Sequence[int], symbols: Sequence[int] = ()) -> int:
        """The value at one point, with MLIR's rounding rules.

        >>> (dim(0) // 2).evaluate([-3])
        -2
        """
        if isinstance(self, AffineDimExpr):
            if self.position >= len(dims):
                raise ValueError(f"expected a value for d{self.position}, got {len(dims)} dims")
            return dims[self.position]
        if isinstance(self, AffineSymbolExpr):
            if self.position >= len(symbols):
                raise ValueError(
                    f"expected a value for s{self.position}, got {len(symbols)} symbols"
                )
            return symbols[self.position]
        if isinstance(self, AffineConstantExpr):
            return self.value
        assert isinstance(self, AffineBinaryExpr)
        lhs = self.lhs.evaluate(dims, symbols)
        rhs = self.rhs.evaluate(dims, symbols)
        return apply_binary(self.kind, lhs, rhs)

    def simplify(self) -> AffineExpr:
        """The canonical form of this expression (see ``tinycomp.affine.simplify``).

        >>> print((dim(0) * 4 + dim(1) * 0 + 3 - 3).simplify())
        d0 * 4
        """
        from tinycomp.affine.simplify import simplify_expr  # simplify builds on this module

        return simplify_expr(self)

    def replace_dims_and_symbols(
        self, dims: Sequence[AffineExpr], symbols: Sequence[AffineExpr] = ()
    ) -> AffineExpr:
        """Substitute ``dims[i]`` for ``di`` and ``symbols[j]`` for ``sj``.

        Positions past the end of a list are left as they are (MLIR does the same).
        The tree is rebuilt with the operators, so constants fold on the way.

        >>> print((dim(0) * 2 + dim(1)).replace_dims_and_symbols([dim(1), sym(0)]))
        d1 * 2 + s0
        """
        if isinstance(self, AffineDimExpr) and self.position < len(dims):
            return dims[self.position]
        if isinstance(self, AffineSymbolExpr) and self.position < len(symbols):
            return symbols[self.position]
        if isinstance(self, AffineBinaryExpr):
            lhs = self.lhs.replace_dims_and_symbols(dims, symbols)
            rhs = self.rhs.replace_dims_and_symbols(dims, symbols)
            return build_binary(self.kind, lhs, rhs)
        return self

    def leaves(self) -> list[AffineExpr]:
        """The dimension, symbol and constant leaves, left to right.

        >>> [str(leaf) for leaf in (dim(0) * 3 + sym(1)).leaves()]
        ['d0', '3', 's1']
        """
        if isinstance(self, AffineBinaryExpr):
            return self.lhs.leaves() + self.rhs.leaves()
        return [self]

    def used_dims(self) -> tuple[int, ...]:
        """Positions of the dimensions that appear, sorted.

        >>> (dim(2) + dim(0) * 3).used_dims()
        (0, 2)
        """
        found = {leaf.position for leaf in self.leaves() if isinstance(leaf, AffineDimExpr)}
        return tuple(sorted(found))

    def used_symbols(self) -> tuple[int, ...]:
        """Positions of the symbols that appear, sorted.

        >>> (dim(0) + sym(1)).used_symbols()
        (1,)
        """
        found = {leaf.position for leaf in self.leaves() if isinstance(leaf, AffineSymbolExpr)}
        return tuple(sorted(found))

    def is_function_of_dim(self, position: int) -> bool:
        """True when ``d<position>`` appears in the expression (a syntactic test).

        >>> (dim(0) + 1).is_function_of_dim(0), (dim(0) + 1).is_function_of_dim(1)
        (True, False)
        """
        return position in self.used_dims()

    def is_symbolic_or_constant(self) -> bool:
        """True when no dimension appears, so the value is fixed while the loops run.

        >>> (sym(0) * 2 + 1).is_symbolic_or_constant(), dim(0).is_symbolic_or_constant()
        (True, False)
        """
        return not self.used_dims()


@dataclass(frozen=True)
class AffineDimExpr(AffineExpr):
    """The dimension ``d<position>``: one index of the iteration space.

    >>> dim(1).evaluate([10, 20])
    20
    """

    position: int

    def __post_init__(self) -> None:
        if self.position < 0:
            raise ValueError(f"expected a non-negative dimension position, got {self.position}")


@dataclass(frozen=True)
class AffineSymbolExpr(AffineExpr):
    """The symbol ``s<position>``: a value fixed for the whole iteration space.

    >>> sym(0).evaluate([], [7])
    7
    """

    position: int

    def __post_init__(self) -> None:
        if self.position < 0:
            raise ValueError(f"expected a non-negative symbol position, got {self.position}")


@dataclass(frozen=True)
class AffineConstantExpr(AffineExpr):
    """An integer constant.

    >>> const(-3).evaluate([])
    -3
    """

    value: int


@dataclass(frozen=True)
class AffineBinaryExpr(AffineExpr):
    """``lhs <kind> rhs`` for kind in add, mul, floordiv, ceildiv, mod.

    The constructor builds exactly the node it is given (no folding) but checks the
    affine rules from the module docstring.

    >>> print(AffineBinaryExpr("mul", const(4), dim(0)))
    4 * d0
    >>> AffineBinaryExpr("mul", dim(0), dim(1))
    Traceback (most recent call last):
    ...
    ValueError: expected a constant or symbolic operand for '*', got 'd0' and 'd1'
    """

    kind: BinaryKind
    lhs: AffineExpr
    rhs: AffineExpr

    def __post_init__(self) -> None:
        if self.kind not in BINARY_KINDS:
            raise ValueError(f"expected one of {', '.join(BINARY_KINDS)}, got '{self.kind}'")
        if self.kind == "mul":
            if not (self.lhs.is_symbolic_or_constant() or self.rhs.is_symbolic_or_constant()):
                raise ValueError(
                    "expected a constant or symbolic operand for '*', "
                    f"got '{self.lhs}' and '{self.rhs}'"
                )
        elif self.kind in DIVISION_KINDS:
            if not self.rhs.is_symbolic_or_constant():
                raise ValueError(
                    f"expected a constant or symbolic divisor for '{self.kind}', got '{self.rhs}'"
                )
            if isinstance(self.rhs, AffineConstantExpr) and self.rhs.value < 1:
                raise ValueError(
                    f"expected a positive divisor for '{self.kind}', got {self.rhs.value}"
                )


def build_binary(kind: str, lhs: AffineExpr, rhs: AffineExpr) -> AffineExpr:
    """Build ``lhs <kind> rhs`` with the light folding that MLIR's builders also do.

    Constants fold (``2 + 3 -> 5``), a constant operand moves right (``4 * d0 -> d0 * 4``)
    and constant factors merge (``(d0 * 2) * 3 -> d0 * 6``). That is just enough for
    printing and parsing to give back the same tree; ``x * 1``, ``x + 0``, like terms
    and the rest are the job of ``simplify()``.

    >>> print(build_binary("mul", const(2), dim(0) * 3))
    d0 * 6
    """
    lhs_const = isinstance(lhs, AffineConstantExpr)
    rhs_const = isinstance(rhs, AffineConstantExpr)
    if lhs_const and rhs_const:  # 2 + 3 -> 5
        return AffineConstantExpr(apply_binary(kind, lhs.value, rhs.value))
    if kind in ("add", "mul"):
        # Commutative: keep constants on the right, and symbolic factors of a product
        # on the right of a dimensional one (4 * d0 -> d0 * 4, s0 * d0 -> d0 * s0).
        swap = lhs_const or (
            kind == "mul" and lhs.is_symbolic_or_constant() and not rhs.is_symbolic_or_constant()
        )
        if swap:
            return build_binary(kind, rhs, lhs)
    if kind == "mul" and rhs_const and _is_scaled(lhs):  # (x * 2) * 3 -> x * 6
        return build_binary("mul", lhs.lhs, AffineConstantExpr(lhs.rhs.value * rhs.value))
    return AffineBinaryExpr(kind, lhs, rhs)


def _is_scaled(expr: AffineExpr) -> bool:
    """True for ``x * c`` with a constant ``c``."""
    return (
        isinstance(expr, AffineBinaryExpr)
        and expr.kind == "mul"
        and isinstance(expr.rhs, AffineConstantExpr)
    )


def as_expr(value: ExprLike) -> AffineExpr:
    """Turn an int into a constant expression; pass expressions through.

    >>> as_expr(5)
    AffineConstantExpr(value=5)
    """
    if isinstance(value, AffineExpr):
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return AffineConstantExpr(value)
    raise TypeError(f"expected an AffineExpr or int, got {type(value).__name__}")


def dim(position: int) -> AffineDimExpr:
    """The dimension ``d<position>``; ``d`` is a short alias.

    >>> print(dim(2))
    d2
    """
    return AffineDimExpr(position)


def sym(position: int) -> AffineSymbolExpr:
    """The symbol ``s<position>``; ``s`` is a short alias.

    >>> print(sym(0))
    s0
    """
    return AffineSymbolExpr(position)


def const(value: int) -> AffineConstantExpr:
    """The constant ``value``; ``c`` is a short alias.

    >>> print(const(-5))
    -5
    """
    return AffineConstantExpr(value)


# Short aliases for notebooks: d(0) * 4 + s(0).
d = dim
s = sym
c = const

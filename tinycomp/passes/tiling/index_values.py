"""Index arithmetic for tiling: offsets and sizes as ``int`` when known, SSA values otherwise.

Tiling computes many small index expressions: "this tile starts at ``%iv * 2``", "this
slice is ``%size + 2`` long", "this dimension is ``tensor.dim %x, %c1`` long". MLIR
writes such a quantity as an ``OpFoldResult``: an attribute when it is a compile-time
constant, a ``Value`` otherwise, and folds constants as it goes, so a fully static
problem produces no index ops at all. tinycomp's ``MixedIndex`` (``int | Value``) is the
same idea, and ``IndexBuilder`` is the small factory that keeps it that way:

* ``constant(n)``: one ``arith.constant n : index`` per number, placed before the loop
  nest (outside, so every iteration can use it);
* ``dim(value, d)``: the size of dimension ``d``: an ``int`` for a static dimension, a
  ``tensor.dim`` (outside the loops) for a dynamic one;
* ``linear(terms, constant)``: ``constant + sum(coefficient * x)``. Integer ``x`` fold
  into the constant; one value with coefficient 1 and no constant is that value itself;
  anything else becomes one ``affine.apply`` (inside the loops, where the values live).

>>> from tinycomp.ir import Block, Builder, index
>>> block = Block([index])
>>> iv = block.arguments[0]
>>> maker = IndexBuilder(outside=Builder.at_end(block), inside=Builder.at_end(block))
>>> maker.linear([(2, 3), (1, 4)], constant=1)      # 1 + 2*3 + 1*4, folded
11
>>> maker.linear([(1, iv)]) is iv
True
>>> apply = maker.linear([(2, iv), (1, 2)]).defining_op()    # 2*iv + 2
>>> apply.name, str(apply.map), apply.operands == (iv,)
('affine.apply', '(d0) -> (d0 * 2 + 2)', True)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap, const, dim
from tinycomp.dialects.affine.apply import AffineApplyOp
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.common.mixed_indices import MixedIndex
from tinycomp.dialects.tensor import DimOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.type_helpers import shape
from tinycomp.ir.types import DYNAMIC, index
from tinycomp.ir.values import Value

__all__ = ["IndexBuilder", "MixedIndex"]


class IndexBuilder:
    """Creates the index values of one tiling (see the module docstring)."""

    def __init__(self, outside: Builder, inside: Builder) -> None:
        self.outside = outside
        """Inserts before the loop nest: constants and ``tensor.dim`` of outer values."""
        self.inside = inside
        """Inserts in the innermost loop body: anything that depends on the loop counters."""
        self._constants: dict[int, Value] = {}

    def constant(self, number: int) -> Value:
        """``arith.constant number : index``, created once per number.

        >>> from tinycomp.ir import Block, Builder
        >>> block = Block()
        >>> maker = IndexBuilder(Builder.at_end(block), Builder.at_end(block))
        >>> maker.constant(4) is maker.constant(4), len(block.ops)
        (True, 1)
        """
        if number not in self._constants:
            value = self.outside.insert(ConstantOp.build(number, index)).result
            self._constants[number] = value
        return self._constants[number]

    def materialize(self, value: MixedIndex) -> Value:
        """``value`` as an SSA value (a constant for an ``int``)."""
        return self.constant(value) if isinstance(value, int) else value

    def dim(self, tensor: Value, position: int) -> MixedIndex:
        """The size of dimension ``position`` of ``tensor``: an ``int`` when static, else
        ``tensor.dim`` (``tensor`` must be defined outside the loop nest)."""
        size = shape(tensor.type)[position]
        if size is not DYNAMIC:
            return size
        dimension = self.constant(position)
        return self.outside.insert(DimOp.build(tensor, dimension)).result

    def linear(self, terms: Sequence[tuple[int, MixedIndex]], constant: int = 0) -> MixedIndex:
        """``constant + sum(coefficient * x for coefficient, x in terms)`` (see above)."""
        total = constant
        coefficients: dict[Value, int] = {}
        for coefficient, term in terms:
            if isinstance(term, int):
                total += coefficient * term
            else:
                coefficients[term] = coefficients.get(term, 0) + coefficient
        values = [v for v, c in coefficients.items() if c != 0]
        if not values:
            return total
        if len(values) == 1 and total == 0 and coefficients[values[0]] == 1:
            return values[0]
        expr = const(total)
        for position, value in enumerate(values):
            expr = dim(position) * coefficients[value] + expr
        affine_map = AffineMap(len(values), 0, [expr]).simplify()
        return self.inside.insert(AffineApplyOp.build(affine_map, values)).result

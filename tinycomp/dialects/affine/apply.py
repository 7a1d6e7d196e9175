"""affine: index arithmetic as maps: ``affine.apply``, ``affine.min``, ``affine.max``.

``affine.apply`` evaluates a one-result map; ``affine.min``/``affine.max`` evaluate a
map and take the smallest/largest result (tiling's ``min(32, %n - %i)``). The map is
the attribute ``map``; the operands are its dimensions, then its symbols; the result is
an ``index``. Unlike ``affine.load`` or ``affine.for`` bounds, these ops accept any
``index`` operands (an ``scf.for`` induction variable too), as MLIR does; only
``affine.apply`` refuses an ``affine.for`` induction variable as a symbol::

    %row = affine.apply affine_map<(d0)[s0] -> (d0 * 4 + s0)>(%i)[%base]
    %size = affine.min affine_map<(d0)[s0] -> (32, s0 - d0)>(%i)[%n]

>>> from tinycomp.affine import parse_affine_map
>>> from tinycomp.ir import Block, index
>>> i, n = Block([index, index]).arguments
>>> op = AffineMinOp.build(parse_affine_map("(d0)[s0] -> (32, s0 - d0)"), [i, n])
>>> op.result.type, op.map.num_results
(IndexType(), 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap
from tinycomp.dialects.affine.operands import check_apply_operands
from tinycomp.dialects.affine.ssa import parse_map_and_operands, print_map_and_operands
from tinycomp.ir.attributes import AffineMapAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import index
from tinycomp.ir.values import Value


class _MapOp(Operation):
    """Base of apply/min/max: ``<op> #map(dims)[symbols] {attrs}``, one index result."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_pure = True
    has_custom_syntax = True
    inherent_attributes = ("map",)
    single_result_map = False
    """True for ``affine.apply``, whose map must have exactly one result."""

    @classmethod
    def build(cls, affine_map: AffineMap, operands: Sequence[Value]) -> _MapOp:
        """Apply ``affine_map`` to ``operands`` (its dimensions, then its symbols)."""
        return cls(operands, [index], {"map": AffineMapAttr(affine_map)})

    @property
    def map(self) -> AffineMap:
        """The map evaluated."""
        return self.attributes["map"].map

    def verify_op(self) -> None:
        attr = self.attributes.get("map")
        if not isinstance(attr, AffineMapAttr):
            raise self.error(f"expected an affine map 'map', got {attr}")
        affine_map = attr.map
        if self.single_result_map and affine_map.num_results != 1:
            raise self.error(f"expected a map with one result, got {affine_map}")
        if affine_map.num_results == 0:
            raise self.error(f"expected a map with at least one result, got {affine_map}")
        if affine_map.num_inputs != len(self.operands):
            raise self.error(
                f"expected {affine_map.num_inputs} operands for {affine_map} (its dimensions "
                f"and symbols), got {len(self.operands)}"
            )
        if self.result.type != index:
            raise self.error(f"expected an index result, got {self.result.type}")
        # Relaxed like MLIR: any index value may feed these ops (see affine_operands.py).
        check_apply_operands(
            self, self.operands, affine_map.num_dims, dims_in_symbols=not self.single_result_map
        )

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        print_map_and_operands(printer, self.attributes["map"], self.operands)
        printer.print_attr_dict(self.attributes, elided=["map"])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        map_attr, operands = parse_map_and_operands(parser)
        attributes = parser.parse_optional_attr_dict()
        attributes["map"] = map_attr
        return cls(operands, [index], attributes)


class AffineApplyOp(_MapOp):
    """Evaluate a one-result map: ``%k = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)``."""

    name = "affine.apply"
    single_result_map = True


class AffineMinOp(_MapOp):
    """The smallest result of a map: ``%s = affine.min affine_map<(d0) -> (32, d0)>(%r)``."""

    name = "affine.min"


class AffineMaxOp(_MapOp):
    """The largest result of a map: ``%s = affine.max affine_map<(d0) -> (0, d0)>(%r)``."""

    name = "affine.max"


__all__ = ["AffineApplyOp", "AffineMaxOp", "AffineMinOp"]

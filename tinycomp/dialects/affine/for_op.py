"""affine: the loop with affine bounds, ``affine.for``, and ``affine.yield``.

An ``affine.for`` bound is an affine map applied to operands; the loop runs from the
*maximum* of the lower bound map's results to the *minimum* of the upper bound map's
results (so tiled loops can say ``min(%i + 32, %n)``), by a constant positive step::

    affine.for %i = 0 to %n step 32 {
      affine.for %j = #map(%i) to min #map1(%i)[%n] {
        ...
      }
    }

Attributes (as in MLIR): ``lowerBoundMap``, ``upperBoundMap`` (``AffineMapAttr``),
``step`` (``IntegerAttr`` of ``index``) and ``operandSegmentSizes = array<i32: lb, ub,
inits>``; operands ``[*lb_operands, *ub_operands, *inits]``, each map's dimension
operands before its symbol operands. The body's arguments are ``[iv, *iter_args]``.

>>> loop = AffineForOp.build(0, 16, step=4)
>>> print(loop)
affine.for %arg0 = 0 to 16 step 4 {
}
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.affine import AffineMap, sym
from tinycomp.dialects.affine.operands import check_dims_and_symbols
from tinycomp.dialects.affine.ssa import parse_bound, print_bound
from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.dialects.common.region_syntax import block_arguments, ensure_terminator
from tinycomp.dialects.common.structured_control import (
    CountedLoopOp,
    RegionYieldOp,
    parse_optional_iter_args,
)
from tinycomp.ir.attributes import AffineMapAttr, Attribute, IntegerAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import index
from tinycomp.ir.values import Value

YIELD_PARENTS = ("affine.for", "affine.if", "affine.parallel")
"""The ops whose regions ``affine.yield`` may end."""

Bound = int | tuple[AffineMap, Sequence[Value]] | Value
"""A loop bound for ``AffineForOp.build``: a constant, an SSA value (a symbol), or a map
with its operands."""


class AffineYieldOp(RegionYieldOp):
    """Pass values out of an affine region: ``affine.yield %x : f32`` (or ``affine.yield``)."""

    name = "affine.yield"
    allowed_parents = YIELD_PARENTS


def _bound(bound: Bound) -> tuple[AffineMapAttr, list[Value]]:
    """The map and operands of a ``Bound``."""
    if isinstance(bound, int):
        return AffineMapAttr(AffineMap(0, 0, (bound,))), []
    if isinstance(bound, Value):
        return AffineMapAttr(AffineMap(0, 1, (sym(0),))), [bound]
    affine_map, operands = bound
    return AffineMapAttr(affine_map), list(operands)


class AffineForOp(CountedLoopOp):
    """A loop with affine bounds and a constant step:
    ``%r = affine.for %i = 0 to %n step 2 iter_args(%acc = %zero) -> (f32) { ... }``."""

    name = "affine.for"
    has_recursive_effects = True
    yield_name = "affine.yield"
    inherent_attributes = ("lowerBoundMap", SEGMENTS, "step", "upperBoundMap")

    @classmethod
    def build(
        cls,
        lower: Bound,
        upper: Bound,
        step: int = 1,
        inits: Sequence[Value] = (),
    ) -> AffineForOp:
        """A loop from ``lower`` to ``upper`` (each an int, a symbol value, or a
        ``(map, operands)`` pair). Without ``inits`` the body already ends in
        ``affine.yield``; with them, end it with ``AffineYieldOp.build([...])``."""
        lower_map, lower_operands = _bound(lower)
        upper_map, upper_operands = _bound(upper)
        body = Block([index, *(v.type for v in inits)])
        if not inits:
            body.append(AffineYieldOp.build())
        attributes: dict[str, Attribute] = {
            "lowerBoundMap": lower_map,
            "upperBoundMap": upper_map,
            "step": IntegerAttr(step, index),
            SEGMENTS: segment_sizes(len(lower_operands), len(upper_operands), len(inits)),
        }
        operands = [*lower_operands, *upper_operands, *inits]
        return cls(operands, [v.type for v in inits], attributes, [Region([body])])

    @property
    def lower_bound_map(self) -> AffineMap:
        """The lower bound map (the loop starts at the maximum of its results)."""
        return self.attributes["lowerBoundMap"].map

    @property
    def upper_bound_map(self) -> AffineMap:
        """The upper bound map (the loop stops before the minimum of its results)."""
        return self.attributes["upperBoundMap"].map

    @property
    def lower_bound_operands(self) -> tuple[Value, ...]:
        """The lower bound map's operands (dimensions, then symbols)."""
        return segment(self, 0)

    @property
    def upper_bound_operands(self) -> tuple[Value, ...]:
        """The upper bound map's operands (dimensions, then symbols)."""
        return segment(self, 1)

    @property
    def inits(self) -> tuple[Value, ...]:
        """The initial values of the iter_args."""
        return segment(self, 2)

    @property
    def step(self) -> int:
        """The constant, positive step."""
        return self.attributes["step"].value

    def verify_op(self) -> None:
        check_segments(self, 3)
        step = self.attributes.get("step")
        if not (isinstance(step, IntegerAttr) and step.type == index and step.value > 0):
            raise self.error(f"expected a positive 'step' of index type, got {step}")
        for name, operands in (
            ("lowerBoundMap", self.lower_bound_operands),
            ("upperBoundMap", self.upper_bound_operands),
        ):
            attr = self.attributes.get(name)
            if not isinstance(attr, AffineMapAttr):
                raise self.error(f"expected an affine map '{name}', got {attr}")
            if attr.map.num_results == 0:
                raise self.error(f"expected '{name}' to have at least one result, got {attr}")
            if attr.map.num_inputs != len(operands):
                raise self.error(
                    f"expected {attr.map.num_inputs} operands for '{name}' {attr.map} "
                    f"(its dimensions and symbols), got {len(operands)}"
                )
            check_dims_and_symbols(self, operands, attr.map.num_dims, f"'{name}'")
        self.verify_loop_body(index, self.inits)

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.induction_var)
        printer.write(" = ")
        print_bound(printer, self.attributes["lowerBoundMap"], self.lower_bound_operands, "max")
        printer.write(" to ")
        print_bound(printer, self.attributes["upperBoundMap"], self.upper_bound_operands, "min")
        if self.step != 1:
            printer.write(f" step {self.step}")
        self.print_iter_args(printer, self.inits)
        printer.write(" ")
        self.print_body(printer)
        printer.print_attr_dict(self.attributes, elided=self.inherent_attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        iv_name = parser.parse_value_name()
        parser.parse_punct("=")
        lower_map, lower_operands = parse_bound(parser, "max", "lower loop bound")
        parser.parse_keyword("to")
        upper_map, upper_operands = parse_bound(parser, "min", "upper loop bound")
        step = 1
        if parser.parse_optional_keyword("step"):
            step_token = parser.token
            step = parser.parse_integer("a step")
            if step < 1:
                raise parser.error(f"expected a positive step, got {step}", step_token)
        arg_names, inits, init_types = parse_optional_iter_args(parser)
        init_values = parser.resolve_operands(inits, init_types)
        arguments = block_arguments([iv_name, *arg_names], [index, *init_types])
        region = parser.parse_region(arguments)
        ensure_terminator(region, AffineYieldOp.build)
        attributes = parser.parse_optional_attr_dict()
        attributes.update(
            {
                "lowerBoundMap": lower_map,
                "upperBoundMap": upper_map,
                "step": IntegerAttr(step, index),
                SEGMENTS: segment_sizes(len(lower_operands), len(upper_operands), len(init_values)),
            }
        )
        operands = [*lower_operands, *upper_operands, *init_values]
        return cls(operands, init_types, attributes, [region])


__all__ = ["YIELD_PARENTS", "AffineForOp", "AffineYieldOp", "Bound"]

"""scf: the parallel loop nest ``scf.parallel`` and its reductions.

``scf.parallel`` runs its iterations in any order (later: a GPU grid, a thread pool).
Its operands are ``[*lower_bounds, *upper_bounds, *steps, *inits]``, sized by
``operandSegmentSizes = array<i32: n, n, n, k>``. Its body ends in ``scf.reduce``,
which hands one value per init to a region combining two values
(``scf.reduce.return``); the loop's results are the combined values::

    %sum = scf.parallel (%i) = (%c0) to (%n) step (%c1) init (%zero) -> f32 {
      %x = memref.load %buf[%i] : memref<?xf32>
      scf.reduce(%x : f32) {
      ^bb0(%a: f32, %b: f32):
        %s = arith.addf %a, %b : f32
        scf.reduce.return %s : f32
      }
    }

>>> from tinycomp.ir import Block, index
>>> c0, n, c1 = Block([index, index, index]).arguments
>>> loop = ParallelOp.build([c0, c0], [n, n], [c1, c1])
>>> [op.name for op in loop.body.ops], len(loop.induction_vars)
(['scf.reduce'], 2)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.operand_segments import (
    SEGMENTS,
    check_segments,
    segment,
    segment_sizes,
)
from tinycomp.dialects.common.region_syntax import (
    block_arguments,
    check_terminator_types,
    constant_int,
    ensure_terminator,
    format_types,
    parse_optional_arrow_types,
    single_block,
)
from tinycomp.dialects.common.syntax import parse_typed_operand, print_typed_operand
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import index
from tinycomp.ir.values import BlockArgument, Value


class ReduceOp(Operation):
    """End an ``scf.parallel`` body, combining one value per loop result, each with its
    own region: ``scf.reduce(%x : f32) { ^bb0(%a: f32, %b: f32): ... }``; bare
    ``scf.reduce`` when the loop has no results."""

    name = "scf.reduce"
    has_recursive_effects = True
    num_results = 0
    num_successors = 0
    is_terminator = True
    has_custom_syntax = True

    @classmethod
    def build(cls, operands: Sequence[Value] = ()) -> ReduceOp:
        """One region per operand, each with a block of two arguments of its type (end
        it with ``ReduceReturnOp``)."""
        regions = [Region([Block([v.type, v.type])]) for v in operands]
        return cls(operands, [], {}, regions)

    def verify_op(self) -> None:
        parent = self.parent_op()
        if parent is not None and parent.name != "scf.parallel":
            raise self.error(f"expected to be inside 'scf.parallel', got '{parent.name}'")
        if len(self.regions) != len(self.operands):
            raise self.error(
                f"expected one region per operand ({len(self.operands)}), got {len(self.regions)}"
            )
        for number, (value, region) in enumerate(zip(self.operands, self.regions, strict=True)):
            block = single_block(self, region, f"reduction region #{number}")
            arg_types = tuple(a.type for a in block.arguments)
            if arg_types != (value.type, value.type):
                raise self.error(
                    f"expected reduction region #{number} to take ({value.type}, {value.type}), "
                    f"got {format_types(arg_types)}"
                )
            check_terminator_types(
                self, region, "scf.reduce.return", [value.type], "the reduced operand's type"
            )

    def print_custom(self, printer: Printer) -> None:
        if self.operands:
            printer.write("(")
            printer.print_operands(self.operands)
            printer.write(" : ")
            printer.print_types(self.operand_types)
            printer.write(")")
        printer.write(" ")  # MLIR writes this space even when no region follows
        for number, region in enumerate(self.regions):
            if number:
                printer.write(", ")
            printer.print_region(region)
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, types = [], []
        if parser.parse_optional_punct("("):
            operands = parser.parse_operand_list()
            parser.parse_punct(":")
            types = parser.parse_type_list()
            parser.parse_punct(")")
        values = parser.resolve_operands(operands, types)
        regions = []
        for number in range(len(values)):
            if number:
                parser.parse_punct(",")
            regions.append(parser.parse_region())
        attributes = parser.parse_optional_attr_dict()
        return cls(values, [], attributes, regions)


class ReduceReturnOp(Operation):
    """The combined value of one ``scf.reduce`` region: ``scf.reduce.return %s : f32``."""

    name = "scf.reduce.return"
    num_operands = 1
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_terminator = True
    is_pure = True
    has_custom_syntax = True

    @classmethod
    def build(cls, value: Value) -> ReduceReturnOp:
        """Return ``value`` from a reduction region."""
        return cls([value])

    def verify_op(self) -> None:
        parent = self.parent_op()
        if parent is not None and parent.name != "scf.reduce":
            raise self.error(f"expected to be inside 'scf.reduce', got '{parent.name}'")

    def print_custom(self, printer: Printer) -> None:
        print_typed_operand(printer, self, self.operands[0])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        value, attributes = parse_typed_operand(parser)
        return cls([value], [], attributes)


class ParallelOp(Operation):
    """A loop nest whose iterations may run in any order:
    ``scf.parallel (%i, %j) = (%c0, %c0) to (%m, %n) step (%c1, %c1) { ... }``; with
    ``init (%zero) -> f32`` it reduces values through the body's ``scf.reduce``."""

    name = "scf.parallel"
    has_recursive_effects = True
    num_regions = 1
    num_successors = 0
    has_custom_syntax = True
    inherent_attributes = (SEGMENTS,)

    @classmethod
    def build(
        cls,
        lower_bounds: Sequence[Value],
        upper_bounds: Sequence[Value],
        steps: Sequence[Value],
        inits: Sequence[Value] = (),
    ) -> ParallelOp:
        """A loop nest with one index argument per bound. Without ``inits`` the body
        already ends in ``scf.reduce``; with them end it with ``ReduceOp.build([...])``."""
        body = Block([index] * len(lower_bounds))
        if not inits:
            body.append(ReduceOp.build())
        rank = len(lower_bounds)
        attributes = {SEGMENTS: segment_sizes(rank, len(upper_bounds), len(steps), len(inits))}
        operands = [*lower_bounds, *upper_bounds, *steps, *inits]
        return cls(operands, [v.type for v in inits], attributes, [Region([body])])

    @property
    def lower_bounds(self) -> tuple[Value, ...]:
        """One lower bound per loop dimension."""
        return segment(self, 0)

    @property
    def upper_bounds(self) -> tuple[Value, ...]:
        """One exclusive upper bound per loop dimension."""
        return segment(self, 1)

    @property
    def steps(self) -> tuple[Value, ...]:
        """One step per loop dimension."""
        return segment(self, 2)

    @property
    def init_vals(self) -> tuple[Value, ...]:
        """The initial values of the reductions."""
        return segment(self, 3)

    @property
    def body(self) -> Block:
        """The loop body (one block)."""
        return self.regions[0].blocks[0]

    @property
    def induction_vars(self) -> tuple[BlockArgument, ...]:
        """One induction variable per loop dimension."""
        return self.body.arguments

    def verify_op(self) -> None:
        sizes = check_segments(self, 4)
        rank = sizes[0]
        if rank == 0 or sizes[1] != rank or sizes[2] != rank:
            raise self.error(
                "expected as many (at least one) lower bounds, upper bounds and steps, got "
                f"{sizes[0]}, {sizes[1]} and {sizes[2]}"
            )
        for value in (*self.lower_bounds, *self.upper_bounds, *self.steps):
            if value.type != index:
                raise self.error(f"expected index bounds and steps, got {value.type}")
        for step in self.steps:
            value = constant_int(step)
            if value is not None and value <= 0:
                raise self.error(f"expected constant steps to be positive, got {value}")
        init_types = tuple(v.type for v in self.init_vals)
        if init_types != self.result_types:
            raise self.error(
                f"expected result types {format_types(init_types)} (the inits' types), got "
                f"{format_types(self.result_types)}"
            )
        body = single_block(self, self.regions[0], "the body")
        arg_types = tuple(a.type for a in body.arguments)
        if arg_types != (index,) * rank:
            raise self.error(f"expected {rank} index body arguments, got {format_types(arg_types)}")
        check_terminator_types(self, self.regions[0], "scf.reduce", init_types, "the inits")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" (")
        printer.print_operands(self.induction_vars)
        printer.write(") = (")
        printer.print_operands(self.lower_bounds)
        printer.write(") to (")
        printer.print_operands(self.upper_bounds)
        printer.write(") step (")
        printer.print_operands(self.steps)
        printer.write(")")
        if self.init_vals:
            printer.write(" init (")
            printer.print_operands(self.init_vals)
            printer.write(")")
        if self.results:
            printer.write(" -> ")
            printer.print_result_types(self.result_types)
        printer.write(" ")
        printer.print_region(self.regions[0], print_entry_args=False)
        printer.print_attr_dict(self.attributes, elided=[SEGMENTS])

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        parser.parse_punct("(")
        names = parser.parse_comma_separated(parser.parse_value_name, ")")
        parser.parse_punct(")")
        groups = []
        for opening in ("=", "to", "step"):
            if opening == "=":
                parser.parse_punct("=")
            else:
                parser.parse_keyword(opening)
            parser.parse_punct("(")
            operands = parser.parse_operand_list()
            parser.parse_punct(")")
            if len(operands) != len(names):
                raise parser.error(
                    f"expected {len(names)} values after '{opening}' (one per induction "
                    f"variable), got {len(operands)}"
                )
            groups.append(parser.resolve_operands(operands, [index] * len(operands)))
        inits = []
        if parser.parse_optional_keyword("init"):
            parser.parse_punct("(")
            inits = parser.parse_operand_list()
            parser.parse_punct(")")
        result_types = parse_optional_arrow_types(parser)
        init_values = parser.resolve_operands(inits, result_types)
        region = parser.parse_region(block_arguments(names, [index] * len(names)))
        ensure_terminator(region, ReduceOp.build)
        attributes = parser.parse_optional_attr_dict()
        rank = len(names)
        attributes[SEGMENTS] = segment_sizes(rank, rank, rank, len(init_values))
        operands = [*groups[0], *groups[1], *groups[2], *init_values]
        return cls(operands, result_types, attributes, [region])


__all__ = ["ParallelOp", "ReduceOp", "ReduceReturnOp"]

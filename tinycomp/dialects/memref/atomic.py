"""memref: atomic read-modify-writes, ``memref.atomic_rmw``, ``memref.generic_atomic_rmw``
and its terminator ``memref.atomic_yield``.

An atomic read-modify-write reads one element, combines it with a value and writes the
result back, with no other thread's access in between; it returns the value it read
(CUDA's ``atomicAdd``, ``atomicMax``, ``atomicExch``...)::

    %old = memref.atomic_rmw addf %v, %hist[%i] : (f32, memref<?xf32>) -> f32
    %was = memref.generic_atomic_rmw %lock[%i] : memref<?xi32> {
    ^bb0(%current: i32):
      %new = arith.select %free, %one, %current : i32
      memref.atomic_yield %new : i32
    }

``atomic_rmw`` names its combination by a kind (``addf``, ``addi``, ``maximumf``,
``maxs``, ``maxu``, ``minimumf``, ``mins``, ``minu``, ``mulf``, ``muli``, ``andi``,
``ori``, ``xori``, ``maxnumf``, ``minnumf`` and ``assign``, which only swaps), stored
as MLIR stores it: ``kind = N : i64``, the kind's position in alphabetical order.
``generic_atomic_rmw`` computes the new value in a region whose one argument is the
element read (a compare-and-swap is a ``select`` there); the region may hold only
side-effect-free ops. Both read and write their memref.

>>> from tinycomp.ir import Block, MemRefType, f32, index
>>> value, hist, i = Block([f32, MemRefType((None,), f32), index]).arguments
>>> op = AtomicRMWOp.build("addf", value, hist, [i])
>>> op.kind, op.result.type, [str(e.kind) for e in op.get_effects()]
('addf', FloatType(name='f32'), ['read', 'write'])
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.dialects.common.region_syntax import single_block
from tinycomp.dialects.common.structured_control import RegionYieldOp
from tinycomp.dialects.common.syntax import check_indices, parse_indexed_access
from tinycomp.dialects.memref.alloc import check_memref
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.block import Block
from tinycomp.ir.effects import is_pure
from tinycomp.ir.memory_effect import reads, writes
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.region import Region
from tinycomp.ir.types import FloatType, FunctionType, IntegerType, MemRefType, i64, index
from tinycomp.ir.values import Value

__all__ = [
    "ATOMIC_KINDS",
    "FLOAT_ATOMIC_KINDS",
    "INTEGER_ATOMIC_KINDS",
    "AtomicRMWOp",
    "AtomicYieldOp",
    "GenericAtomicRMWOp",
]

ATOMIC_KINDS = (
    "addf", "addi", "andi", "assign", "maximumf", "maxnumf", "maxs", "maxu", "minimumf",
    "minnumf", "mins", "minu", "mulf", "muli", "ori", "xori",
)  # fmt: skip
"""``arith::AtomicRMWKind`` in MLIR's order: the stored ``kind`` is the position here."""
FLOAT_ATOMIC_KINDS = ("addf", "maximumf", "maxnumf", "minimumf", "minnumf", "mulf")
"""The kinds that need a float element type (``assign`` takes any)."""
INTEGER_ATOMIC_KINDS = ("addi", "andi", "maxs", "maxu", "mins", "minu", "muli", "ori", "xori")
"""The kinds that need an integer element type."""


class AtomicRMWOp(Operation):
    """Combine a value into one element atomically, returning the old one:
    ``%old = memref.atomic_rmw maxs %v, %m[%i] : (i32, memref<?xi32>) -> i32``."""

    name = "memref.atomic_rmw"
    num_operands = None
    num_results = 1
    num_regions = 0
    num_successors = 0
    effects = (reads(1), writes(1))
    has_custom_syntax = True
    inherent_attributes = ("kind",)

    @classmethod
    def build(cls, kind: str, value: Value, memref: Value, indices: Sequence[Value]) -> AtomicRMWOp:
        """``memref[indices] = kind(memref[indices], value)``, atomically; the result is
        the element before."""
        if kind not in ATOMIC_KINDS:
            raise ValueError(f"expected an atomic kind ({', '.join(ATOMIC_KINDS)}), got '{kind}'")
        kind_attr = IntegerAttr(ATOMIC_KINDS.index(kind), i64)
        return cls([value, memref, *indices], [value.type], {"kind": kind_attr}, [])

    @property
    def kind(self) -> str:
        """``addf``, ``maxs``, ``assign``... (``""`` for a kind number out of range)."""
        attr = self.attributes.get("kind")
        if isinstance(attr, IntegerAttr) and 0 <= attr.value < len(ATOMIC_KINDS):
            return ATOMIC_KINDS[attr.value]
        return ""

    @property
    def value(self) -> Value:
        """The value combined into the element."""
        return self.operands[0]

    @property
    def memref(self) -> Value:
        """The buffer updated."""
        return self.operands[1]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[2:]

    def verify_op(self) -> None:
        if len(self.operands) < 2:
            raise self.error(f"expected a value and a memref, got {len(self.operands)} operands")
        kind = self.kind
        if not kind:
            raise self.error(
                f"expected 'kind' to be an i64 in [0, {len(ATOMIC_KINDS)}), "
                f"got {self.attributes.get('kind')}"
            )
        memref_type = check_memref(self, self.memref.type, "the second operand")
        check_indices(self, memref_type, self.indices)
        element = memref_type.element_type
        if self.value.type != element or self.result.type != element:
            raise self.error(
                f"expected the value and the result to have the element type {element}, "
                f"got {self.value.type} -> {self.result.type}"
            )
        if kind in FLOAT_ATOMIC_KINDS and not isinstance(element, FloatType):
            raise self.error(f"expected a float type for kind '{kind}', got {element}")
        if kind in INTEGER_ATOMIC_KINDS and not isinstance(element, IntegerType):
            raise self.error(f"expected an integer type for kind '{kind}', got {element}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(f" {self.kind} ")
        printer.print_operand(self.value)
        printer.write(", ")
        printer.print_operand(self.memref)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        printer.print_attr_dict(self.attributes, elided=["kind"])
        printer.write(f" : ({self.value.type}, {self.memref.type}) -> {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        token = parser.token
        kind = parser.parse_identifier("an atomic kind")
        if kind not in ATOMIC_KINDS:
            choices = ", ".join(ATOMIC_KINDS)
            raise parser.error(f"expected an atomic kind ({choices}), got '{kind}'", token)
        value = parser.parse_operand()
        parser.parse_punct(",")
        memref = parser.parse_operand()
        parser.parse_punct("[")
        indices = parser.parse_operand_list()
        parser.parse_punct("]")
        attributes = {"kind": IntegerAttr(ATOMIC_KINDS.index(kind), i64)}
        attributes.update(parser.parse_optional_attr_dict())
        type_token = parser.token
        function_type = parser.parse_colon_type()
        if not isinstance(function_type, FunctionType) or len(function_type.inputs) != 2:
            raise parser.error(
                f"expected '(value type, memref type) -> result type', got {function_type}",
                type_token,
            )
        (value_type, memref_type), results = function_type.inputs, function_type.results
        names = [value, memref, *indices]
        types = [value_type, memref_type, *[index] * len(indices)]
        return cls(parser.resolve_operands(names, types), list(results), attributes, [])


class GenericAtomicRMWOp(Operation):
    """Replace one element atomically by what a region computes from it, returning the
    old element: ``%old = memref.generic_atomic_rmw %m[%i] : memref<?xi32> { ... }``."""

    name = "memref.generic_atomic_rmw"
    num_operands = None
    num_results = 1
    num_regions = 1
    num_successors = 0
    effects = (reads(0), writes(0))
    has_custom_syntax = True

    @classmethod
    def build(cls, memref: Value, indices: Sequence[Value]) -> GenericAtomicRMWOp:
        """The op with an entry block holding the current element as its argument; fill
        it and end it with ``AtomicYieldOp.build(new_value)``."""
        if not isinstance(memref.type, MemRefType):
            raise ValueError(f"expected a memref to update, got {memref.type}")
        element = memref.type.element_type
        return cls([memref, *indices], [element], {}, [Region([Block([element])])])

    @property
    def memref(self) -> Value:
        """The buffer updated."""
        return self.operands[0]

    @property
    def indices(self) -> tuple[Value, ...]:
        """One index per dimension."""
        return self.operands[1:]

    @property
    def body(self) -> Block:
        """The block computing the new value from its argument, the current one."""
        return self.regions[0].entry_block

    @property
    def current_value(self) -> Value:
        """The element as read (the body's argument)."""
        return self.body.arguments[0]

    def verify_op(self) -> None:
        if not self.operands:
            raise self.error("expected a memref operand")
        memref_type = check_memref(self, self.memref.type, "the first operand")
        check_indices(self, memref_type, self.indices)
        element = memref_type.element_type
        if self.result.type != element:
            raise self.error(
                f"expected result type {element} (the element type), got {self.result.type}"
            )
        block = single_block(self, self.regions[0], "the body")
        argument_types = [str(argument.type) for argument in block.arguments]
        if argument_types != [str(element)]:
            raise self.error(
                f"expected the body to take one {element} argument (the current value), "
                f"got ({', '.join(argument_types)})"
            )
        for op in block.ops:
            if not op.is_terminator and not is_pure(op):
                raise self.error(f"expected only side-effect-free ops in the body, got '{op.name}'")
        last = block.last_op
        if last is None or last.name != AtomicYieldOp.name:
            found = last.name if last is not None else "nothing"
            raise self.error(f"expected the body to end in 'memref.atomic_yield', got '{found}'")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.memref)
        printer.write("[")
        printer.print_operands(self.indices)
        printer.write("]")
        printer.write(f" : {self.memref.type} ")
        printer.print_region(self.regions[0])
        printer.print_attr_dict(self.attributes)

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        operands, memref_type, attributes = parse_indexed_access(parser, MemRefType, "a memref")
        region = parser.parse_region()
        attributes.update(parser.parse_optional_attr_dict())
        return cls(operands, [memref_type.element_type], attributes, [region])


class AtomicYieldOp(RegionYieldOp):
    """End a ``memref.generic_atomic_rmw`` body with the new value:
    ``memref.atomic_yield %new : i32``."""

    name = "memref.atomic_yield"
    num_operands = 1
    allowed_parents = (GenericAtomicRMWOp.name,)

    @classmethod
    def build(cls, values: Value | Sequence[Value] = ()) -> AtomicYieldOp:
        """Yield the new value (one value, or a one-element sequence)."""
        return cls([values] if isinstance(values, Value) else list(values))

    def verify_op(self) -> None:
        super().verify_op()
        parent = self.parent_op()
        if parent is not None and self.operands[0].type != parent.result.type:
            raise self.error(
                f"expected to yield the element type {parent.result.type}, "
                f"got {self.operands[0].type}"
            )

"""nvvm: ``nvvm.shfl.sync`` (PTX ``shfl.sync``) and ``nvvm.bar.warp.sync`` (``bar.warp.sync``,
CUDA's ``__syncwarp``).

As ``mlir-opt`` prints them (two spaces before the kind)::

    %r = nvvm.shfl.sync  down %mask, %x, %delta, %clamp : f32 -> f32
    nvvm.bar.warp.sync %mask : i32

Each lane of ``%mask`` reads ``%x`` from another lane: ``bfly`` from ``lane ^ offset``,
``up`` from ``lane - offset``, ``down`` from ``lane + offset``, ``idx`` from lane
``offset``, within segments of ``width`` lanes. ``%clamp`` encodes the width as PTX
does: ``((32 - width) << 8) | 0x1f`` for ``bfly``, ``down`` and ``idx``, and
``(32 - width) << 8`` for ``up`` (``shuffle_clamp`` computes it). A lane whose source
is outside its segment keeps its own value. With the unit attribute
``return_value_and_is_valid`` the result is ``!llvm.struct<(T, i1)>`` (value, valid);
tinycomp keeps that form opaque and checks the plain one.

``bar.warp.sync`` waits until every lane of ``%mask`` arrives (and orders their memory
accesses). Both are convergent; MLIR declares no memory effects for either, so they may
read and write any memory.

>>> from tinycomp.ir import Block, f32, i32
>>> mask, x, offset, clamp = Block([i32, f32, i32, i32]).arguments
>>> shfl = ShflSyncOp.build("down", mask, x, offset, clamp)
>>> shfl.kind, shfl.result.type, shfl.is_convergent, shuffle_clamp("down", 16)
('down', FloatType(name='f32'), True, 4127)
"""

from __future__ import annotations

from tinycomp.dialects.gpu.enums import check_enum, enum_attr, enum_value, parse_enum_keyword
from tinycomp.ir.attributes import Attribute
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import FloatType, IntegerType, i32
from tinycomp.ir.values import Value

__all__ = ["SHFL_KINDS", "BarWarpSyncOp", "ShflSyncOp", "shuffle_clamp"]

SHFL_KINDS = ("bfly", "up", "down", "idx")
"""The kinds of ``#nvvm<shfl_kind ...>``."""
WARP_SIZE = 32


def shuffle_clamp(kind: str, width: int = WARP_SIZE) -> int:
    """The ``clamp`` operand PTX's ``shfl.sync`` takes for segments of ``width`` lanes.

    >>> shuffle_clamp("bfly"), shuffle_clamp("up"), hex(shuffle_clamp("idx", 8))
    (31, 0, '0x181f')
    """
    if kind not in SHFL_KINDS:
        raise ValueError(f"expected a shuffle kind ({', '.join(SHFL_KINDS)}), got '{kind}'")
    if width not in (1, 2, 4, 8, 16, 32):
        raise ValueError(f"expected a shuffle width that is a power of two up to 32, got {width}")
    segment = (WARP_SIZE - width) << 8
    return segment if kind == "up" else segment | 0x1F


class ShflSyncOp(Operation):
    """Read a value from another lane of the mask:
    ``%r = nvvm.shfl.sync  bfly %mask, %x, %lane_mask, %clamp : f32 -> f32``."""

    name = "nvvm.shfl.sync"
    num_operands = 4
    num_results = 1
    num_regions = 0
    num_successors = 0
    is_convergent = True
    has_custom_syntax = True
    inherent_attributes = ("kind", "return_value_and_is_valid")

    @classmethod
    def build(cls, kind: str, mask: Value, value: Value, offset: Value, clamp: Value) -> ShflSyncOp:
        """A ``shfl.sync`` of ``value`` in ``kind`` (``bfly``, ``up``, ``down``, ``idx``)."""
        attributes = {"kind": enum_attr("nvvm", "shfl_kind", kind)}
        return cls([mask, value, offset, clamp], [value.type], attributes, [])

    @property
    def kind(self) -> str:
        """``bfly``, ``up``, ``down`` or ``idx``."""
        return enum_value(self.attributes.get("kind"), "nvvm", "shfl_kind") or ""

    @property
    def mask(self) -> Value:
        """The i32 mask of the lanes taking part."""
        return self.operands[0]

    @property
    def value(self) -> Value:
        """The value each lane offers."""
        return self.operands[1]

    @property
    def offset(self) -> Value:
        """The lane mask (``bfly``), delta (``up``, ``down``) or source lane (``idx``)."""
        return self.operands[2]

    @property
    def clamp(self) -> Value:
        """The segment width, encoded as PTX's ``c`` operand."""
        return self.operands[3]

    def verify_op(self) -> None:
        check_enum(self, "kind", "nvvm", "shfl_kind", SHFL_KINDS)
        for what, operand in (("mask", self.mask), ("offset", self.offset), ("clamp", self.clamp)):
            if operand.type != i32:
                raise self.error(f"expected the {what} to be i32, got {operand.type}")
        if not isinstance(self.value.type, (IntegerType, FloatType)):
            raise self.error(f"expected an integer or float value, got {self.value.type}")
        if "return_value_and_is_valid" in self.attributes:
            return  # the result is the !llvm.struct<(T, i1)> pair, which tinycomp keeps opaque
        if self.result.type != self.value.type:
            raise self.error(
                f"expected a result of the value's type {self.value.type}, got {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.kind} ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes, elided=["kind"])
        printer.write(f" : {self.value.type} -> {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        kind = parse_enum_keyword(parser, "a shuffle kind", SHFL_KINDS)
        names = parser.parse_operand_list()
        attributes: dict[str, Attribute] = {"kind": enum_attr("nvvm", "shfl_kind", kind)}
        attributes.update(parser.parse_optional_attr_dict())
        value_type = parser.parse_colon_type()
        parser.parse_punct("->")
        result_type = parser.parse_type()
        if len(names) != 4:
            raise parser.error(
                f"expected 4 operands (mask, value, offset, clamp), got {len(names)}"
            )
        values = parser.resolve_operands(names, [i32, value_type, i32, i32])
        return cls(values, [result_type], attributes, [])


class BarWarpSyncOp(Operation):
    """Wait for the lanes of a mask (``__syncwarp(mask)``): ``nvvm.bar.warp.sync %mask : i32``.

    >>> from tinycomp.ir import Block, i32
    >>> (mask,) = Block([i32]).arguments
    >>> op = BarWarpSyncOp.build(mask)
    >>> op.is_barrier, op.is_convergent, op.get_effects() is None
    (True, True, True)
    """

    name = "nvvm.bar.warp.sync"
    num_operands = 1
    num_results = 0
    num_regions = 0
    num_successors = 0
    is_convergent = True
    is_barrier = True
    has_custom_syntax = True

    @classmethod
    def build(cls, mask: Value) -> BarWarpSyncOp:
        """A ``bar.warp.sync`` of the lanes in ``mask``."""
        return cls([mask], [], {}, [])

    @property
    def mask(self) -> Value:
        """The i32 mask of the lanes that wait for each other."""
        return self.operands[0]

    def verify_op(self) -> None:
        if self.mask.type != i32:
            raise self.error(f"expected an i32 lane mask, got {self.mask.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(" ")
        printer.print_operand(self.mask)
        printer.print_attr_dict(self.attributes)
        printer.write(f" : {self.mask.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        name = parser.parse_operand()
        attributes = parser.parse_optional_attr_dict()
        mask = parser.resolve_operand(name, parser.parse_colon_type())
        return cls([mask], [], attributes, [])

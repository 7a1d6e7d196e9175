"""nvvm: ``nvvm.redux.sync``, ``nvvm.elect.sync`` and ``nvvm.vote.sync``.

As ``mlir-opt`` prints them (two spaces before the kind)::

    %s = nvvm.redux.sync  add %x, %mask : i32 -> i32
    %m = nvvm.redux.sync  fmax %f, %mask {abs = true, nan = true} : f32 -> f32
    %one = nvvm.elect.sync -> i1
    %bits = nvvm.vote.sync  ballot %mask, %pred -> i32
    %any = nvvm.vote.sync  any %mask, %pred -> i1

``redux.sync`` reduces an i32 over the lanes of ``%mask`` (``add``, ``min``, ``max``,
``umin``, ``umax``, ``and``, ``or``, ``xor``) or an f32 (``fmin``, ``fmax``, with the
``abs`` and ``nan`` flags); ``ballot`` gives the i32 whose bit ``l`` is lane ``l``'s
predicate, the other votes an i1.

>>> from tinycomp.ir import Block, i1, i32
>>> mask, pred = Block([i32, i1]).arguments
>>> vote = VoteSyncOp.build("ballot", mask, pred)
>>> vote.kind, vote.result.type, vote.is_convergent
('ballot', IntegerType(width=32), True)
"""

from __future__ import annotations

from tinycomp.dialects.gpu.enums import check_enum, enum_attr, enum_value, parse_enum_keyword
from tinycomp.ir.attributes import Attribute, BoolAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.types import f32, i1, i32
from tinycomp.ir.values import Value

__all__ = ["REDUX_KINDS", "VOTE_KINDS", "ElectSyncOp", "ReduxSyncOp", "VoteSyncOp"]

INT_REDUX = ("add", "and", "max", "min", "or", "umax", "umin", "xor")
FLOAT_REDUX = ("fmin", "fmax")
REDUX_KINDS = INT_REDUX + FLOAT_REDUX
"""The kinds of ``#nvvm<redux_kind ...>``."""
VOTE_KINDS = ("any", "all", "ballot", "uni")
"""The kinds of ``#nvvm<vote_sync_kind ...>``."""


class WarpSyncOp(Operation):
    """Base of the nvvm warp ops: no regions, convergent, one result."""

    num_results = 1
    num_regions = 0
    num_successors = 0
    is_convergent = True
    has_custom_syntax = True

    def _check_mask(self, mask: Value) -> None:
        if mask.type != i32:
            raise self.error(f"expected an i32 lane mask, got {mask.type}")


class ReduxSyncOp(WarpSyncOp):
    """Reduce over the lanes of a mask: ``%s = nvvm.redux.sync  add %x, %mask : i32 -> i32``."""

    name = "nvvm.redux.sync"
    num_operands = 2
    inherent_attributes = ("kind", "abs", "nan")

    @classmethod
    def build(
        cls, kind: str, value: Value, mask: Value, abs: bool = False, nan: bool = False
    ) -> ReduxSyncOp:
        """``redux.sync`` of ``value`` by ``kind`` over the lanes in ``mask``."""
        attributes: dict[str, Attribute] = {
            "kind": enum_attr("nvvm", "redux_kind", kind),
            "abs": BoolAttr(abs),
            "nan": BoolAttr(nan),
        }
        return cls([value, mask], [value.type], attributes, [])

    @property
    def kind(self) -> str:
        """``add``, ``umax``, ``fmin``..."""
        return enum_value(self.attributes.get("kind"), "nvvm", "redux_kind") or ""

    def verify_op(self) -> None:
        kind = check_enum(self, "kind", "nvvm", "redux_kind", REDUX_KINDS)
        value, mask = self.operands
        self._check_mask(mask)
        want = f32 if kind in FLOAT_REDUX else i32
        if value.type != want or self.result.type != want:
            raise self.error(
                f"expected {want} for '{kind}', got {value.type} -> {self.result.type}"
            )

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.kind} ")
        printer.print_operands(self.operands)
        flags = {k: v for k, v in self.attributes.items() if k != "kind"}
        flags = {
            k: v for k, v in flags.items() if not (k in ("abs", "nan") and v == BoolAttr(False))
        }
        printer.print_attr_dict(flags)
        printer.write(f" : {self.operands[0].type} -> {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        kind = parse_enum_keyword(parser, "a redux kind", REDUX_KINDS)
        names = parser.parse_operand_list()
        extra = parser.parse_optional_attr_dict()
        value_type = parser.parse_colon_type()
        parser.parse_punct("->")
        result_type = parser.parse_type()
        if len(names) != 2:
            raise parser.error(f"expected 2 operands (value, mask), got {len(names)}")
        value, mask = parser.resolve_operands(names, [value_type, i32])
        op = cls.build(kind, value, mask)
        return cls([value, mask], [result_type], {**op.attributes, **extra}, [])


class ElectSyncOp(WarpSyncOp):
    """True on exactly one lane of the warp: ``%one = nvvm.elect.sync -> i1``.

    >>> ElectSyncOp.build().result.type
    IntegerType(width=1)
    """

    name = "nvvm.elect.sync"
    num_operands = None

    @classmethod
    def build(cls, mask: Value | None = None) -> ElectSyncOp:
        """``elect.sync`` over all lanes, or over ``mask``."""
        return cls([mask] if mask is not None else [], [i1], {}, [])

    def verify_op(self) -> None:
        if len(self.operands) > 1:
            raise self.error(f"expected at most one operand (the mask), got {len(self.operands)}")
        for mask in self.operands:
            self._check_mask(mask)
        if self.result.type != i1:
            raise self.error(f"expected an i1 result, got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        if self.operands:
            printer.write(" ")
            printer.print_operand(self.operands[0])
        printer.print_attr_dict(self.attributes)
        printer.write(" -> i1")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        names = parser.parse_operand_list()
        masks = parser.resolve_operands(names, [i32] * len(names))
        attributes = parser.parse_optional_attr_dict()
        parser.parse_punct("->")
        return cls(masks, [parser.parse_type()], attributes, [])


class VoteSyncOp(WarpSyncOp):
    """A vote of the lanes in a mask: ``%b = nvvm.vote.sync  ballot %mask, %p -> i32``."""

    name = "nvvm.vote.sync"
    num_operands = 2
    inherent_attributes = ("kind",)

    @classmethod
    def build(cls, kind: str, mask: Value, predicate: Value) -> VoteSyncOp:
        """A ``ballot`` (an i32) or an ``any``/``all``/``uni`` (an i1) of ``predicate``."""
        result = i32 if kind == "ballot" else i1
        attributes = {"kind": enum_attr("nvvm", "vote_sync_kind", kind)}
        return cls([mask, predicate], [result], attributes, [])

    @property
    def kind(self) -> str:
        """``ballot``, ``any``, ``all`` or ``uni``."""
        return enum_value(self.attributes.get("kind"), "nvvm", "vote_sync_kind") or ""

    def verify_op(self) -> None:
        kind = check_enum(self, "kind", "nvvm", "vote_sync_kind", VOTE_KINDS)
        mask, predicate = self.operands
        self._check_mask(mask)
        if predicate.type != i1:
            raise self.error(f"expected an i1 predicate, got {predicate.type}")
        want = i32 if kind == "ballot" else i1
        if self.result.type != want:
            raise self.error(f"expected an {want} result for '{kind}', got {self.result.type}")

    def print_custom(self, printer: Printer) -> None:
        printer.write(f"  {self.kind} ")
        printer.print_operands(self.operands)
        printer.print_attr_dict(self.attributes, elided=["kind"])
        printer.write(f" -> {self.result.type}")

    @classmethod
    def parse_custom(cls, parser: Parser) -> Operation:
        kind = parse_enum_keyword(parser, "a vote kind", VOTE_KINDS)
        names = parser.parse_operand_list()
        attributes = {"kind": enum_attr("nvvm", "vote_sync_kind", kind)}
        attributes.update(parser.parse_optional_attr_dict())
        parser.parse_punct("->")
        result_type = parser.parse_type()
        if len(names) != 2:
            raise parser.error(f"expected 2 operands (mask, predicate), got {len(names)}")
        values = parser.resolve_operands(names, [i32, i1])
        return cls(values, [result_type], attributes, [])

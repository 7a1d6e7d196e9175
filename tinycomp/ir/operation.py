"""Operations: the nodes of the IR.

An operation has a name (``"arith.addf"``), operands (values it reads), results (values
it defines), attributes (compile-time constants), regions (nested code, e.g. a function
body) and successors (blocks it may branch to). This is MLIR's ``Operation``, and like
MLIR every op is one of these objects: ``arith.addf`` is an instance of ``AddFOp``, a
small subclass that adds a docstring, accessors, a verifier and custom syntax.

Ops built by the parser for names no dialect registered are plain ``Operation``
objects; they print in MLIR's generic form and take part in every analysis.

>>> from tinycomp.ir import Operation, f32, i32
>>> op = Operation.create("test.op", result_types=[f32, i32])
>>> type(op).__name__, len(op.results), op.results[1].type
('Operation', 2, IntegerType(width=32))
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.location import Location, describe_location
from tinycomp.ir.op_definition import OpDefinition
from tinycomp.ir.op_tree import OpTree
from tinycomp.ir.types import Type
from tinycomp.ir.values import OpResult, Use, Value

if TYPE_CHECKING:
    from tinycomp.ir.block import Block
    from tinycomp.ir.region import Region


class Operation(OpDefinition, OpTree):
    """One operation; subclass it (see ``dialect.py``) to define a registered op. What a
    subclass declares (counts, traits, effects, syntax hooks) is in ``OpDefinition``."""

    def __init__(
        self,
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
        successors: Sequence[Block] = (),
        location: Location | None = None,
        *,
        name: str | None = None,
    ) -> None:
        """Create a detached op. Registered classes pass nothing for ``name``."""
        own_name = type(self).name
        if name is None or (own_name and name == own_name):
            name = own_name
        elif own_name:
            raise ValueError(f"class {type(self).__name__} builds '{own_name}', not '{name}'")
        if not name:
            raise ValueError("expected an op name")
        _check_arguments(name, operands, result_types, attributes or {}, regions)
        self.name = name
        """The op name, ``dialect.opname``."""
        self._operands: list[Value] = []
        self.results: tuple[OpResult, ...] = tuple(
            OpResult(self, i, t) for i, t in enumerate(result_types)
        )
        """The values this op defines (a fixed number)."""
        self.attributes: dict[str, Attribute] = dict(attributes or {})
        """Compile-time constants by name; edit freely (values must be ``Attribute``)."""
        self.regions: tuple[Region, ...] = tuple(regions)
        """Nested regions (a fixed number; fill them with ``region.append_block``)."""
        self._successors: list[Block] = list(successors)
        self.location = location
        """Where the op came from (``None`` when unknown)."""
        self.parent: Block | None = None
        """The block holding this op (``None`` while detached)."""
        self._prev: Operation | None = None  # neighbours in the parent block's list
        self._next: Operation | None = None
        for value in operands:
            self._add_operand(value)
        for region in self.regions:
            region.parent_op = self

    @classmethod
    def create(
        cls,
        name: str,
        operands: Sequence[Value] = (),
        result_types: Sequence[Type] = (),
        attributes: dict[str, Attribute] | None = None,
        regions: Sequence[Region] = (),
        successors: Sequence[Block] = (),
        location: Location | None = None,
    ) -> Operation:
        """Create an op by name: an instance of the registered class for ``name``, or a
        plain ``Operation`` when no dialect registered it. This is what the parser uses.

        >>> from tinycomp.ir import Block, f32
        >>> a = Block([f32]).arguments[0]
        >>> type(Operation.create("arith.negf", [a], [f32])).__name__
        'NegFOp'
        """
        from tinycomp.ir.registry import lookup_op_class

        op_class = lookup_op_class(name) or Operation
        return op_class(
            operands, result_types, attributes, regions, successors, location, name=name
        )

    # -- operands and results ----------------------------------------------------------
    @property
    def operands(self) -> tuple[Value, ...]:
        """The values read by this op (change them with ``set_operand``)."""
        return tuple(self._operands)

    def operand(self, index: int) -> Value:
        """Operand number ``index``."""
        return self._operands[index]

    def set_operand(self, index: int, value: Value) -> None:
        """Make operand ``index`` read ``value``, updating both use lists."""
        if not isinstance(value, Value):
            raise TypeError(f"operand of '{self.name}' is not a Value: {value!r}")
        old = self._operands[index]
        del old._uses[Use(self, index)]
        self._operands[index] = value
        value._uses[Use(self, index)] = None

    def set_operands(self, values: Sequence[Value]) -> None:
        """Replace the whole operand list (its length may change)."""
        _check_arguments(self.name, values, (), {}, ())
        self._drop_operands()
        for value in values:
            self._add_operand(value)

    def _add_operand(self, value: Value) -> None:
        value._uses[Use(self, len(self._operands))] = None
        self._operands.append(value)

    def _drop_operands(self) -> None:
        for index, value in enumerate(self._operands):
            del value._uses[Use(self, index)]
        self._operands = []

    @property
    def result(self) -> OpResult:
        """The only result (an error for ops with zero or several results)."""
        if len(self.results) != 1:
            raise ValueError(f"'{self.name}' has {len(self.results)} results, expected 1")
        return self.results[0]

    @property
    def result_types(self) -> tuple[Type, ...]:
        """The types of the results."""
        return tuple(r.type for r in self.results)

    @property
    def operand_types(self) -> tuple[Type, ...]:
        """The types of the operands."""
        return tuple(v.type for v in self._operands)

    # -- successors ----------------------------------------------------------------------
    @property
    def successors(self) -> tuple[Block, ...]:
        """The blocks this terminator may branch to."""
        return tuple(self._successors)

    def set_successor(self, index: int, block: Block) -> None:
        """Make successor ``index`` be ``block``."""
        self._successors[index] = block

    # -- diagnostics and text ------------------------------------------------------------
    def error(self, message: str) -> VerifyError:
        """A ``VerifyError`` naming this op and its line, for ``raise op.error(...)``."""
        return VerifyError(f"'{self.name}'{describe_location(self.location)}: {message}", self)

    def verify(self) -> None:
        """Verify this op and everything nested in it (see ``verifier.py``)."""
        from tinycomp.ir.verifier import verify

        verify(self)

    def __str__(self) -> str:
        from tinycomp.ir.printer import print_ir

        return print_ir(self)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"


def _check_arguments(
    name: str,
    operands: Sequence[Value],
    result_types: Sequence[Type],
    attributes: dict[str, Attribute],
    regions: Sequence[Region],
) -> None:
    """Reject bad constructor arguments before the op touches any use list."""
    for value in operands:
        if not isinstance(value, Value):
            raise TypeError(f"operand of '{name}' is not a Value: {value!r}")
    for result_type in result_types:
        if not isinstance(result_type, Type):
            raise TypeError(f"result type of '{name}' is not a Type: {result_type!r}")
    for key, value in attributes.items():
        if not isinstance(value, Attribute):
            raise TypeError(f"attribute '{key}' of '{name}' is not an Attribute: {value!r}")
    for region in regions:
        if region.parent_op is not None:
            raise ValueError("region already belongs to an operation")

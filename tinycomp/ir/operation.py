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

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.errors import VerifyError
from tinycomp.ir.location import Location, describe_location
from tinycomp.ir.types import Type
from tinycomp.ir.values import OpResult, Use, Value

if TYPE_CHECKING:
    from tinycomp.ir.block import Block
    from tinycomp.ir.region import Region


class Operation:
    """One operation; subclass it (see ``dialect.py``) to define a registered op."""

    # -- what a registered op class declares (plain class attributes) -----------------
    name: str = ""
    """The full op name, ``dialect.opname``."""
    is_terminator: bool = False
    """Ends a block (``func.return``, ``cf.br``); must be the last op of its block."""
    is_isolated_from_above: bool = False
    """Its regions may not use values defined outside it (``func.func``, ``module``)."""
    no_terminator: bool = False
    """The blocks of its regions need no terminator (``module``)."""
    has_graph_regions: bool = False
    """Its regions are graph regions: no dominance rule (``module``)."""
    is_pure: bool = False
    """No side effects: may be removed when unused, or merged with an identical op."""
    is_symbol_table: bool = False
    """Its region holds ops that define symbols (``module`` holds functions)."""
    has_custom_syntax: bool = False
    """Implements ``print_custom``/``parse_custom``; otherwise printed in generic form."""
    default_dialect: str = ""
    """Inside its regions, ops of this dialect print without the prefix (``return``)."""
    num_operands: int | None = None
    """Exact operand count, checked by the verifier (``None``: any number)."""
    num_results: int | None = None
    """Exact result count (``None``: any number)."""
    num_regions: int | None = None
    """Exact region count (``None``: any number)."""
    num_successors: int | None = None
    """Exact successor count (``None``: any number)."""
    inherent_attributes: tuple[str, ...] = ()
    """Attributes that belong to the op's definition (``<{...}>`` in generic form)."""
    default_attributes: dict[str, Attribute] = {}
    """Attributes whose absence means this value (``fastmath = #arith.fastmath<none>``)."""

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

    # -- where the op is -----------------------------------------------------------------
    def parent_region(self) -> Region | None:
        """The region holding this op's block."""
        return self.parent.parent if self.parent is not None else None

    def parent_op(self) -> Operation | None:
        """The op whose region holds this op (``func.func`` for ops in its body)."""
        region = self.parent_region()
        return region.parent_op if region is not None else None

    @property
    def next_op(self) -> Operation | None:
        """The op after this one in its block."""
        return self._next

    @property
    def prev_op(self) -> Operation | None:
        """The op before this one in its block."""
        return self._prev

    def is_ancestor_of(self, other: Operation) -> bool:
        """True if ``other`` is this op or nested (at any depth) inside it."""
        current: Operation | None = other
        while current is not None:
            if current is self:
                return True
            current = current.parent_op()
        return False

    # -- moving and deleting -----------------------------------------------------------
    def detach(self) -> Operation:
        """Remove the op from its block, keeping its operands and uses. Returns self."""
        if self.parent is not None:
            self.parent._unlink(self)
        return self

    def move_before(self, anchor: Operation) -> None:
        """Move this op right before ``anchor`` (possibly into another block)."""
        if anchor.parent is None:
            raise ValueError(f"'{anchor.name}' is not in a block")
        self.detach()
        anchor.parent.insert_before(self, anchor)

    def move_after(self, anchor: Operation) -> None:
        """Move this op right after ``anchor``."""
        if anchor.parent is None:
            raise ValueError(f"'{anchor.name}' is not in a block")
        self.detach()
        anchor.parent.insert_after(self, anchor)

    def erase(self) -> None:
        """Delete the op: detach it and drop its operands and those of nested ops.

        Raises ``ValueError`` when a result is still used (replace the uses first).

        >>> from tinycomp.ir import parse
        >>> m = parse("func.func @f(%x: f32) { %0 = arith.negf %x : f32  return }")
        >>> m.body.first_op.entry_block.first_op.erase()
        >>> print(m.body.first_op)
        func.func @f(%x: f32) {
          return
        }
        """
        for result in self.results:
            for use in result._uses:
                if not self.is_ancestor_of(use.user):
                    raise ValueError(
                        f"cannot erase '{self.name}'{describe_location(self.location)}: result "
                        f"#{result.index} is still used by '{use.user.name}'"
                        f"{describe_location(use.user.location)}"
                    )
        self.detach()
        self.drop_all_references()

    def drop_all_references(self) -> None:
        """Clear the operands of this op and of every op nested in it."""
        for op in self.walk():
            op._drop_operands()

    # -- copying and traversal -----------------------------------------------------------
    def clone(self, mapping: dict[Any, Any] | None = None) -> Operation:
        """A deep copy (regions included), detached.

        ``mapping`` maps old values/blocks to new ones; operands found in it are
        replaced, and it is filled with old -> new for every result, block and block
        argument copied, so the caller can look up the copies afterwards.

        >>> from tinycomp.ir import parse
        >>> m = parse("func.func @f(%x: f32) -> f32 { return %x : f32 }")
        >>> f = m.body.first_op
        >>> mapping = {}
        >>> g = f.clone(mapping)
        >>> g.parent is None, mapping[f.arguments[0]] is g.arguments[0]
        (True, True)
        """
        mapping = {} if mapping is None else mapping
        new_op = self._clone_tree(mapping)
        for op in new_op.walk():  # remap uses that came before their definition
            for index, value in enumerate(op._operands):
                if value in mapping:
                    op.set_operand(index, mapping[value])
        return new_op

    def _clone_tree(self, mapping: dict[Any, Any]) -> Operation:
        regions = [region._clone_tree(mapping) for region in self.regions]
        new_op = type(self)(
            [mapping.get(v, v) for v in self._operands],
            [r.type for r in self.results],
            dict(self.attributes),
            regions,
            [mapping.get(b, b) for b in self._successors],
            self.location,
            name=self.name,
        )
        for old, new in zip(self.results, new_op.results, strict=True):
            new.name_hint = old.name_hint
            mapping[old] = new
        return new_op

    def walk(self, order: Literal["pre", "post"] = "pre") -> Iterator[Operation]:
        """Yield this op and every op nested in it, parents before children ("pre") or
        children before parents ("post"). Ops erased or moved during the walk are
        skipped once the walk reaches them; in post order erasing the op just yielded
        is always safe.

        >>> from tinycomp.ir import parse
        >>> m = parse("func.func @f(%x: f32) { %0 = arith.negf %x : f32  return }")
        >>> [op.name for op in m.walk(order="post")]
        ['arith.negf', 'func.return', 'func.func', 'builtin.module']
        """
        if order == "pre":
            yield self
        for region in self.regions:
            for block in region.blocks:
                for op in block.ops:
                    if op.parent is block:
                        yield from op.walk(order)
        if order == "post":
            yield self

    # -- hooks a registered op class may override ---------------------------------------
    def verify_op(self) -> None:
        """Check the op's own invariants; raise ``self.error(...)`` when one is broken."""

    def verify_symbol_uses(self, symbols: Any) -> None:
        """Check references to symbols (``func.call``'s callee) against ``symbols``, a
        ``SymbolTable`` of the nearest enclosing symbol-table op."""

    def successor_operands(self, index: int) -> Sequence[Value] | None:
        """The operands passed to successor ``index``'s block arguments, or ``None`` when
        the op does not say (unregistered ops)."""
        return None

    def asm_result_names(self) -> Sequence[str | None]:
        """Preferred names for the results when they have no ``name_hint`` (``%c0``)."""
        return ()

    def print_custom(self, printer: Any) -> None:
        """Print everything after the op name in custom syntax (``has_custom_syntax``)."""
        raise NotImplementedError(f"'{self.name}' has no custom syntax")

    @classmethod
    def parse_custom(cls, parser: Any) -> Operation:
        """Parse everything after the op name in custom syntax and build the op."""
        raise NotImplementedError(f"'{cls.name}' has no custom syntax")

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

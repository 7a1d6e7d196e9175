"""SSA values and their use lists.

A *value* is defined exactly once: either as a result of an operation (``OpResult``) or
as an argument of a block (``BlockArgument``). Every place that reads a value is a
*use*: the pair (user operation, operand position). Each value keeps the set of its uses
up to date, so "who reads ``%3``?" is a lookup, not a search, and
``replace_all_uses_with`` is as cheap as the number of uses.

The use list is maintained by ``Operation`` (``set_operand``, ``erase``...); never edit
``_uses`` by hand.

>>> from tinycomp.ir import Block, f32
>>> block = Block([f32])
>>> x = block.arguments[0]
>>> x.type, x.has_uses
(FloatType(name='f32'), False)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinycomp.ir.types import Type

if TYPE_CHECKING:
    from tinycomp.ir.block import Block
    from tinycomp.ir.operation import Operation


@dataclass(frozen=True)
class Use:
    """One read of a value: operand number ``index`` of operation ``user``."""

    user: Operation
    """The operation reading the value."""
    index: int
    """Which of ``user``'s operands it is."""


class Value:
    """Base class of SSA values: something with a type that operations can read.

    Values compare by identity (two ``%0`` in different functions are different values).
    """

    def __init__(self, type: Type, name_hint: str | None = None) -> None:
        self.type = type
        """The value's type; may be changed in place by passes that retype IR."""
        self.name_hint = name_hint
        """A preferred SSA name (``"sum"`` prints ``%sum``), or ``None`` for a number."""
        self._uses: dict[Use, None] = {}
        """The uses, as an insertion-ordered set (a dict with ``None`` values)."""

    @property
    def uses(self) -> list[Use]:
        """All uses, in the order they were created."""
        return list(self._uses)

    @property
    def users(self) -> list[Operation]:
        """The operations that read this value (an op appears once per operand slot)."""
        return [use.user for use in self._uses]

    @property
    def has_uses(self) -> bool:
        """True when at least one operation reads this value."""
        return bool(self._uses)

    @property
    def num_uses(self) -> int:
        """How many operand slots read this value."""
        return len(self._uses)

    def replace_all_uses_with(self, new: Value) -> None:
        """Make every user read ``new`` instead of this value.

        >>> from tinycomp.ir import Block, Operation, f32
        >>> block = Block([f32, f32])
        >>> a, b = block.arguments
        >>> add = Operation.create("arith.addf", [a, a], [f32])
        >>> a.replace_all_uses_with(b)
        >>> add.operands == (b, b), a.has_uses
        (True, False)
        """
        if new is self:
            return
        for use in list(self._uses):
            use.user.set_operand(use.index, new)

    def replace_uses_with_if(self, new: Value, should_replace) -> None:
        """Replace only the uses for which ``should_replace(use)`` is true."""
        for use in list(self._uses):
            if should_replace(use):
                use.user.set_operand(use.index, new)

    def defining_op(self) -> Operation | None:
        """The operation that defines this value, or ``None`` for a block argument."""
        return None

    def parent_block(self) -> Block | None:
        """The block in which the value is defined (``None`` when detached)."""
        raise NotImplementedError


class OpResult(Value):
    """Result number ``index`` of operation ``op``."""

    def __init__(self, op: Operation, index: int, type: Type) -> None:
        super().__init__(type)
        self.op = op
        """The operation that defines the value."""
        self.index = index
        """Position among ``op.results``."""

    def defining_op(self) -> Operation:
        """The operation that defines this value."""
        return self.op

    def parent_block(self) -> Block | None:
        """The block holding the defining operation."""
        return self.op.parent

    def __repr__(self) -> str:
        return f"<OpResult #{self.index} of '{self.op.name}': {self.type}>"


class BlockArgument(Value):
    """Argument number ``index`` of ``block`` (a function parameter, a loop variable,
    or a value passed along a branch edge: MLIR's replacement for phi nodes)."""

    def __init__(self, block: Block, index: int, type: Type) -> None:
        super().__init__(type)
        self.block = block
        """The block that owns the argument."""
        self.index = index
        """Position among ``block.arguments``."""

    def parent_block(self) -> Block:
        """The owning block."""
        return self.block

    def __repr__(self) -> str:
        return f"<BlockArgument #{self.index}: {self.type}>"

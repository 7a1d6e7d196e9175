"""An op's place in the tree: its parents and neighbours, moving, erasing, cloning, walking.

``Operation`` inherits these methods; they only use the links every op has (``parent``,
the neighbours in the block's list, ``regions``) and the use lists of its values.

>>> from tinycomp.ir import parse
>>> m = parse("func.func @f(%x: f32) { %0 = arith.negf %x : f32  return }")
>>> neg = m.body.first_op.entry_block.first_op
>>> neg.parent_op().name, neg.next_op.name, m.is_ancestor_of(neg)
('func.func', 'func.return', True)
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, Literal

from tinycomp.ir.location import describe_location

if TYPE_CHECKING:
    from tinycomp.ir.block import Block
    from tinycomp.ir.location import Location
    from tinycomp.ir.operation import Operation
    from tinycomp.ir.region import Region
    from tinycomp.ir.values import OpResult, Value

__all__ = ["OpTree"]


class OpTree:
    """The tree methods of ``Operation`` (see the module docstring)."""

    if TYPE_CHECKING:
        name: str
        parent: Block | None
        regions: tuple[Region, ...]
        results: tuple[OpResult, ...]
        attributes: dict[str, Any]
        location: Location | None
        _operands: list[Value]
        _successors: list[Block]
        _prev: Operation | None
        _next: Operation | None

        def _drop_operands(self) -> None: ...
        def set_operand(self, index: int, value: Value) -> None: ...

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

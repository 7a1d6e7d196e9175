"""Regions: the nested code of an operation, a list of blocks.

A function body, a loop body and a module body are regions. The first block is the
*entry block*: control enters there, and its arguments are the region's inputs (the
function parameters, the loop index). Branches may only target blocks of the same
region, so a region is a self-contained control-flow graph.

>>> from tinycomp.ir import Block, Region, index
>>> body = Region([Block([index])])
>>> len(body.blocks), body.entry_block.arguments[0].type
(1, IndexType())
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from tinycomp.ir.block import Block

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation


class Region:
    """An ordered list of blocks owned by one operation."""

    def __init__(self, blocks: Sequence[Block] = ()) -> None:
        self._blocks: list[Block] = []
        self.parent_op: Operation | None = None
        """The operation that owns this region (set when the op is created)."""
        for block in blocks:
            self.append_block(block)

    @property
    def blocks(self) -> tuple[Block, ...]:
        """The blocks, entry block first."""
        return tuple(self._blocks)

    @property
    def entry_block(self) -> Block | None:
        """The first block, or ``None`` for an empty region."""
        return self._blocks[0] if self._blocks else None

    def __iter__(self) -> Iterator[Block]:
        return iter(list(self._blocks))

    def __len__(self) -> int:
        return len(self._blocks)

    def append_block(self, block: Block) -> Block:
        """Add a detached block at the end; returns it."""
        return self.insert_block(len(self._blocks), block)

    def insert_block(self, position: int, block: Block) -> Block:
        """Insert a detached block at ``position``; returns it."""
        if block.parent is not None:
            raise ValueError("block already belongs to a region")
        block.parent = self
        self._blocks.insert(position, block)
        return block

    def remove_block(self, block: Block) -> None:
        """Take ``block`` out of this region (its ops stay in it)."""
        self._blocks.remove(block)
        block.parent = None

    def take_body(self, other: Region) -> None:
        """Move all blocks of ``other`` to the end of this region."""
        for block in other.blocks:
            other.remove_block(block)
            self.append_block(block)

    def walk(self) -> Iterator[Operation]:
        """Every op in this region, pre-order."""
        for block in self.blocks:
            yield from block.walk()

    def _clone_tree(self, mapping: dict[Any, Any]) -> Region:
        """Copy the blocks first (branches may jump forward), then the ops in order."""
        new_region = Region()
        for block in self._blocks:
            new_block = Block()
            for argument in block.arguments:
                copy = new_block.add_argument(argument.type, argument.name_hint)
                mapping[argument] = copy
            mapping[block] = new_region.append_block(new_block)
        for block in self._blocks:
            for op in block:
                mapping[block].append(op._clone_tree(mapping))
        return new_region

    def clone(self, mapping: dict[Any, Any] | None = None) -> Region:
        """A deep copy of the region, not attached to any op (see ``Operation.clone``)."""
        mapping = {} if mapping is None else mapping
        new_region = self._clone_tree(mapping)
        for op in new_region.walk():
            for position, value in enumerate(op.operands):
                if value in mapping:
                    op.set_operand(position, mapping[value])
        return new_region

    def __repr__(self) -> str:
        return f"<Region with {len(self._blocks)} blocks>"

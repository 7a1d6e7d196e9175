"""The verifier: checks that IR is well formed, the way ``mlir-opt`` does after parsing.

``verify(op)`` raises a ``VerifyError`` for the first problem found, in three passes:

1. **Structure**, op by op in pre-order (parents before children):
   a. attribute values are ``Attribute``s; operand/result/region/successor counts match
      what the op class declares;
   b. an op with successors is the last op of its block; successors are blocks of the
      same region, never its entry block; the values passed to each successor match
      the target's arguments in number and type (for ops that say which operands go
      where, ``successor_operands``);
   c. in each region, every block ends with a terminator and no terminator sits
      elsewhere (regions of ``no_terminator`` ops and of unregistered ops are exempt);
   d. the op's own ``verify_op()``.
2. **Dominance**: every operand is defined in the IR, in the user's region or an
   enclosing one, but not outside an isolated-from-above op (``func.func``); inside
   SSACFG regions its definition dominates the use: earlier in the same block, or in a
   block that dominates the user's block (``dominance.py``). Graph regions (``module``)
   skip the ordering rule.
3. **Symbols**: names are unique within a symbol table, and ops that refer to symbols
   check them (``verify_symbol_uses``: a ``func.call`` needs a callee of matching type).

Each message names the op and its line and says what was expected and what was found.

>>> from tinycomp.ir import parse
>>> module = parse('''
... func.func @f(%a: f32, %b: f16) -> f32 {
...   %0 = "arith.addf"(%a, %b) : (f32, f16) -> f32
...   return %0 : f32
... }''', verify=False)
>>> try:
...     verify(module)
... except VerifyError as error:
...     print(error)
'arith.addf' at line 3: expected operand and result types to match, got f32 and f16
  %0 = "arith.addf"(%a, %b) : (f32, f16) -> f32
"""

from __future__ import annotations

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.block import Block
from tinycomp.ir.dominance import DominanceInfo
from tinycomp.ir.errors import VerifyError  # noqa: F401  (used in the docstring example)
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.symbols import SymbolTable, nearest_symbol_table, symbol_name
from tinycomp.ir.values import BlockArgument, OpResult, Value


def verify(root: Operation) -> None:
    """Verify ``root`` and everything nested in it; raise ``VerifyError`` if invalid."""
    _Verifier().run(root)


def count_mismatch(op: Operation) -> str | None:
    """``"expected 2 operands, got 3"`` if a declared count is wrong, else ``None``."""
    for what, expected, actual in (
        ("operand", op.num_operands, len(op.operands)),
        ("result", op.num_results, len(op.results)),
        ("region", op.num_regions, len(op.regions)),
        ("successor", op.num_successors, len(op.successors)),
    ):
        if expected is not None and expected != actual:
            return f"expected {expected} {what}{'' if expected == 1 else 's'}, got {actual}"
    return None


def is_registered(op: Operation) -> bool:
    """False for the plain ``Operation``s the parser builds for unknown op names."""
    return type(op) is not Operation


class _Verifier:
    def __init__(self) -> None:
        self._position: dict[Operation, int] = {}  # index of each op in its block
        self._dominance: dict[Region, DominanceInfo] = {}

    def run(self, root: Operation) -> None:
        self._check_structure(root)
        for op in root.walk():
            for index, value in enumerate(op.operands):
                self._check_dominance(op, index, value)
        self._check_symbols(root)

    # -- pass 1: structure --------------------------------------------------------------
    def _check_structure(self, op: Operation) -> None:
        for name, value in op.attributes.items():
            if not isinstance(value, Attribute):
                raise op.error(f"expected attribute '{name}' to be an Attribute, got {value!r}")
        problem = count_mismatch(op)
        if problem:
            raise op.error(problem)
        if op.successors:
            self._check_successors(op)
        needs_terminators = is_registered(op) and not op.no_terminator
        for region in op.regions:
            for number, block in enumerate(region.blocks):
                self._check_block(op, region, block, number, needs_terminators)
        op.verify_op()
        for region in op.regions:
            for block in region.blocks:
                for child in block:
                    self._check_structure(child)

    def _check_block(
        self, owner: Operation, region: Region, block: Block, number: int, needs_terminators: bool
    ) -> None:
        if block.parent is not region:
            raise owner.error("a block of its region does not point back to the region")
        last = block.last_op
        for op in block:
            if op.is_terminator and op is not last:
                raise op.error("a terminator must be the last operation of its block")
        if not needs_terminators:
            return
        if last is None:
            raise owner.error(f"empty block #{number} in a region: expected at least a terminator")
        if not last.is_terminator and is_registered(last):
            raise last.error(
                f"expected a terminator at the end of block #{number} of '{owner.name}', "
                f"found '{last.name}'"
            )

    def _check_successors(self, op: Operation) -> None:
        block = op.parent
        if block is not None and op is not block.last_op:
            raise op.error("an operation with successors must be the last of its block")
        region = block.parent if block is not None else None
        for index, successor in enumerate(op.successors):
            if region is None or successor.parent is not region:
                raise op.error(f"successor #{index} is not a block of the same region")
            if successor is region.entry_block:
                raise op.error(
                    f"successor #{index} is the entry block, which may not have predecessors"
                )
            operands = op.successor_operands(index)
            if operands is None:
                continue
            if len(operands) != len(successor.arguments):
                raise op.error(
                    f"expected {len(successor.arguments)} operands for successor #{index} "
                    f"(its block arguments), got {len(operands)}"
                )
            for position, (value, argument) in enumerate(
                zip(operands, successor.arguments, strict=True)
            ):
                if value.type != argument.type:
                    raise op.error(
                        f"expected type {argument.type} for block argument #{position} of "
                        f"successor #{index}, got {value.type}"
                    )

    # -- pass 2: dominance --------------------------------------------------------------
    def _check_dominance(self, op: Operation, index: int, value: Value) -> None:
        def_block = value.parent_block() if isinstance(value, (OpResult, BlockArgument)) else None
        if def_block is None or def_block.parent is None:
            raise op.error(
                f"operand #{index} is not defined in the IR (its defining op was erased or "
                "detached, or it is a leftover placeholder)"
            )
        def_region = def_block.parent
        user = op  # climb to the ancestor of `op` that sits in the defining region
        while user.parent is None or user.parent.parent is not def_region:
            parent = user.parent_op()
            if parent is None or (parent.is_isolated_from_above and _encloses(parent, def_region)):
                raise op.error(
                    f"operand #{index} is defined {_describe(value)}, "
                    "in a region that does not enclose this op"
                )
            if parent.is_isolated_from_above:
                raise op.error(
                    f"operand #{index} is defined {_describe(value)}, outside the "
                    f"isolated-from-above '{parent.name}'{describe_location(parent.location)}"
                )
            user = parent
        owner = def_region.parent_op
        if owner is not None and owner.has_graph_regions:
            return
        use_block = user.parent
        if def_block is use_block:
            if isinstance(value, BlockArgument) or self._index(value.op) < self._index(user):
                return
        elif def_block is def_region.entry_block:
            return  # the entry block dominates every block of its region
        elif self._dominance_of(def_region).dominates(def_block, use_block):
            return
        raise op.error(
            f"operand #{index} does not dominate this use: it is defined {_describe(value)}"
        )

    def _index(self, op: Operation) -> int:
        """Position of ``op`` in its block (numbering the whole block on first use)."""
        if op not in self._position:
            for position, sibling in enumerate(op.parent):
                self._position[sibling] = position
        return self._position[op]

    def _dominance_of(self, region: Region) -> DominanceInfo:
        if region not in self._dominance:
            self._dominance[region] = DominanceInfo(region)
        return self._dominance[region]

    # -- pass 3: symbols ------------------------------------------------------------------
    def _check_symbols(self, root: Operation) -> None:
        tables: dict[Operation, SymbolTable] = {}
        for op in root.walk():
            if op.is_symbol_table:
                seen: set[str] = set()
                for region in op.regions:
                    for block in region.blocks:
                        for child in block:
                            name = symbol_name(child)
                            if name in seen:
                                raise child.error(f"redefinition of symbol '@{name}'")
                            if name is not None:
                                seen.add(name)
            table_op = nearest_symbol_table(op)
            if table_op is not None and table_op not in tables:
                tables[table_op] = SymbolTable(table_op)
            op.verify_symbol_uses(tables.get(table_op) if table_op is not None else None)


def _describe(value: Value) -> str:
    """Where a value comes from, for messages: ``by 'arith.mulf' at line 7``."""
    if isinstance(value, OpResult):
        return f"by '{value.op.name}'{describe_location(value.op.location)}"
    if isinstance(value, BlockArgument):
        owner = value.block.parent_op()
        where = f" of a block in '{owner.name}'" if owner is not None else ""
        return f"as block argument #{value.index}{where}"
    return "nowhere"


def _encloses(op: Operation, region: Region) -> bool:
    """Whether ``region`` is nested, at any depth, inside one of ``op``'s regions."""
    owner = region.parent_op
    while owner is not None:
        if owner is op:
            return True
        owner = owner.parent_op()
    return False

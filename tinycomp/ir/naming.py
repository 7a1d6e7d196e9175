"""SSA names for printing: ``%0``, ``%arg0``, ``%sum``, ``%c0``, ``^bb1``.

Values have no names inside the IR; the printer invents them, following MLIR's own
scheme (``SSANameState`` in MLIR's AsmPrinter) so that tinycomp prints what
``mlir-opt`` prints:

1. Name every block of a region ``^bb0, ^bb1, ...`` in order (per region).
2. Walk the region's blocks in order. Entry-block arguments are ``%arg0, %arg1, ...``;
   other block arguments get the next number. Each op's results get, in order of
   preference: the first result's ``name_hint``, the op's ``asm_result_names()``
   (``%c0`` for ``arith.constant 0 : index``; custom form only), or the next number.
   An op with several results is named once, using one number: ``%0:2``, read as
   ``%0#0`` and ``%0#1``, and the next op is ``%1``.
3. A name already taken in this region or an enclosing one gets a suffix ``_N`` from a
   running counter: ``%cst, %cst_0, %cst_1``.
4. Only after the whole region is named, recurse into the regions of its ops. Each
   nested region starts from the counters reached in step 2, and sibling regions
   (``then`` and ``else``) start from the same counters, since they cannot see each
   other's values. That is why a loop body's values have higher numbers than the
   values printed after the loop.

>>> from tinycomp.ir import parse
>>> m = parse("func.func @f(%0: f32) -> f32 { %y = arith.addf %0, %0 : f32  return %y : f32 }")
>>> names = SSANames(m, use_asm_names=True)
>>> f = m.body.first_op
>>> entry = f.body.entry_block
>>> names.value_name(entry.arguments[0]), names.value_name(entry.first_op.result)
('%arg0', '%y')
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.region import Region
from tinycomp.ir.values import OpResult, Value

_INVALID_CHAR = re.compile(r"[^A-Za-z0-9$._-]")


@dataclass
class _Counters:
    """The running counters of step 2 and 3; copied for each nested region."""

    value: int = 0
    argument: int = 0
    conflict: int = 0


class _NameScope:
    """The names taken in one region, chained to the enclosing region's scope."""

    def __init__(self, parent: _NameScope | None) -> None:
        self.parent = parent
        self.names: set[str] = set()

    def __contains__(self, name: str) -> bool:
        scope: _NameScope | None = self
        while scope is not None:
            if name in scope.names:
                return True
            scope = scope.parent
        return False


def sanitize_name(hint: str) -> str:
    """Make ``hint`` a valid SSA name: odd characters become ``_``, and a name starting
    with a digit gets a ``_`` prefix so it cannot clash with numbered values.

    >>> sanitize_name("my sum"), sanitize_name("2x")
    ('my_sum', '_2x')
    """
    name = _INVALID_CHAR.sub("_", hint) or "_"
    return "_" + name if name[0].isdigit() else name


class SSANames:
    """The names of all values and blocks under ``root`` (see the module docstring)."""

    def __init__(self, root: Operation, use_asm_names: bool = True) -> None:
        self.use_asm_names = use_asm_names
        """Whether ops may suggest names (custom form); the generic form uses numbers."""
        self._values: dict[Value, str] = {}
        self._blocks: dict[Block, str] = {}
        counters, scope = _Counters(), _NameScope(None)
        self._name_results(root, counters, scope)
        for region in root.regions:
            self._name_region(region, replace(counters), _NameScope(scope))

    def value_name(self, value: Value) -> str:
        """``%name`` for a value, ``%name#i`` for result ``i`` of a multi-result op."""
        if isinstance(value, OpResult) and len(value.op.results) > 1:
            base = self._values.get(value.op.results[0])
            return f"{base}#{value.index}" if base else "<<UNKNOWN SSA VALUE>>"
        return self._values.get(value, "<<UNKNOWN SSA VALUE>>")

    def result_group_name(self, op: Operation) -> str:
        """The left-hand side of ``%0:2 = ...`` (without the ``:2``)."""
        return self._values.get(op.results[0], "<<UNKNOWN SSA VALUE>>")

    def block_name(self, block: Block) -> str:
        """``^bbN``, numbered within the block's region."""
        return self._blocks.get(block, "^<<UNKNOWN BLOCK>>")

    def _name_region(self, region: Region, counters: _Counters, scope: _NameScope) -> None:
        for number, block in enumerate(region.blocks):  # step 1
            self._blocks[block] = f"^bb{number}"
        for number, block in enumerate(region.blocks):  # step 2
            for argument in block.arguments:
                if argument.name_hint:
                    self._values[argument] = self._unique(argument.name_hint, counters, scope)
                elif number == 0:
                    name = f"arg{counters.argument}"
                    counters.argument += 1
                    self._values[argument] = self._unique(name, counters, scope)
                else:
                    self._values[argument] = f"%{counters.value}"
                    counters.value += 1
            for op in block:
                self._name_results(op, counters, scope)
        for block in region.blocks:  # step 4
            for op in block:
                for nested in op.regions:
                    self._name_region(nested, replace(counters), _NameScope(scope))

    def _name_results(self, op: Operation, counters: _Counters, scope: _NameScope) -> None:
        if not op.results:
            return
        hint = op.results[0].name_hint
        if not hint and self.use_asm_names:
            suggested = op.asm_result_names()
            hint = suggested[0] if suggested else None
        if hint:
            self._values[op.results[0]] = self._unique(hint, counters, scope)
        else:
            self._values[op.results[0]] = f"%{counters.value}"
            counters.value += 1  # one number per op, even for `%0:2`

    @staticmethod
    def _unique(hint: str, counters: _Counters, scope: _NameScope) -> str:
        """Step 3: ``hint`` itself if free, else ``hint_N`` with the next free N."""
        name = sanitize_name(hint)
        if name in scope:
            base = name
            while True:
                name = f"{base}_{counters.conflict}"
                counters.conflict += 1
                if name not in scope:
                    break
        scope.names.add(name)
        return "%" + name

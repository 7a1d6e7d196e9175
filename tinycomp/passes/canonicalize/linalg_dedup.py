"""Canonicalization of ``linalg.generic`` inputs: read each value once, and only if used.

Fusion leaves generics that read one tensor twice. Fusing both users of ``%e`` into
``%r = %a * %b`` (with ``%a = %e + 1`` and ``%b = %e * 2``) gives::

    %r = linalg.generic {indexing_maps = [#id, #id, #id], ...}
        ins(%e, %e : tensor<3x4xf32>, tensor<3x4xf32>) outs(%init : tensor<3x4xf32>) {
    ^bb0(%in: f32, %in_0: f32, %out: f32):
      %0 = arith.addf %in, %cst : f32
      %1 = arith.mulf %in_0, %cst_1 : f32
      %2 = arith.mulf %0, %1 : f32
      linalg.yield %2 : f32
    } -> tensor<3x4xf32>

Both inputs read the same element of the same tensor at every point of the loop nest,
so one of them is enough: ``ins(%e)``, with ``%in_0`` replaced by ``%in``. Now ``%e`` has
a single use, and fusion can pull its producer in as well. An input whose element the
payload never reads can go too, as long as the loop sizes can still be read off the
remaining operands. This is MLIR's ``DeduplicateAndRemoveDeadOperandsAndResults``
(``EraseUnusedOperandsAndResults.cpp``). In MLIR 22 it is not a canonicalization
pattern of ``linalg.generic``: ``populateEraseUnusedOperandsAndResultsPatterns`` adds it,
and the elementwise fusion pass runs it among its own patterns (``--canonicalize`` alone
leaves a duplicated input in place). tinycomp runs it in both places: inside
``linalg-fuse-elementwise-ops``, as MLIR does, and in its own ``canonicalize``. The
algorithm:

1. Walk the inputs in order, keeping a table from ``(value, indexing map)`` to the new
   position of the first input with that pair.
2. An input whose block argument has no uses is *dead*: drop it if every loop is still
   a plain dimension of some other operand's map (else its map is needed to know a
   loop's size, and it stays).
3. An input whose ``(value, map)`` is already in the table is a *duplicate*: drop it and
   remember that its block argument becomes the first one's.
4. Every other input is kept, at the next new position.
5. If nothing was dropped the pattern does not apply. Otherwise build a generic with
   the kept inputs and their maps, the same outputs, iterator types and attributes,
   and a copy of the payload in which each dropped duplicate's argument reads the
   kept argument; it replaces the old op.

tinycomp simplifies: MLIR's pattern also drops unused or duplicated *outputs* (and the
results that go with them); this one leaves outputs alone.

>>> from tinycomp.ir import parse
>>> from tinycomp.rewrite import apply_patterns_greedily
>>> m = parse('''
... #id = affine_map<(d0) -> (d0)>
... func.func @f(%x: tensor<4xf32>, %y: tensor<4xf32>) -> tensor<4xf32> {
...   %r = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
...       ins(%x, %y, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>)
...       outs(%y : tensor<4xf32>) {
...   ^bb0(%a: f32, %unused: f32, %b: f32, %out: f32):
...     %0 = arith.mulf %a, %b : f32
...     linalg.yield %0 : f32
...   } -> tensor<4xf32>
...   return %r : tensor<4xf32>
... }''')
>>> _ = apply_patterns_greedily(m, [DeduplicateAndRemoveDeadOperands()])
>>> generic = m.body.first_op.entry_block.first_op
>>> [f"%{v.name_hint}" for v in generic.inputs], len(generic.indexing_maps())
(['%x'], 2)
>>> for line in str(generic).splitlines()[1:3]:
...     print(line.strip())
^bb0(%a: f32, %out: f32):
%0 = arith.mulf %a, %a : f32
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.affine import AffineDimExpr, AffineMap
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = [
    "DeduplicateAndRemoveDeadOperands",
    "InputPlan",
    "linalg_dedup_patterns",
    "plan_inputs",
]


@dataclass(frozen=True)
class InputPlan:
    """Where each old input goes (steps 1-4): ``new_position[i]`` is the new position of
    input ``i`` (a duplicate shares its first copy's), ``None`` when it is dropped dead."""

    new_position: tuple[int | None, ...]
    """One entry per old input."""
    kept: tuple[int, ...]
    """The old positions of the inputs kept, in order."""

    @property
    def changes_anything(self) -> bool:
        """Whether some input is dropped (step 5)."""
        return len(self.kept) < len(self.new_position)


def _sized_loops(maps: Sequence[AffineMap]) -> set[int]:
    """The loops that are a plain dimension of one of ``maps`` (their size is known)."""
    return {r.position for m in maps for r in m.results if isinstance(r, AffineDimExpr)}


def plan_inputs(op: GenericOp) -> InputPlan:
    """Decide which inputs of ``op`` to keep (steps 1-4).

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    ...   %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
    ...        affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ...       ins(%x, %x : tensor<4xf32>, tensor<4xf32>) outs(%x : tensor<4xf32>) {
    ...   ^bb0(%a: f32, %b: f32, %out: f32):
    ...     %0 = arith.addf %a, %b : f32
    ...     linalg.yield %0 : f32
    ...   } -> tensor<4xf32>
    ...   return %r : tensor<4xf32>
    ... }''')
    >>> plan_inputs(m.body.first_op.entry_block.first_op)
    InputPlan(new_position=(0, 0), kept=(0,))
    """
    maps = op.indexing_maps()
    dropped: set[int] = set()
    first_copy: dict[tuple[Value, AffineMap], int] = {}
    new_position: list[int | None] = []
    kept: list[int] = []
    for position, value in enumerate(op.inputs):
        if not op.payload_reads(position):  # step 2
            others = [m for i, m in enumerate(maps) if i != position and i not in dropped]
            if _sized_loops(others) >= set(range(op.num_loops)):
                dropped.add(position)
                new_position.append(None)
                continue
        key = (value, maps[position])
        if key in first_copy:  # step 3
            dropped.add(position)
            new_position.append(first_copy[key])
            continue
        first_copy[key] = len(kept)  # step 4
        new_position.append(len(kept))
        kept.append(position)
    return InputPlan(tuple(new_position), tuple(kept))


def _rebuild(op: GenericOp, plan: InputPlan) -> GenericOp:
    """The generic with only the kept inputs and the payload rewired (step 5)."""
    maps = op.indexing_maps()
    inputs = [op.inputs[i] for i in plan.kept]
    outputs = list(op.outputs)
    new_maps = [maps[i] for i in plan.kept] + maps[op.num_inputs :]
    doc = op.attributes.get("doc")
    library_call = op.attributes.get("library_call")
    new_op = GenericOp.build(
        inputs,
        outputs,
        new_maps,
        op.iterator_types(),
        doc=doc.value if isinstance(doc, StringAttr) else None,
        library_call=library_call.value if isinstance(library_call, StringAttr) else None,
    )
    for key, attr in op.attributes.items():  # discardable attributes travel along
        if key not in GenericOp.inherent_attributes:
            new_op.attributes[key] = attr
    old_arguments = op.body.arguments
    new_arguments = new_op.body.arguments
    mapping: dict = {}
    for position, target in enumerate(plan.new_position):
        if target is not None:
            mapping[old_arguments[position]] = new_arguments[target]
            new_arguments[target].name_hint = old_arguments[plan.kept[target]].name_hint
    for index in range(op.num_outputs):
        old, new = old_arguments[op.num_inputs + index], new_arguments[len(inputs) + index]
        mapping[old] = new
        new.name_hint = old.name_hint
    for payload_op in op.body.ops:
        new_op.body.append(payload_op.clone(mapping))
    return new_op


class DeduplicateAndRemoveDeadOperands(RewritePattern):
    """generic ins(%x, %x, %dead) maps(m, m, _) -> generic ins(%x) maps(m)"""

    root = "linalg.generic"

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter) -> bool:
        if not isinstance(op, GenericOp):
            return False
        plan = plan_inputs(op)
        if not plan.changes_anything:
            return False
        new_op = _rebuild(op, plan)
        for old, new in zip(op.results, new_op.results, strict=True):
            new.name_hint = old.name_hint
        rewriter.replace_op_with_new(op, new_op)
        return True


def linalg_dedup_patterns() -> list[RewritePattern]:
    """One instance of each pattern of this module."""
    return [DeduplicateAndRemoveDeadOperands()]

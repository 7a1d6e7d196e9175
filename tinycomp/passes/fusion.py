"""Producer-consumer fusion of elementwise ``linalg.generic`` ops on tensors.

Two generics where one reads the other's result are two kernels with a tensor between
them, written to memory and read back. Fusing them gives one kernel that computes the
producer's element right where the consumer needs it: the intermediate tensor is never
materialized. This is MLIR's ``--linalg-fuse-elementwise-ops`` (ElementwiseOpFusion.cpp),
in its simplest form. The algorithm:

1. Find a pair: a consumer generic (tensor semantics) with an input operand that is the
   result of a producer generic.
2. Check the rule, recording the reason when a pair cannot fuse:
   a. the producer has only parallel iterators (a reduction has no element per point);
   b. the producer has one result, and the producer's output map is a permutation, so
      it can be inverted: ``inverse(out)`` maps a result position to producer loops;
   c. ``inverse(out) ∘ consumer_map`` gives the producer's loops in terms of the
      consumer's loops (it always composes once (b) holds);
   d. the producer's result has a single use (MLIR can keep the producer alive; we don't);
   e. the producer's payload does not use ``linalg.index`` (its loops would need
      renumbering), and every consumer loop still appears in some fused map (so the
      loop sizes stay known).
3. Build the fused op: the consumer's loops and iterator types; operands = the
   consumer's inputs before the fused one, the producer's inputs (and its init, if its
   payload reads it), the consumer's remaining inputs, the consumer's outputs. A producer
   operand's map is ``producer_map ∘ inverse(producer_output_map) ∘ consumer_map``.
4. Build the fused payload: clone the producer's payload ops (block arguments mapped to
   the new ones), then the consumer's, with the fused operand's block argument replaced
   by the value the producer yielded.
5. Replace the consumer by the fused op and erase the producer; try the fused op again
   (its new inputs may fuse too).
6. When none of its producers fuses, deduplicate its inputs
   (``DeduplicateAndRemoveDeadOperands``, as MLIR's pass does too): a generic that now
   reads one tensor twice reads it once, so a producer shared by two consumers that
   were fused together gets a single use and can fuse in turn (back to 2). Then go on
   to the next consumer in program order; sweep again until a sweep changes nothing.
   The reasons of that last sweep are the pass's ``report``.

>>> from tinycomp.ir import parse
>>> m = parse('''
... #id = affine_map<(d0) -> (d0)>
... func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
...   %e = tensor.empty() : tensor<4xf32>
...   %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
...       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = math.exp %in : f32
...     linalg.yield %0 : f32
...   } -> tensor<4xf32>
...   %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
...       ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %0 = arith.addf %in, %in : f32
...     linalg.yield %0 : f32
...   } -> tensor<4xf32>
...   return %b : tensor<4xf32>
... }''')
>>> fusion = FusionPass()
>>> fusion.run(m)
>>> fusion.statistics["kernels before"], fusion.statistics["kernels after"]
(2, 1)
>>> fusion.statistics["intermediate bytes not materialized"]  # one tensor<4xf32>
16
"""

from __future__ import annotations

from collections.abc import Callable

import tinycomp.dialects.linalg  # noqa: F401  (registers the linalg op classes)
from tinycomp.affine import AffineMap
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.ir import RankedTensorType
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.type_helpers import byte_size
from tinycomp.ir.values import Value
from tinycomp.passes.canonicalize.linalg_dedup import DeduplicateAndRemoveDeadOperands
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter, RewriteListener

__all__ = ["FusionPass", "fuse_producer_into_consumer", "why_not_fusable"]


def why_not_fusable(producer: Operation, consumer: GenericOp, operand_index: int) -> str | None:
    """Why ``producer`` cannot be fused into ``consumer`` through operand
    ``operand_index`` (step 2), or ``None`` when it can.

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... func.func @f(%x: tensor<4xf32>, %e: tensor<4xf32>) -> tensor<4xf32> {
    ...   %a = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>,
    ...        affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
    ...       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ...   ^bb0(%in: f32, %out: f32):
    ...     linalg.yield %in : f32
    ...   } -> tensor<4xf32>
    ...   return %a : tensor<4xf32>
    ... }''')
    >>> generic = m.body.first_op.entry_block.first_op
    >>> why_not_fusable(generic, generic, 1)
    'the fused operand is an output (init) of the consumer, not an input'
    """
    if not isinstance(producer, GenericOp):
        return f"producer '{producer.name}' is not a linalg.generic"
    if not consumer.is_tensor_semantics:
        return "consumer works on buffers, not tensors"
    if operand_index >= consumer.num_inputs:
        return "the fused operand is an output (init) of the consumer, not an input"
    if len(producer.results) != 1 or producer.num_outputs != 1:
        return f"producer has {len(producer.results)} results (only one is supported)"
    if "reduction" in producer.iterator_types():
        return "producer has a reduction iterator"
    output_map = producer.indexing_maps()[-1]
    if not output_map.is_permutation():
        return f"producer output map {output_map} is not a permutation"
    uses = producer.results[0].num_uses
    if uses != 1:
        return f"result has {uses} users"
    if any(isinstance(op, IndexOp) for op in producer.body.walk()):
        return "producer payload uses linalg.index"
    maps = _fused_indexing_maps(producer, consumer, operand_index)
    covered = {position for m in maps for position in _dim_positions(m)}
    missing = [d for d in range(consumer.num_loops) if d not in covered]
    if missing:
        return f"fusion would lose the size of loop d{missing[0]}"
    return None


def fuse_producer_into_consumer(
    producer: GenericOp, consumer: GenericOp, operand_index: int, rewriter: PatternRewriter
) -> GenericOp:
    """Replace ``consumer`` by one generic that also computes ``producer`` (steps 3-5);
    the caller has checked ``why_not_fusable`` is ``None``. Returns the fused op."""
    producer_operands = _producer_operands_kept(producer)
    inputs = [
        *consumer.inputs[:operand_index],
        *(producer.operands[i] for i in producer_operands),
        *consumer.inputs[operand_index + 1 :],
    ]
    fused = GenericOp.build(
        inputs,
        list(consumer.outputs),
        _fused_indexing_maps(producer, consumer, operand_index),
        consumer.iterator_types(),
    )
    # Step 4: the new block's arguments follow the operand order chosen above.
    new_arguments = list(fused.body.arguments)
    mapping: dict = {}
    before = new_arguments[:operand_index]
    from_producer = new_arguments[operand_index : operand_index + len(producer_operands)]
    after = new_arguments[operand_index + len(producer_operands) :]
    for position, argument in zip(producer_operands, from_producer, strict=True):
        mapping[producer.body.arguments[position]] = argument
    producer_yield = producer.body.terminator
    for op in producer.body.ops:
        if op is not producer_yield:
            fused.body.append(op.clone(mapping))
    yielded = producer_yield.operands[0]
    mapping[consumer.body.arguments[operand_index]] = mapping.get(yielded, yielded)
    consumer_arguments = list(consumer.body.arguments)
    del consumer_arguments[operand_index]
    for old, new in zip(consumer_arguments, [*before, *after], strict=True):
        mapping[old] = new
    for op in consumer.body.ops:
        fused.body.append(op.clone(mapping))
    # Step 5.
    with rewriter.at(InsertionPoint.before(consumer)):
        rewriter.insert(fused)
    for result, new in zip(consumer.results, fused.results, strict=True):
        new.name_hint = result.name_hint
    rewriter.replace_op(consumer, fused.results)
    rewriter.erase_op(producer)
    return fused


class FusionPass(Pass):
    """Fuse elementwise producer generics into their consumers (see the module docstring).

    ``report`` lists, after a run, each producer-consumer pair left unfused and why.
    ``rule(producer, consumer, operand_index)`` decides which pairs may fuse (default
    ``why_not_fusable``; MLIR's pass takes a ``ControlFusionFn`` likewise), and
    ``listener`` is told about every change, as the greedy driver's listener is.
    Subclasses may extend ``fuse_pair`` to see each fusion as it happens.

    >>> FusionPass.name
    'linalg-fuse-elementwise-ops'
    """

    name = "linalg-fuse-elementwise-ops"
    summary = "fuse elementwise linalg.generic producers into their consumers (on tensors)"

    def __init__(
        self,
        rule: Callable[[GenericOp, GenericOp, int], str | None] = why_not_fusable,
        listener: RewriteListener | None = None,
    ) -> None:
        super().__init__()
        self.rule = rule
        """Why a pair may not fuse, or ``None`` (``why_not_fusable``'s signature)."""
        self.listener = listener
        """Told about every op the pass creates, replaces or erases (may be ``None``)."""
        self.report: list[str] = []
        """One line per producer-consumer pair not fused: ``'%a -> %b: reason'``."""
        self._initial_names: SSANames | None = None
        self._carried_names: dict[Value, str] = {}

    def run(self, op: Operation) -> None:
        self.report = []
        self.statistics["kernels before"] += _count_generics(op)
        # The report names each op as ``print`` named it *before* fusion (``%3``,
        # ``%exp``), as the fusion graph and the chapters do; an op that replaces
        # another (fused, or deduplicated) keeps the name of the op it replaced.
        self._initial_names = SSANames(op, use_asm_names=True)
        self._carried_names: dict[Value, str] = {}
        rewriter = PatternRewriter(self.listener)
        while self._fuse_sweep(op, rewriter):
            pass
        self.statistics["kernels after"] += _count_generics(op)

    def fuse_pair(
        self, producer: GenericOp, consumer: GenericOp, index: int, rewriter: PatternRewriter
    ) -> GenericOp:
        """Fuse ``producer`` into ``consumer`` through input ``index`` (steps 3-5)."""
        self.statistics["fused pairs"] += 1
        self.statistics["intermediate bytes not materialized"] += _bytes(consumer.operands[index])
        rewriter.set_current_op(consumer)
        replaced = list(consumer.results)
        fused = fuse_producer_into_consumer(producer, consumer, index, rewriter)
        self._carry_names(replaced, fused)
        return fused

    def name_of(self, value: Value) -> str:
        """``value``'s name in the program as it was before this run of the pass."""
        if value in self._carried_names:
            return self._carried_names[value]
        if self._initial_names is None:  # fuse_pair called outside run()
            return f"%{value.name_hint}" if value.name_hint else f"<{value.type}>"
        return self._initial_names.value_name(value)

    def _carry_names(self, replaced: list[Value], replacement: Operation) -> None:
        """The results of ``replacement`` take the names of the results they replaced."""
        for old, new in zip(replaced, replacement.results, strict=False):
            self._carried_names[new] = self.name_of(old)

    def _fuse_sweep(self, root: Operation, rewriter: PatternRewriter) -> bool:
        """One pass over the consumers in program order (steps 1-6). Each consumer takes
        in producers, and has its inputs deduplicated, until neither changes it; then the
        sweep moves on. Neither step can make an *earlier* consumer fusable (a
        deduplication only lowers the use count of values its own op reads), so a sweep
        does the work of restarting after every change, in time linear in the program.
        Returns whether anything changed; a sweep that changed nothing leaves its
        reasons in ``report``."""
        reasons: list[str] = []
        changed = False
        for consumer in list(root.walk()):
            current = consumer if isinstance(consumer, GenericOp) else None
            while current is not None and current.parent is not None:
                current = self._fuse_into(current, rewriter, reasons) or self._deduplicate(
                    current, rewriter
                )
                changed = changed or current is not None
        if not changed:
            self.report = reasons
        return changed

    def _fuse_into(
        self, consumer: GenericOp, rewriter: PatternRewriter, reasons: list[str]
    ) -> GenericOp | None:
        """Fuse the first fusable producer of ``consumer``; the fused op, or ``None``
        (with the reasons appended) when no producer fuses."""
        for index, operand in enumerate(consumer.operands):
            producer = operand.defining_op()
            if not isinstance(producer, GenericOp):
                continue
            reason = self.rule(producer, consumer, index)
            if reason is not None:
                producer_name = self.name_of(operand)
                consumer_name = self.name_of(consumer.results[0])
                reasons.append(f"{producer_name} -> {consumer_name}: {reason}")
                continue
            return self.fuse_pair(producer, consumer, index, rewriter)
        return None

    def _deduplicate(self, generic: GenericOp, rewriter: PatternRewriter) -> GenericOp | None:
        """Step 6 on one generic: the op that replaced it, or ``None`` if it reads no
        input twice (and has no dead one)."""
        before = generic.prev_op
        block = generic.parent
        replaced = list(generic.results)
        rewriter.set_current_op(generic)
        if not DeduplicateAndRemoveDeadOperands().match_and_rewrite(generic, rewriter):
            return None
        replacement = before.next_op if before is not None else block.first_op
        assert isinstance(replacement, GenericOp), replacement
        self._carry_names(replaced, replacement)
        return replacement


def _producer_operands_kept(producer: GenericOp) -> list[int]:
    """The producer's inputs, and its init when the payload reads it (step 3)."""
    kept = list(range(producer.num_inputs))
    if producer.payload_reads(producer.num_inputs):
        kept.append(producer.num_inputs)
    return kept


def _fused_indexing_maps(
    producer: GenericOp, consumer: GenericOp, operand_index: int
) -> list[AffineMap]:
    """The fused op's maps, in the operand order of step 3."""
    producer_maps = producer.indexing_maps()
    consumer_maps = consumer.indexing_maps()
    # Producer loops in terms of consumer loops: inverse(out) ∘ consumer_map.
    producer_loops = producer_maps[-1].inverse_permutation().compose(consumer_maps[operand_index])
    from_producer = [
        producer_maps[i].compose(producer_loops) for i in _producer_operands_kept(producer)
    ]
    return [
        *consumer_maps[:operand_index],
        *from_producer,
        *consumer_maps[operand_index + 1 :],
    ]


def _dim_positions(affine_map: AffineMap) -> set[int]:
    """The loop dimensions a map's results mention."""
    return {
        d
        for d in range(affine_map.num_dims)
        if any(r.is_function_of_dim(d) for r in affine_map.results)
    }


def _count_generics(root: Operation) -> int:
    return sum(1 for op in root.walk() if isinstance(op, GenericOp))


def _bytes(value: Value) -> int:
    """Size of a tensor value in bytes (0 for dynamic shapes)."""
    if not isinstance(value.type, RankedTensorType):
        return 0
    return byte_size(value.type) or 0


register_pass(FusionPass)

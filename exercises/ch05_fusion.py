"""Chapter 05: fusion.

Every kernel boundary is a round trip to memory: the producer writes a whole tensor, the
consumer reads it back. Fusion puts the producer's payload inside the consumer's loops,
so the element is computed where it is needed and the tensor is never written. The
library's pass is ``FusionPass`` (``linalg-fuse-elementwise-ops``); its rule and its
maps are in ``tinycomp/passes/fusion.py``. Three tasks, each plugging into the pipeline:

1. ``producer_loops`` and ``fused_operand_map``: the indexing-map algebra of fusion.
   Which producer iteration made the element the consumer reads, and so which map each
   of the producer's operands gets inside the fused op.
2. ``can_fuse``: the legality rule, returning the reason a pair may not fuse (or
   ``None``). The worked pass ``FuseWithMyRule`` runs FusionPass's loop with your rule.
3. ``should_duplicate`` and ``DuplicateElementwiseProducers``: a pass that makes a
   fusion the library refuses legal. A cheap elementwise producer with several readers
   is copied, one copy per reader; then each copy has a single reader and fuses.

Run your code in the pipeline with ``tinycomp.compile`` (see the notebook's last cells):
``CompileOptions(fusion=False, extra_passes={"fused": [FuseWithMyRule()]})`` fuses with
your rule, ``CompileOptions(extra_passes={"generalized": [DuplicateElementwiseProducers()]})``
runs your pass just before the library fuses. Fill in each TODO in
``exercises/ch05_fusion.py``, then run ``tinycomp grade ch05``.
"""

from __future__ import annotations

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
from tinycomp.affine import AffineMap
from tinycomp.ir import Operation
from tinycomp.ir.dialects.linalg_generic import GenericOp, IndexOp  # noqa: F401
from tinycomp.passes import Pass
from tinycomp.rewrite import PatternRewriter  # noqa: F401
from tinycomp.viz.fusion_graph import fuse_and_record

__all__ = [
    "DuplicateElementwiseProducers",
    "FuseWithMyRule",
    "can_fuse",
    "fused_operand_map",
    "producer_loops",
    "should_duplicate",
]


# -- Task 05.1 --------------------------------------------------------------------------------
def producer_loops(producer_result_map: AffineMap, consumer_operand_map: AffineMap) -> AffineMap:
    """The producer's loop indices as a function of the consumer's loop indices.

    At its loop point ``c`` the consumer reads the producer's result at element
    ``e = consumer_operand_map(c)``. The producer wrote element ``e`` at the loop point
    ``p`` with ``producer_result_map(p) = e``. When that map is a permutation it can be
    undone: ``p = inverse(producer_result_map)(e)``. So the answer is
    ``inverse(producer_result_map) ∘ consumer_operand_map``.

    ``AffineMap.inverse_permutation()`` gives the inverse (and raises ``ValueError``
    when the map is not a permutation); ``f.compose(g)`` is ``f ∘ g``: ``g`` first.

    >>> from tinycomp.affine import parse_affine_map
    >>> swap = parse_affine_map("(d0, d1) -> (d1, d0)")   # the producer writes out[j, i]
    >>> row = parse_affine_map("(d0, d1, d2) -> (d0, d2)")  # the consumer reads t[i, k]
    >>> print(producer_loops(swap, row))
    (d0, d1, d2) -> (d2, d0)
    """
    # TODO(Task 05.1): the indexing maps of a fused operand
    raise NotImplementedError(
        "Task 05.1: invert the producer's result map, compose it with the consumer's"
    )


def fused_operand_map(
    producer_operand_map: AffineMap,
    producer_result_map: AffineMap,
    consumer_operand_map: AffineMap,
) -> AffineMap:
    """The indexing map one of the producer's operands gets inside the fused op:
    ``producer_operand_map ∘ inverse(producer_result_map) ∘ consumer_operand_map``.

    The fused op runs the consumer's loops. At each consumer point, ``producer_loops``
    says which producer point to recompute, and the producer read its operand at
    ``producer_operand_map`` of that point.

    >>> from tinycomp.affine import parse_affine_map
    >>> bias = parse_affine_map("(d0) -> (d0)")         # exp(b) over b's one loop
    >>> out = parse_affine_map("(d0) -> (d0)")
    >>> column = parse_affine_map("(d0, d1) -> (d1)")  # x + exp(b), b broadcast over rows
    >>> print(fused_operand_map(bias, out, column))
    (d0, d1) -> (d1)
    """
    # TODO(Task 05.1): the indexing maps of a fused operand
    raise NotImplementedError(
        "Task 05.1: the producer's operand map composed with producer_loops(...)"
    )


# -- Task 05.2 ---------------------------------------------------------------------------------
def can_fuse(producer: Operation, consumer: GenericOp, operand_index: int) -> str | None:
    """Why ``producer`` may not be fused into ``consumer`` through the consumer's operand
    ``operand_index`` (whose value is the producer's result), or ``None`` when it may.

    Check in this order and return the first reason that applies, word for word:

    1. ``producer`` is not a ``GenericOp`` (a named op such as ``linalg.matmul``, or
       not linalg at all): ``f"producer '{producer.name}' is not a linalg.generic"``.
    2. The operand is not one of the consumer's inputs
       (``operand_index >= consumer.num_inputs``): it is an ``outs`` init, the value the
       consumer starts from, not an element it reads per point:
       ``"the fused operand is an output (init) of the consumer, not an input"``.
    3. The producer has more (or fewer) than one result, or than one output:
       ``f"producer has {len(producer.results)} results (only one is supported)"``.
    4. Some iterator of the producer is ``"reduction"``: its result is complete only
       after the whole reduction loop has run, so no single iteration computes an
       element: ``"producer has a reduction iterator"``.
    5. The producer's output map (``producer.indexing_maps()[-1]``) is not a
       permutation (``AffineMap.is_permutation``), so it cannot be inverted:
       ``f"producer output map {output_map} is not a permutation"``.
    6. The producer's result has more than one use (``value.num_uses``; a consumer that
       reads it twice counts twice): fusing would erase a value someone else still
       reads: ``f"result has {uses} users"``.
    7. The producer's payload uses ``linalg.index`` (an ``IndexOp`` anywhere in
       ``producer.body.walk()``): its loop numbers would change in the fused op:
       ``"producer payload uses linalg.index"``.
    8. Some consumer loop would appear in no map of the fused op, so its size would be
       lost. The fused op's maps are the consumer's, except the fused operand's, plus
       one map per producer operand that is kept (every input; also the producer's init
       when its payload reads it, ``producer.payload_reads(producer.num_inputs)``),
       each ``fused_operand_map(...)`` of Task 05.1 (so do Task 05.1 first). A loop
       ``d<k>`` appears in a map when ``m.is_function_of_dim(k)``. Report the first
       missing one: ``f"fusion would lose the size of loop d{k}"``.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> module = trace(softmax, TensorSpec((2, 4)))
    >>> generics = [op for op in module.walk() if isinstance(op, GenericOp)]
    >>> maximum, subtract = generics[0], generics[1]
    >>> can_fuse(maximum, subtract, 1)
    'producer has a reduction iterator'
    """
    # TODO(Task 05.2): the legality rule of fusion
    raise NotImplementedError(
        "Task 05.2: check the eight conditions in order; first reason, or None"
    )


# -- worked example: FusionPass's loop with your rule -------------------------------------------
class FuseWithMyRule(Pass):
    """``linalg-fuse-elementwise-ops`` with ``can_fuse`` (Task 05.2) deciding.

    The loop is FusionPass's (steps 1 and 5 of ``tinycomp/passes/fusion.py``): find the
    first producer-consumer pair the rule allows, fuse it with the library's
    ``fuse_producer_into_consumer``, repeat until no pair is allowed.
    ``fuse_and_record`` (``tinycomp.viz.fusion_graph``) runs that loop and remembers
    which original ops each kernel holds. MLIR's pass takes its rule the same way, as a
    ``ControlFusionFn``.

    >>> FuseWithMyRule.name
    'my-fuse-elementwise-ops'
    """

    name = "my-fuse-elementwise-ops"
    summary = "FusionPass's loop, with the rule of Task 05.2"

    def __init__(self) -> None:
        super().__init__()
        self.report: list[str] = []
        """One line per pair left unfused: ``'%a -> %b: reason'``."""

    def run(self, op: Operation) -> None:
        record = fuse_and_record(op, rule=can_fuse)
        self.report = list(record.reasons)
        self.statistics["kernels before"] += record.kernels_before
        self.statistics["kernels after"] += len(record.kernels)
        self.statistics["intermediate bytes not materialized"] += sum(record.not_written.values())


# -- Task 05.3 ---------------------------------------------------------------------------------
def should_duplicate(op: Operation) -> bool:
    """Whether ``DuplicateElementwiseProducers`` copies ``op``: an elementwise producer
    that fusion refuses only because it has several readers.

    True when all of these hold:

    1. ``op`` is a ``GenericOp`` on tensors (``op.is_tensor_semantics``) with exactly
       one result;
    2. every iterator is ``"parallel"``: copying a reduction would redo a whole
       reduction per reader, and fusion would refuse the copies anyway (check 3 catches
       it too: a reduction's output map leaves out its reduction loop);
    3. its output map is a permutation and its payload has no ``linalg.index``
       (otherwise the copies could not fuse either);
    4. its result has at least two uses, and every use is an *input* operand of a
       ``GenericOp`` on tensors (``use.index < use.user.num_inputs``). A result that is
       also returned, or read as an init, must be written to memory anyway: leave it.

    >>> from tinycomp.frontend import TensorSpec, exp, trace
    >>> def shared(a):
    ...     e = exp(a)  # read by e + 1 and by e * 2
    ...     return (e + 1.0) * (e * 2.0)
    >>> module = trace(shared, TensorSpec((4,)))
    >>> [should_duplicate(op) for op in module.walk() if isinstance(op, GenericOp)]
    [True, False, False, False]
    """
    # TODO(Task 05.3): copy elementwise producers so that fusion can take them
    raise NotImplementedError(
        "Task 05.3: an elementwise generic read by 2+ generic inputs, nothing else"
    )


class DuplicateElementwiseProducers(Pass):
    """Give every reader of a cheap elementwise producer a copy of its own, so that each
    copy has one reader and ``linalg-fuse-elementwise-ops`` fuses it.

    Fusion refuses a producer with two readers: fusing it into one would erase a value
    the other still reads. Recomputing it in both is legal, and for an elementwise op
    it is cheap: a few FLOPs per element against writing the tensor and reading it back
    twice. (XLA's instruction fusion duplicates cheap producers this way; TVM's
    ``compute_inline`` inlines an elementwise stage into all its consumers.)

    The algorithm:

    1. Walk the ops of ``op`` in *reverse* order (``reversed(list(op.walk()))``), so a
       reader comes before its producers: copying ``exp`` gives ``x - max`` a second
       reader, and that is seen when its turn comes.
    2. For each ``should_duplicate`` op ``p``: for every use of its result except the
       first, insert a copy of ``p`` right before ``p`` (``rewriter.set_current_op(p)``
       then ``rewriter.insert(p.clone())``), and make that use read the copy
       (``with rewriter.modify_op_in_place(user): user.set_operand(use.index, copy)``).
    3. Count ``statistics["producers duplicated"]`` (ops copied) and
       ``statistics["copies made"]``.

    >>> DuplicateElementwiseProducers.name
    'duplicate-elementwise-producers'
    """

    name = "duplicate-elementwise-producers"
    summary = "copy elementwise producers with several readers, one copy per reader"

    def run(self, op: Operation) -> None:
        # TODO(Task 05.3): copy elementwise producers so that fusion can take them
        raise NotImplementedError(
            "Task 05.3: in reverse walk order, one copy per extra use of each producer"
        )

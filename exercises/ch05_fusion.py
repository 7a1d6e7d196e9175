"""Chapter 05: fusion.

Every kernel boundary is a round trip to memory: the producer writes a whole tensor, the
consumer reads it back. Fusion puts the producer's payload inside the consumer's loops,
so the element is computed where it is needed and the tensor is never written. The
library's pass is ``FusionPass`` (``linalg-fuse-elementwise-ops``). Four tasks, each
plugged into the real pipeline by the grader:

1. ``producer_loops`` and ``fused_operand_map``: the indexing maps of a fused op.
2. ``can_fuse``: the fusion rule (MLIR calls it the control function). The worked pass
   ``FuseWithMyRule`` runs the library's fusion loop with your rule deciding.
3. ``should_duplicate`` and ``DuplicateElementwiseProducers``: a pass that gets a
   producer fused that the library leaves in memory.
4. ``layernorm_within_budget``: a layer normalization that the library's fusion turns
   into a program moving at most 16.1 MiB (the chapter's layernorm moves 24.04 MiB).

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
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp  # noqa: F401
from tinycomp.frontend import Tensor, rsqrt, sqrt  # noqa: F401
from tinycomp.ir import Operation
from tinycomp.passes import Pass
from tinycomp.rewrite import PatternRewriter  # noqa: F401
from tinycomp.viz.fusion_graph import fuse_and_record

__all__ = [
    "DuplicateElementwiseProducers",
    "FuseWithMyRule",
    "can_fuse",
    "fused_operand_map",
    "layernorm_within_budget",
    "producer_loops",
    "should_duplicate",
]


# -- Task 05.1 --------------------------------------------------------------------------------
def producer_loops(producer_result_map: AffineMap, consumer_operand_map: AffineMap) -> AffineMap:
    """The producer's loop point that made the element the consumer reads, as a function of
    the consumer's loop point.

    Inputs: ``producer_result_map``, the producer's output indexing map (its loops to an
    element of the tensor between the two ops), a permutation; ``consumer_operand_map``,
    the map through which the consumer reads that tensor (its loops to an element).

    Returns an ``AffineMap`` ``L`` from the consumer's loops (``consumer_operand_map.num_dims``
    dimensions, no symbols) to the producer's loops (``producer_result_map.num_dims``
    results) such that, at every consumer point ``c``, the producer point ``L(c)`` wrote the
    element the consumer reads at ``c``: ``producer_result_map(L(c)) == consumer_operand_map(c)``.

    Taught in section 3 of the chapter ("The rule, in indexing maps").

    >>> from tinycomp.affine import parse_affine_map
    >>> swap = parse_affine_map("(d0, d1) -> (d1, d0)")   # the producer writes t[j, i]
    >>> row = parse_affine_map("(d0, d1, d2) -> (d0, d2)")  # the consumer reads t[i, k]
    >>> loops = producer_loops(swap, row)
    >>> print(loops)
    (d0, d1, d2) -> (d2, d0)
    >>> swap.compose(loops) == row  # the element written is the element read
    True
    """
    # TODO(Task 05.1): the indexing maps of a fused operand
    raise NotImplementedError("Task 05.1: the producer loop point behind each consumer point")


def fused_operand_map(
    producer_operand_map: AffineMap,
    producer_result_map: AffineMap,
    consumer_operand_map: AffineMap,
) -> AffineMap:
    """The indexing map with which the fused op reads one operand of the producer.

    Inputs: ``producer_operand_map``, the producer's map for that operand (its loops to an
    element of the operand); the other two as in ``producer_loops``.

    Returns the ``AffineMap`` ``M`` over the consumer's loops (the fused op runs them) such
    that, at every consumer point ``c``, ``M(c)`` is the element of the operand that the
    producer read at the point that made the consumer's element:
    ``M(c) == producer_operand_map(producer_loops(producer_result_map, consumer_operand_map)(c))``.
    It has one result per dimension of the operand; broadcasts and transposes are kept.

    Taught in section 3: the map printed on ``x`` there, and read off the fused op.

    >>> from tinycomp.affine import parse_affine_map
    >>> bias = parse_affine_map("(d0) -> (d0)")         # exp(b) over b's one loop
    >>> out = parse_affine_map("(d0) -> (d0)")
    >>> column = parse_affine_map("(d0, d1) -> (d1)")  # x + exp(b), b broadcast over rows
    >>> print(fused_operand_map(bias, out, column))
    (d0, d1) -> (d1)
    """
    # TODO(Task 05.1): the indexing maps of a fused operand
    raise NotImplementedError("Task 05.1: the map of a producer operand in the fused op")


# -- Task 05.2 ---------------------------------------------------------------------------------
def can_fuse(producer: Operation, consumer: GenericOp, operand_index: int) -> str | None:
    """The fusion rule: ``None`` when ``producer`` may be fused into ``consumer`` through
    the consumer's operand ``operand_index``, otherwise the reason it may not.

    Inputs: ``consumer``, a ``linalg.generic`` on tensors; ``operand_index``, the position
    of one of its operands (its inputs come first, then its inits, the ``outs``);
    ``producer``, the op that defines that operand (any op: a ``linalg.generic``, a named
    linalg op such as ``linalg.matmul``...).

    Returns ``None`` to let the pair fuse, or a non-empty ``str`` to refuse: your reason,
    in your own words; the pass's report shows it (``'%a -> %b: <reason>'``).

    Invariants: the rule only looks at the IR, it never changes it. A pair it allows is
    fused by the library's ``fuse_producer_into_consumer``, which builds the fused op of
    section 3 (the consumer's loops, the producer's payload inlined, its operands read
    through the maps of Task 05.1) and then erases the producer. So for every pair you
    allow, the fused program must verify and compute what the unfused program computed,
    element for element. And refuse no more than you must: every pair the library's pass
    fuses is a kernel and a tensor saved, and your rule must allow it too.

    Taught in sections 3 to 5 (section 5 says what goes wrong when a pair is fused that
    should not be). ``FuseWithMyRule`` below runs the fusion pass with this rule; MLIR's
    pass takes its rule the same way, as a ``ControlFusionFn``. Building blocks: the
    ``GenericOp`` accessors (``indexing_maps()``, ``iterator_types()``, ``num_inputs``,
    ``num_outputs``, ``num_loops``, ``payload_reads(i)``, ``body``), ``results`` and their
    ``uses``, the ``AffineMap`` queries, and your Task 05.1 functions.

    >>> from tinycomp.frontend import TensorSpec, softmax, trace
    >>> module = trace(softmax, TensorSpec((2, 4)))
    >>> generics = [op for op in module.walk() if isinstance(op, GenericOp)]
    >>> maximum, subtract, exponential = generics[0], generics[1], generics[2]
    >>> can_fuse(subtract, exponential, 0) is None  # x - max into exp: one kernel
    True
    >>> isinstance(can_fuse(maximum, subtract, 1), str)  # the row maximum into x - max: no
    True
    """
    # TODO(Task 05.2): the fusion rule
    raise NotImplementedError("Task 05.2: None to fuse the pair, or the reason not to")


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
    """Whether ``DuplicateElementwiseProducers`` should copy ``op``, one copy per use.

    Input: any op. Returns ``True`` when ``op`` has two or more uses, and giving each use a
    copy of its own (so that every copy has one use) would let the library's fusion fuse
    every copy into its reader, so that ``op``'s result tensor is never written at all.
    ``False`` otherwise: when one copy could not fuse anyway, when the tensor has to be in
    memory whatever happens, or when a copy would redo more than a few operations per
    element (a reduction). Where copies are possible but not needed, either answer is
    accepted. The function only looks at the IR.

    Taught in section 5 (the ``shared_exp`` cell, and why softmax's ``%exp`` stays in
    memory); the table there says what fusion accepts.

    >>> from tinycomp.frontend import TensorSpec, exp, trace
    >>> def shared(a):
    ...     e = exp(a)  # read by e + 1 and by e * 2
    ...     return (e + 1.0) * (e * 2.0)
    >>> module = trace(shared, TensorSpec((4,)))
    >>> [should_duplicate(op) for op in module.walk() if isinstance(op, GenericOp)]
    [True, False, False, False]
    """
    # TODO(Task 05.3): copy elementwise producers so that fusion can take them
    raise NotImplementedError("Task 05.3: is this op worth one copy per reader?")


class DuplicateElementwiseProducers(Pass):
    """Give every reader of a cheap elementwise producer a copy of its own, so that each
    copy has one reader and ``linalg-fuse-elementwise-ops`` fuses it.

    The library's fusion refuses a producer that several ops read (section 5 says why,
    and what MLIR does instead). Recomputing it in every reader is legal, and for an
    elementwise op it is cheap: a few FLOPs per element against writing the tensor and
    reading it back once per reader. (XLA's instruction fusion duplicates cheap producers
    into several consumers this way; TVM's ``compute_inline`` inlines a stage into every
    consumer.)

    Contract of ``run(op)``: afterwards ``should_duplicate`` holds for no op under ``op``;
    every op copied is replaced by copies that each have exactly one use; no op is left
    without a use; nothing else changes, and the program computes what it computed
    before. ``statistics["producers duplicated"]`` counts the ops copied and
    ``statistics["copies made"]`` the new ops. A second run changes nothing. Building
    blocks: ``Operation.clone()``, ``value.uses`` (each with ``.user`` and ``.index``),
    ``PatternRewriter`` (``set_current_op``, ``insert``, ``modify_op_in_place``) and
    ``Operation.set_operand``. Example: softmax, run through this pass and then the
    library's fusion, is five kernels (the notebook's last cell shows it).

    >>> DuplicateElementwiseProducers.name
    'duplicate-elementwise-producers'
    """

    name = "duplicate-elementwise-producers"
    summary = "copy elementwise producers with several readers, one copy per reader"

    def run(self, op: Operation) -> None:
        # TODO(Task 05.3): copy elementwise producers so that fusion can take them
        raise NotImplementedError("Task 05.3: one copy per reader, until no op needs one")


# -- Task 05.4 ---------------------------------------------------------------------------------
def layernorm_within_budget(x: Tensor, gamma: Tensor, beta: Tensor, eps: float = 1e-5) -> Tensor:
    """Layer normalization of ``x`` over its last axis, written so that the library's
    fusion leaves a program that moves at most 16.1 MiB when ``x`` is 1024x1024 float32.

    Inputs: traced tensors ``x`` (``rows x n``), ``gamma`` and ``beta`` (``n``), and ``eps``.
    Returns ``(x - mean) / sqrt(variance + eps) * gamma + beta``, with the mean and the
    (biased) variance of each row, to float32 accuracy.

    Budget: ``program_bytes`` of ``tinycomp.compile(layernorm_within_budget, x, gamma,
    beta, stop_after="fused").ir("fused")``, with the default pipeline and
    ``x = TensorSpec((1024, 1024))``, ``gamma = beta = TensorSpec((1024,))``, is at most
    16.1 MiB (16.1 x 2**20 bytes). The library's ``layernorm`` moves 24.04 MiB. Any
    program within the budget that computes layer normalization is accepted.

    Taught in sections 4 to 6 (the layernorm fusion graph shows where its bytes go).
    Building blocks: the ``Tensor`` operators and methods of chapter 04 (``+ - * /``,
    ``.mean`` and ``.sum`` with ``keepdims``), ``rsqrt`` and ``sqrt``.

    >>> import numpy as np, tinycomp
    >>> from tinycomp.frontend import TensorSpec, layernorm
    >>> from tinycomp.perf import program_bytes
    >>> specs = TensorSpec((1024, 1024)), TensorSpec((1024,)), TensorSpec((1024,))
    >>> library = tinycomp.compile(layernorm, *specs, stop_after="fused")
    >>> program_bytes(library.ir("fused")) / 2**20 > 16.1  # the library's layernorm: over
    True
    """
    # TODO(Task 05.4): layernorm in at most 16.1 MiB of memory traffic
    raise NotImplementedError("Task 05.4: layer normalization that fuses into fewer bytes")

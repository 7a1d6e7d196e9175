"""Chapter 07: bufferization and memory effects.

Tensors are values: ``%r = linalg.generic ... outs(%e)`` leaves ``%e`` alone and
returns a new tensor. To run, every value needs memory, and bufferization chooses it:
an op may write its result into its destination's buffer (*in place*) unless some op
still needs what was there; temporaries whose lives do not overlap may share memory.
Four tasks, each checked by plugging your code into the real pipeline:

1. ``conflicts`` and ``decide_in_place``: the in-place decisions of One-Shot Bufferize
   for straight-line tensor programs (sections 3 and 4). The worked pass
   ``MyOneShotBufferize`` rewrites the IR to memrefs with your decisions, through the
   library's bufferizer, and the result runs in the interpreter against the tensor
   program.
2. ``live_intervals`` and ``peak_bytes``: when each buffer of a bufferized function is
   live, and the most bytes it holds at once (section 6). Buffers freed where your
   liveness says they die must never be used again.
3. ``assign_slots`` and ``StaticMemoryPlan``: a static memory plan for a target with no
   ``malloc`` (GPU shared memory, an NPU's unified buffer): buffers whose lives do not
   overlap share one allocation, in as few bytes as possible, under a budget
   (section 7).
4. ``arena_offsets``: an open problem under a budget: buffers of any size placed at byte
   offsets in one arena, within 10% of the smallest arena possible.

The library's passes (``tinycomp/passes/bufferize/``) compute these things too; the
grader does not let your code call them while it answers. Fill in each TODO, then run
``tinycomp grade ch07``; the notebook's last cell runs your code in the pipeline:
``CompileOptions(extra_passes={"tiled": [MyOneShotBufferize()]})`` bufferizes with your
decisions, ``extra_passes={"bufferized": [StaticMemoryPlan(budget)]}`` plans memory after
the library's passes.
"""

from __future__ import annotations

# The building blocks the tasks may need ("noqa: F401" keeps the linter quiet about the
# names your code does not use yet).
import itertools  # noqa: F401
from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.dialects.func import FuncOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir import Operation, Use, Value
from tinycomp.ir.effects import MEMREF_VIEW_OPS, has_unknown_effects  # noqa: F401
from tinycomp.ir.naming import SSANames
from tinycomp.passes import Pass, PassError
from tinycomp.passes.bufferize import LiveInterval, buffer_results_to_out_params
from tinycomp.passes.bufferize.alias_sets import ValueSets  # noqa: F401
from tinycomp.passes.bufferize.aliasing import (  # noqa: F401
    has_undefined_contents,
    reads_operand,
    writable_operands,
)
from tinycomp.passes.bufferize.bufferizer import Bufferizer
from tinycomp.passes.bufferize.empty_tensors import split_shared_empty_tensors
from tinycomp.passes.bufferize.memref_types import buffer_bytes  # noqa: F401
from tinycomp.passes.bufferize.program_order import ProgramOrder
from tinycomp.rewrite import PatternRewriter  # noqa: F401

__all__ = [
    "ESCAPING_USERS",
    "Buffer",
    "MyOneShotBufferize",
    "StaticMemoryPlan",
    "Verdict",
    "arena_offsets",
    "arena_size",
    "assign_slots",
    "block_buffers",
    "conflicts",
    "decide_in_place",
    "live_intervals",
    "peak_bytes",
    "printed_name",
]


def printed_name(value: Value) -> str:
    """The name ``print(module)`` gives ``value`` (``%alloc_0``, ``%arg0``, ``%e``).

    >>> from tinycomp.ir import parse
    >>> m = parse("func.func @f(%x: f32) -> f32 { return %x : f32 }")
    >>> printed_name(m.body.first_op.arguments[0])
    '%x'
    """
    root = value.parent_block().parent_op()
    while root is not None and root.parent_op() is not None:
        root = root.parent_op()
    return SSANames(root).value_name(value)


# -- Task 07.1 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Verdict:
    """One in-place decision: may ``op`` write operand ``operand_index`` in place?"""

    op: Operation
    """The op that writes (a linalg op, for its ``outs`` operands)."""
    operand_index: int
    """Which of its operands it writes."""
    in_place: bool
    """True: the result takes the operand's buffer. False: a new buffer (a copy)."""
    reason: str
    """Your words, shown in the feedback (``"copy: %a is read later by ..."``)."""
    conflicting_read: Use | None = None
    """For a copy forced by a read-after-write conflict: a read that would have seen
    the write too early (``Use(reader, operand index)``); ``None`` otherwise."""


def conflicts(write: Use, read: Use, position: dict[Operation, int]) -> bool:
    """Whether ``read`` would see the wrong contents if ``write`` were done in place
    (chapter 07, section 3: the read-after-write conflict).

    Inputs, in a straight-line function (linalg ops on tensors, ``tensor.empty``,
    ``arith``, ``func.return``): ``write = Use(op, index)`` is an operand ``op`` would
    write in place, so its result would take that operand's buffer; ``read = Use(reader,
    index)`` is a use that reads a tensor value living in that same buffer; ``position``
    numbers the ops in the order they run.

    Output: ``True`` when, with the buffer overwritten by ``write``, the buffer may no
    longer hold the value ``read`` names (every use means the tensor *value* it names:
    tensor semantics), so that ``read`` would see other numbers.

    What the ops do, the facts to reason from:

    * ops run one at a time in ``position`` order; a value exists from the op that
      defines it (a function argument: from before the first op);
    * a linalg op's iterations may run in any order; each reads its elements (inputs,
      and the old element of an output when the payload uses it) and then writes its
      output element. Reading the old element of the very operand it writes is how it
      accumulates (``C += A * B``): that is what the op means;
    * a ``tensor.empty`` has no contents (``has_undefined_contents``): nobody can miss
      them.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<4xf32>, %v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
    ...   %r = linalg.fill ins(%v : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    ...   return %r, %x : tensor<4xf32>, tensor<4xf32> }''')
    >>> fill, ret = m.body.first_op.entry_block.ops
    >>> position = {fill: 0, ret: 1}
    >>> conflicts(Use(fill, 1), Use(ret, 1), position), conflicts(Use(fill, 1), Use(ret, 0), position)
    (True, False)
    """  # noqa: E501
    # TODO(Task 07.1): in-place or copy: read-after-write conflicts
    raise NotImplementedError("Task 07.1: conflicts is not written yet")


def decide_in_place(function: FuncOp, writable_arguments: bool = False) -> list[Verdict]:
    """One-Shot Bufferize's in-place decisions for a straight-line ``function``
    (chapter 07, sections 3 and 4): one ``Verdict`` per operand a linalg op writes (its
    tensor ``outs``: ``writable_operands``), in the order they are decided.

    The policy the verdicts follow (One-Shot Bufferize's, with its default heuristic; a
    value's ``uses`` are ``Use(op, index)`` pairs, and ``reads_operand(op, index)`` says
    whether that use reads it):

    * decisions go **last op first** (bottom-up), and each op's written operands in
      operand order; a decision, once made, stands;
    * a write is in place unless, given the in-place writes decided so far, it would
      put a function argument into its buffer (the caller's memory is read-only, unless
      ``writable_arguments``), or make two results of one op share one buffer, or let
      some read of a value in that buffer conflict (``conflicts``) with this write or
      with an earlier in-place write into it. No copy without one of these reasons;
    * "its buffer" is every value that would share memory once this write is in place:
      the operand, the result, and whatever already shares a buffer with either
      (``ValueSets`` keeps such sets: ``merged_members(a, b)``, ``union(a, b)``);
    * a copy forced by a conflict names a conflicting read (any one of them is right);
      the other verdicts leave ``conflicting_read`` as ``None``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''
    ... #id = affine_map<(i) -> (i)>
    ... func.func @f(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
    ...   %e = tensor.empty() : tensor<4xf32>
    ...   %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
    ...       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ...   ^bb0(%in: f32, %out: f32):
    ...     %0 = math.exp %in : f32
    ...     linalg.yield %0 : f32
    ...   } -> tensor<4xf32>
    ...   %b = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel"]}
    ...       outs(%a : tensor<4xf32>) {
    ...   ^bb0(%out: f32):
    ...     %1 = arith.addf %out, %out : f32
    ...     linalg.yield %1 : f32
    ...   } -> tensor<4xf32>
    ...   return %a, %b : tensor<4xf32>, tensor<4xf32>
    ... }''')
    >>> [(v.op.name, v.in_place, v.conflicting_read and v.conflicting_read.user.name)
    ...  for v in decide_in_place(m.body.first_op)]
    [('linalg.generic', False, 'func.return'), ('linalg.generic', True, None)]
    """
    # TODO(Task 07.1): in-place or copy: read-after-write conflicts
    raise NotImplementedError("Task 07.1: decide_in_place is not written yet")


# -- worked example: the library's bufferizer, with your decisions ------------------------------
STRAIGHT_LINE_OPS = ("tensor.empty", "func.return")
"""Besides ``arith`` ops and linalg ops on tensors, what ``decide_in_place`` handles."""


class _YourDecisions:
    """What the library's ``Bufferizer`` asks an in-place analysis: whether an operand
    is written in place, how to name an op and a value (for its allocation reasons)."""

    def __init__(self, function: FuncOp, verdicts: list[Verdict]) -> None:
        self.order = ProgramOrder(function)
        self._in_place = {(v.op, v.operand_index) for v in verdicts if v.in_place}

    def is_in_place(self, op: Operation, index: int) -> bool:
        return (op, index) in self._in_place

    def name(self, value: Value) -> str:
        return printed_name(value)


class MyOneShotBufferize(Pass):
    """``one-shot-bufferize`` for straight-line programs, deciding with
    ``decide_in_place`` (Task 07.1): the library's ``Bufferizer`` rewrites each function
    to memrefs following your verdicts, then its results become out-params.

    Run it right after the ``tiled`` stage (untiled programs only); the ``bufferized``
    stage then finds no tensors left and only reuses and frees buffers:
    ``CompileOptions(extra_passes={"tiled": [MyOneShotBufferize()]})``.

    >>> MyOneShotBufferize.name
    'my-one-shot-bufferize'
    """

    name = "my-one-shot-bufferize"
    summary = "tensors to memrefs with the in-place decisions of Task 07.1"

    def __init__(self, writable_arguments: bool = False) -> None:
        super().__init__()
        self.writable_arguments = writable_arguments
        self.verdicts: list[Verdict] = []
        """Every decision made, function by function."""

    def run(self, op: Operation) -> None:
        functions = [f for f in op.walk() if isinstance(f, FuncOp) and not f.is_declaration]
        for function in functions:
            self._check_straight_line(function)
            split_shared_empty_tensors(function)  # as the library pass does first
            verdicts = decide_in_place(function, self.writable_arguments)
            self.verdicts += verdicts
            for verdict in verdicts:
                self.statistics["in place" if verdict.in_place else "copies"] += 1
            Bufferizer(function, _YourDecisions(function, verdicts)).run()
            buffer_results_to_out_params(function)

    def _check_straight_line(self, function: FuncOp) -> None:
        order = ProgramOrder(function)
        for op in function.entry_block.ops:
            allowed = op.name in STRAIGHT_LINE_OPS or op.name.startswith("arith.")
            if not (allowed or isinstance(op, StructuredOp) and op.is_tensor_semantics):
                raise PassError(
                    f"{self.name}: decide_in_place handles straight-line tensor programs "
                    f"(linalg on tensors, tensor.empty, arith, func.return), found "
                    f"{order.describe(op)}; use one-shot-bufferize for tiled programs"
                )


# -- Task 07.2 ---------------------------------------------------------------------------------
ESCAPING_USERS = (
    "func.return", "func.call", "scf.yield", "scf.for", "scf.while", "scf.if", "scf.parallel",
    "scf.execute_region", "affine.for", "affine.yield", "cf.br", "cf.cond_br",
)  # fmt: skip
"""Ops that pass a buffer they use on to other code: liveness cannot follow it there."""


def live_intervals(function: FuncOp) -> list[LiveInterval]:
    """When each buffer of a bufferized ``function`` is live (chapter 07, section 6): one
    ``LiveInterval(name, start, end, bytes)`` per ``memref.alloc``, in walk order.

    **Op indices** are the positions the chapter's reports and charts use: the ops of
    the function in a pre-order walk (an op before the ops nested in it), counting from
    1, ``memref.dealloc`` not counted, linalg payloads not entered (a linalg op is one
    op). An op *ends* at the index of the last op nested in it (its own index if none).

    Output per alloc: ``name`` as ``printed_name`` gives it, ``start`` the alloc's
    index, ``bytes`` from ``buffer_bytes`` (``None`` for a dynamic shape), and ``end``:

    * the last op index at which the buffer may still be read or written, directly or
      through a view of it (``MEMREF_VIEW_OPS`` make views of their operand #0; views of
      views too); ``memref.dealloc`` is not a use;
    * a buffer used inside a loop (or any op with a body) of the alloc's block must stay
      until that op ends: the body may run again;
    * a buffer *escapes* when something takes it where liveness cannot follow (an op in
      ``ESCAPING_USERS``, an op with unknown effects, ``has_unknown_effects``, or any use
      outside the alloc's own block): it lives to the function's last index;
    * a buffer nobody uses dies at its alloc.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
    ...   %a = memref.alloc() : memref<4xf32>
    ...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
    ...   memref.copy %a, %out : memref<4xf32> to memref<4xf32>
    ...   return
    ... }''')
    >>> live_intervals(m.body.first_op)
    [LiveInterval(name='%a', start=1, end=3, bytes=16)]
    """
    # TODO(Task 07.2): live ranges and peak memory of a bufferized function
    raise NotImplementedError("Task 07.2: live_intervals is not written yet")


def peak_bytes(function: FuncOp) -> int:
    """The most bytes the bufferized ``function`` holds at one op index (chapter 07,
    section 6: the peak of the liveness charts and of ``BufferizationReport``).

    A buffer is *held* from its ``memref.alloc`` through every op before its first
    ``memref.dealloc`` in the alloc's own block, or to the function's last index when
    nothing in that block frees it. The result is the largest sum, over op indices
    ``1..last``, of the bytes of the buffers held there (dynamic sizes count 0; 0
    without allocations). An alloc inside a loop counts once: one iteration's buffer
    at a time.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32, %out: memref<4xf32>) {
    ...   %a = memref.alloc() : memref<4xf32>
    ...   linalg.fill ins(%v : f32) outs(%a : memref<4xf32>)
    ...   %b = memref.alloc() : memref<4xf32>
    ...   memref.copy %a, %b : memref<4xf32> to memref<4xf32>
    ...   memref.dealloc %a : memref<4xf32>
    ...   memref.copy %b, %out : memref<4xf32> to memref<4xf32>
    ...   return
    ... }''')
    >>> peak_bytes(m.body.first_op)
    32
    """
    # TODO(Task 07.2): live ranges and peak memory of a bufferized function
    raise NotImplementedError("Task 07.2: peak_bytes is not written yet")


# -- Task 07.3 ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Buffer:
    """A buffer to place: its live range in op indices (``start..end``, both
    included), its size and its memref type (only buffers of one type may share)."""

    name: str
    start: int
    end: int
    bytes: int
    type: str


def assign_slots(buffers: Sequence[Buffer]) -> list[int]:
    """A slot number for each buffer (``0, 1, 2...``): a slot is one allocation, used by
    its buffers in turn (chapter 07, section 7, ``buffer-reuse``; Task 07.3 asks for the
    smallest such plan).

    The plan must keep:

    * buffers in one slot have the same ``type`` (a slot is one allocation of one type);
    * no two buffers in one slot are live at the same op index (``a.end < b.start`` or
      ``b.end < a.start``);
    * its bytes, the sum over slots of the bytes of one buffer of the slot, are as few
      as any plan that keeps the first two rules can have.

    >>> a = Buffer("%a", 1, 4, 64, "memref<16xf32>")
    >>> b = Buffer("%b", 3, 6, 64, "memref<16xf32>")
    >>> c = Buffer("%c", 5, 7, 64, "memref<16xf32>")
    >>> assign_slots([a, b, c])   # %a and %c share: 128 bytes
    [0, 1, 0]
    """
    # TODO(Task 07.3): a static memory plan under a budget
    raise NotImplementedError("Task 07.3: assign_slots is not written yet")


def block_buffers(block) -> list[tuple[Operation, Buffer]]:
    """The ``memref.alloc`` ops of ``block`` that a plan may place, each with its
    ``Buffer``: statically shaped and not escaping (a worked helper). The live ranges
    come from your Task 07.2 ``live_intervals`` (the grader of Task 07.3 hands it the
    library's liveness, so the two tasks are graded apart).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%v: f32) -> memref<2xf32> {
    ...   %a = memref.alloc() : memref<2xf32>
    ...   linalg.fill ins(%v : f32) outs(%a : memref<2xf32>)
    ...   %b = memref.alloc() : memref<2xf32>
    ...   return %b : memref<2xf32> }''')
    >>> [buffer for _, buffer in block_buffers(m.body.first_op.entry_block)]
    [Buffer(name='%a', start=1, end=2, bytes=8, type='memref<2xf32>')]
    """
    function = block.parent_op()
    while function.name != "func.func":
        function = function.parent_op()
    allocs = [op for op in function.walk() if op.name == "memref.alloc"]
    last = _last_index(function)
    placed = []
    for alloc, interval in zip(allocs, live_intervals(function), strict=True):
        memref_type = alloc.results[0].type
        escapes = interval.end >= last  # an escaping buffer lives to the last index
        if alloc.parent is not block or escapes or not memref_type.has_static_shape:
            continue
        buffer = Buffer(
            interval.name, interval.start, interval.end, interval.bytes, str(memref_type)
        )
        placed.append((alloc, buffer))
    return placed


def _last_index(function: FuncOp) -> int:
    """The op index of the function's last op: every op of its body, deallocs and the
    payloads of linalg ops not counted."""
    count = 0
    for op in function.walk():
        inside_linalg = False
        parent = op.parent_op()
        while parent is not None and parent is not function:
            inside_linalg = inside_linalg or isinstance(parent, StructuredOp)
            parent = parent.parent_op()
        if op is not function and op.name != "memref.dealloc" and not inside_linalg:
            count += 1
    return count


class StaticMemoryPlan(Pass):
    """A pass that puts the buffers of every block into shared slots (``assign_slots``)
    and checks the plan against a memory ``budget`` in bytes (``None``: no budget).

    The contract, per block that allocates (``block_buffers(block)`` are the buffers it
    may place):

    * if the plan (the sum over its slots of one buffer's bytes) needs more than
      ``budget`` bytes, raise ``PassError`` naming both numbers, before changing the IR;
    * otherwise each slot becomes one ``memref.alloc``, which every buffer of the slot
      uses in its turn; the other allocs of the slot are gone (``PatternRewriter``'s
      ``replace_all_uses_with`` and ``erase_op`` do the rewriting);
    * the program computes what it computed before (the grader runs it), and if it
      freed its buffers (``memref.dealloc``, after ``buffer-deallocation``) it still
      frees each slot exactly once, after its last buffer's last use;
    * ``statistics["allocations shared"]`` counts the allocs removed and
      ``statistics["bytes planned"]`` the plan's bytes, all blocks added.

    >>> StaticMemoryPlan(budget=4096).budget
    4096
    """

    name = "static-memory-plan"
    summary = "buffers with disjoint live ranges share slots; the plan must fit a budget"

    def __init__(self, budget: int | None = None) -> None:
        super().__init__()
        self.budget = budget
        """The most bytes the plan may use (per block), or ``None``."""

    def run(self, op: Operation) -> None:
        # TODO(Task 07.3): a static memory plan under a budget
        raise NotImplementedError("Task 07.3: StaticMemoryPlan.run is not written yet")


# -- Task 07.4 ---------------------------------------------------------------------------------
def arena_size(buffers: Sequence[Buffer], offsets: Sequence[int]) -> int:
    """The bytes an arena needs for ``buffers`` placed at ``offsets`` (a worked helper):
    the end of the buffer that reaches furthest (0 without buffers).

    >>> arena_size([Buffer("%a", 1, 2, 64, "memref<16xf32>")], [32])
    96
    """
    return max((o + b.bytes for o, b in zip(offsets, buffers, strict=True)), default=0)


def arena_offsets(buffers: Sequence[Buffer]) -> list[int]:
    """A byte offset for each buffer in one arena, so that buffers live at the same time
    never overlap, in an arena within 10% of the smallest possible (chapter 07, section
    7, and the Task 07.4 paragraph at the end of the chapter).

    An NPU core's unified buffer or a GPU block's shared memory is one stretch of bytes
    that the compiler divides up before the kernel runs. Unlike ``assign_slots``,
    buffers of different sizes and types may use the same bytes at different times.

    Output: one offset ``>= 0`` per buffer, in the given order, such that

    * two buffers live at a common op index (their ``start..end`` ranges overlap) have
      disjoint byte ranges ``[offset, offset + bytes)``;
    * ``arena_size(buffers, offsets)`` is at most 1.1 times the smallest arena size of
      any placement that keeps the first rule.

    >>> a = Buffer("%a", 1, 3, 64, "memref<16xf32>")
    >>> b = Buffer("%b", 2, 5, 32, "memref<8xf32>")
    >>> c = Buffer("%c", 4, 6, 64, "memref<4x4xf32>")
    >>> offsets = arena_offsets([a, b, c])   # %c reuses %a's bytes: 96 in all
    >>> arena_size([a, b, c], offsets)
    96
    """
    # TODO(Task 07.4): place buffers of any size in one arena, near the smallest
    raise NotImplementedError("Task 07.4: arena_offsets is not written yet")

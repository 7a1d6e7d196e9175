"""Chapter 07: bufferization and memory effects (reference answers).

Tensors are values: ``%r = linalg.generic ... outs(%e)`` leaves ``%e`` alone and
returns a new tensor. To run, every value needs memory, and bufferization chooses it:
an op may write its result into its destination's buffer (*in place*) unless some
later op still reads what was there (a *read-after-write conflict*); temporaries whose
lives do not overlap may share memory. The library's passes are in
``tinycomp/passes/bufferize/`` (``one-shot-bufferize``, ``buffer-reuse``,
``buffer-deallocation``). Three tasks, each plugging into them:

1. ``conflicts`` and ``decide_in_place``: One-Shot Bufferize's in-place analysis for
   straight-line tensor programs, bottom-up, with the conflicting read for every copy.
   The worked pass ``MyOneShotBufferize`` rewrites the IR to memrefs with your
   decisions, through the library's bufferizer.
2. ``live_intervals`` and ``peak_bytes``: when each buffer of a bufferized function
   is live (from its ``memref.alloc`` to its last use, loops and views included), and
   the most bytes the function holds at once.
3. ``assign_slots`` and ``StaticMemoryPlan``: a static memory plan for a target with no
   ``malloc`` (GPU shared memory, an NPU's unified buffer): buffers whose live ranges
   do not overlap share one allocation, in as few bytes as possible, and the plan must
   fit a budget.

Run your code in the pipeline (see the notebook's last cells):
``CompileOptions(extra_passes={"tiled": [MyOneShotBufferize()]})`` bufferizes with your
decisions, ``extra_passes={"bufferized": [StaticMemoryPlan(budget)]}`` plans memory after
the library's passes. Fill in each TODO in ``exercises/ch07_bufferization.py``, then run
``tinycomp grade ch07``.
"""

from __future__ import annotations

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.ir import Operation, Use, Value
from tinycomp.ir.dialects.func import FuncOp
from tinycomp.ir.dialects.linalg_base import StructuredOp
from tinycomp.ir.effects import MEMREF_VIEW_OPS, has_unknown_effects  # noqa: F401
from tinycomp.ir.naming import SSANames
from tinycomp.passes import Pass, PassError
from tinycomp.passes.bufferize import (
    LiveInterval,
    buffer_results_to_out_params,
)
from tinycomp.passes.bufferize.alias_sets import ValueSets  # noqa: F401
from tinycomp.passes.bufferize.aliasing import (  # noqa: F401
    has_undefined_contents,
    reads_operand,
    writable_operands,
)
from tinycomp.passes.bufferize.bufferizer import Bufferizer
from tinycomp.passes.bufferize.empty_tensors import split_shared_empty_tensors
from tinycomp.passes.bufferize.liveness import OpIndices, buffer_liveness
from tinycomp.passes.bufferize.memref_types import buffer_bytes  # noqa: F401
from tinycomp.passes.bufferize.program_order import ProgramOrder
from tinycomp.rewrite import PatternRewriter  # noqa: F401

__all__ = [
    "ESCAPING_USERS",
    "Buffer",
    "MyOneShotBufferize",
    "StaticMemoryPlan",
    "Verdict",
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
    """For a copy forced by a read-after-write conflict: the read that would have seen
    the write too early (``Use(reader, operand index)``); ``None`` otherwise."""


def conflicts(write: Use, read: Use, position: dict[Operation, int]) -> bool:
    """Whether ``read`` (a use that reads a tensor) would see the buffer already
    overwritten by ``write`` (an operand written in place into the same buffer), in a
    straight-line function whose ops are numbered by ``position``.

    The rules, in this order (value = ``read.user.operands[read.index]``):

    1. The value comes from ``tensor.empty`` (``has_undefined_contents``): its contents
       are undefined, nobody can miss them: no conflict.
    2. The write and the read are one op (``write.user is read.user``):

       a. the same operand (an ``outs`` whose old element the payload reads, as in
          ``C += A * B``): each element is read before it is written: no conflict;
       b. an input (``read.index < op.num_inputs``) of an op whose iterators are all
          ``"parallel"``, read through the same indexing map as the written output, a
          permutation: element ``i`` is read and then written by the same iteration:
          no conflict;
       c. any other pair: a conflict (the op reads elements it has already overwritten).
    3. The read comes after the write (``position[read.user] > position[write.user]``)
       and the value it reads was defined before the write (a function argument counts
       as defined before every op; a result at its op's position): a conflict. The
       reader wants the old contents, and they are gone.
    4. Otherwise no conflict (the reader runs before the write, or it reads a value
       made by the write or after it).

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<4xf32>, %v: f32) -> (tensor<4xf32>, tensor<4xf32>) {
    ...   %r = linalg.fill ins(%v : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    ...   return %r, %x : tensor<4xf32>, tensor<4xf32> }''')
    >>> fill, ret = m.body.first_op.entry_block.ops
    >>> position = {fill: 0, ret: 1}
    >>> conflicts(Use(fill, 1), Use(ret, 1), position), conflicts(Use(fill, 1), Use(ret, 0), position)
    (True, False)
    """  # noqa: E501
    writer, reader = write.user, read.user
    value = reader.operands[read.index]
    if has_undefined_contents(value):  # rule 1
        return False
    if writer is reader:  # rule 2
        if read.index == write.index:
            return False
        if isinstance(writer, StructuredOp) and read.index < writer.num_inputs:
            return not _elementwise_pair(writer, read.index, write.index)
        return True
    return position[reader] > position[writer] and _defined_at(value, position) < position[writer]


def _elementwise_pair(op: StructuredOp, input_index: int, output_index: int) -> bool:
    """All loops parallel, and the input read through the output's map, a permutation."""
    if any(kind != "parallel" for kind in op.iterator_types()):
        return False
    maps = op.indexing_maps()
    return maps[input_index] == maps[output_index] and maps[output_index].is_permutation()


def _defined_at(value: Value, position: dict[Operation, int]) -> int:
    """Where ``value`` is defined: -1 for a function argument, else its op's position."""
    op = value.defining_op()
    return -1 if op is None else position[op]


def decide_in_place(function: FuncOp, writable_arguments: bool = False) -> list[Verdict]:
    """One-Shot Bufferize's in-place analysis of a straight-line ``function`` (function
    arguments, ``arith`` ops, ``tensor.empty``, linalg ops on tensors, ``func.return``):
    one ``Verdict`` per written operand, in the order decided.

    The algorithm (``tinycomp/passes/bufferize/inplace_analysis.py`` does it for loops
    and slices too):

    1. Number the ops of the entry block: ``position[op]``, from 0.
    2. Keep ``buffers = ValueSets()``, the sets of values that share one buffer (so far
       every value is alone), and ``in_place``, the set of ``Use(op, index)`` decided
       in place so far.
    3. Visit the ops **last first** (bottom-up: a write is decided after every later op
       that might read its buffer), and each written operand ``index`` of an op in
       ``writable_operands(op)`` (a linalg op's tensor ``outs``). Its result is
       ``op.results[index - op.num_inputs]``.
    4. ``members = buffers.merged_members(operand, result)``: the values that would
       share the buffer if the write were in place.
    5. Copy if a member is a function argument, unless ``writable_arguments``: the
       caller's memory is read-only (``conflicting_read`` stays ``None``).
    6. Copy if another written operand of the same op is already in place with its
       operand among ``members`` (``outs(%e, %e)``: two results, one buffer).
    7. Copy if a read conflicts: the reads are ``[use for value in members for use in
       value.uses if reads_operand(use.user, use.index)]``, sorted by the reader's
       position (a stable sort); the writes are this one first, then the in-place
       writes into the same buffer decided earlier, ``[use for value in members for
       use in value.uses if use in in_place]``. The first pair (write, read), writes in
       the outer loop, for which ``conflicts(write, read, position)`` holds gives the
       ``conflicting_read``.
    8. No reason to copy: in place. Add the ``Use`` to ``in_place`` and join the sets:
       ``buffers.union(operand, result)``.

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
    ops = list(function.entry_block.ops)
    position = {op: number for number, op in enumerate(ops)}  # step 1
    read_only = set() if writable_arguments else set(function.arguments)
    buffers = ValueSets()  # step 2
    in_place: set[Use] = set()
    verdicts = []
    for op in reversed(ops):  # step 3
        for index in writable_operands(op):
            write = Use(op, index)
            operand, result = op.operands[index], op.results[index - op.num_inputs]
            members = buffers.merged_members(operand, result)  # step 4
            verdict = (
                _read_only(write, members, read_only)
                or _written_twice(write, members, in_place)
                or _first_conflict(write, members, in_place, position)
            )
            if verdict is None:  # step 8
                in_place.add(write)
                buffers.union(operand, result)
                reason = f"in place: no later read of {printed_name(operand)}"
                verdict = Verdict(op, index, True, reason)
            verdicts.append(verdict)
    return verdicts


def _read_only(write: Use, members: list[Value], read_only: set[Value]) -> Verdict | None:
    for value in members:  # step 5
        if value in read_only:
            reason = f"copy: {printed_name(value)} is a function argument (read-only)"
            return Verdict(write.user, write.index, False, reason)
    return None


def _written_twice(write: Use, members: list[Value], in_place: set[Use]) -> Verdict | None:
    op = write.user
    for index in writable_operands(op):  # step 6
        other = Use(op, index)
        if other != write and other in in_place and op.operands[index] in members:
            reason = f"copy: {printed_name(op.operands[index])} is also written by {op.name}"
            return Verdict(op, write.index, False, reason)
    return None


def _first_conflict(
    write: Use, members: list[Value], in_place: set[Use], position: dict[Operation, int]
) -> Verdict | None:
    reads = [use for value in members for use in value.uses if reads_operand(use.user, use.index)]
    reads.sort(key=lambda use: position[use.user])  # step 7
    earlier = [use for value in members for use in value.uses if use in in_place]
    for candidate in [write, *earlier]:
        for read in reads:
            if conflicts(candidate, read, position):
                value = printed_name(read.user.operands[read.index])
                if read.user is candidate.user:
                    reason = f"copy: {value} is also read by {read.user.name}, which writes it"
                else:
                    reason = f"copy: {value} is read later by {read.user.name}"
                return Verdict(write.user, write.index, False, reason, read)
    return None


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
    "func.return", "func.call", "scf.yield", "scf.for", "scf.while", "scf.if", "affine.for",
    "affine.yield", "cf.br", "cf.cond_br",
)  # fmt: skip
"""Ops that pass a buffer they use on to other code: liveness cannot follow it there."""


def _op_indices(function: FuncOp) -> tuple[dict[Operation, int], dict[Operation, int], int]:
    """``(start, end, last)``: each op's index (pre-order from 1, deallocs skipped,
    linalg payloads not entered), the index of the last op inside it, the last index."""
    start: dict[Operation, int] = {}
    end: dict[Operation, int] = {}
    counter = 0

    def number(block) -> None:
        nonlocal counter
        for op in block.ops:
            if op.name == "memref.dealloc":
                continue
            counter += 1
            start[op] = counter
            if not isinstance(op, StructuredOp):
                for region in op.regions:
                    for nested in region.blocks:
                        number(nested)
            end[op] = counter

    for block in function.body.blocks:
        number(block)
    return start, end, counter


def _views_of(buffer: Value) -> list[Value]:
    """``buffer`` and every view of it, transitively."""
    found, pending = [], [buffer]
    while pending:
        value = pending.pop()
        found.append(value)
        for user in value.users:
            if user.name in MEMREF_VIEW_OPS and user.operands[0] is value:
                pending.extend(user.results)
    return found


def _in_block(op: Operation, block) -> Operation | None:
    """``op``, or the op around it that sits directly in ``block`` (``None``: outside)."""
    while op is not None and op.parent is not block:
        op = op.parent_op()
    return op


def live_intervals(function: FuncOp) -> list[LiveInterval]:
    """One ``LiveInterval(name, start, end, bytes)`` per ``memref.alloc`` of the
    bufferized ``function``, in walk order: its printed name, the op index of the alloc,
    the op index where it dies, and ``buffer_bytes`` of its type (``None`` if dynamic).

    **Op indices** number the ops of the function in a pre-order walk (an op before the
    ops nested in it), counting from 1, skipping ``memref.dealloc`` and not entering
    linalg ops (their payload is part of them). ``end`` of an op is the index of the
    last op inside it (its own index when it has none).

    Where a buffer dies: take the buffer and all its views (``memref.subview`` and the
    other ``MEMREF_VIEW_OPS``, whose operand #0 it is, transitively). Each user of those
    values (``memref.dealloc`` excepted) is lifted to the op that contains it in the
    alloc's own block: a use inside a loop is a use by the whole loop, which must keep
    the buffer for every iteration. The buffer dies at the ``end`` of the last of
    those ops (at the alloc itself when nothing uses it). It **escapes**, and lives to
    the function's last index, when a user is in ``ESCAPING_USERS`` or has unknown
    memory effects (``has_unknown_effects``), or lies outside the alloc's block.

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
    start, end, last = _op_indices(function)
    intervals = []
    for alloc in [op for op in function.walk() if op.name == "memref.alloc"]:
        block = alloc.parent
        dies, escapes = end[alloc], False
        for value in _views_of(alloc.results[0]):
            for user in value.users:
                if user.name == "memref.dealloc":
                    continue
                holder = _in_block(user, block)
                if user.name in ESCAPING_USERS or has_unknown_effects(user) or holder is None:
                    escapes = True
                else:
                    dies = max(dies, end[holder])
        size = buffer_bytes(alloc.results[0].type)
        name = printed_name(alloc.results[0])
        intervals.append(LiveInterval(name, start[alloc], last if escapes else dies, size))
    return intervals


def peak_bytes(function: FuncOp) -> int:
    """The most bytes the bufferized ``function`` holds at one op index.

    A buffer is *held* from its ``memref.alloc`` to the op just before its first
    ``memref.dealloc`` in the alloc's own block (the ``end`` of the last op before it,
    deallocs skipped; the alloc itself if there is none), or to the function's last
    index when nothing in that block frees it. At each op index ``1..last``, add up the
    bytes of the buffers held there (dynamic sizes count 0); return the largest sum (0
    without allocations). An allocation inside a loop counts once.

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
    start, end, last = _op_indices(function)
    held = []
    for alloc in [op for op in function.walk() if op.name == "memref.alloc"]:
        frees = [
            user
            for value in _views_of(alloc.results[0])
            for user in value.users
            if user.name == "memref.dealloc" and user.parent is alloc.parent
        ]
        until = last
        if frees:
            before = frees[0].prev_op
            while before is not None and before.name == "memref.dealloc":
                before = before.prev_op
            until = end[before] if before is not None else start[alloc]
        held.append((start[alloc], until, buffer_bytes(alloc.results[0].type) or 0))
    totals = [sum(size for s, e, size in held if s <= i <= e) for i in range(1, last + 1)]
    return max(totals, default=0)


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
    """A slot number for each buffer (``0, 1, 2...``), so that

    * buffers in one slot have the same ``type`` (a slot is one allocation of one type);
    * no two buffers in one slot are live at once: one's ``end`` is before the other's
      ``start`` (``a.end < b.start``);
    * the plan is as small as possible: the sum over slots of their ``bytes``.

    Visit the buffers by ``start`` (ties: in the given order). Give each one a slot of
    its type whose current holder is dead (its last buffer's ``end`` is before this
    ``start``); open a new slot when there is none. Any free slot will do: with the
    buffers visited by start, this uses for each type exactly as many slots as there
    are buffers of that type live at the busiest op index, which no plan can beat.
    (Visiting in another order can waste slots: try it.)

    >>> a = Buffer("%a", 1, 4, 64, "memref<16xf32>")
    >>> b = Buffer("%b", 3, 6, 64, "memref<16xf32>")
    >>> c = Buffer("%c", 5, 7, 64, "memref<16xf32>")
    >>> assign_slots([a, b, c])
    [0, 1, 0]
    """
    order = sorted(range(len(buffers)), key=lambda number: buffers[number].start)
    slots = [0] * len(buffers)
    slot_type: list[str] = []
    slot_free_after: list[int] = []  # the end of the slot's last buffer
    for number in order:
        buffer = buffers[number]
        free = [
            slot
            for slot, kind in enumerate(slot_type)
            if kind == buffer.type and slot_free_after[slot] < buffer.start
        ]
        if free:
            slot = free[0]
        else:
            slot = len(slot_type)
            slot_type.append(buffer.type)
            slot_free_after.append(0)
        slots[number] = slot
        slot_free_after[slot] = buffer.end
    return slots


def block_buffers(block) -> list[tuple[Operation, Buffer]]:
    """The ``memref.alloc`` ops of ``block`` that a plan may place, each with its
    ``Buffer`` (live range in op indices): statically shaped, not escaping the block.
    Uses the library's liveness (``tinycomp/passes/bufferize/liveness.py``).

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
    indices = OpIndices(function)
    placed = []
    for alloc in [op for op in block.ops if op.name == "memref.alloc"]:
        liveness = buffer_liveness(alloc)
        memref_type = alloc.results[0].type
        if liveness.escapes or not memref_type.has_static_shape:
            continue
        start, end = indices.interval(liveness)
        size = buffer_bytes(memref_type)
        placed.append(
            (alloc, Buffer(printed_name(alloc.results[0]), start, end, size, str(memref_type)))
        )
    return placed


class StaticMemoryPlan(Pass):
    """Place the buffers of every block into shared slots (``assign_slots``) and check
    the plan against a memory ``budget`` in bytes (``None``: no budget).

    For each block that allocates, with ``placed = block_buffers(block)``:

    1. ``slots = assign_slots([buffer for _, buffer in placed])``.
    2. The plan needs the sum, over slots, of the bytes of one buffer of the slot. If
       that is over ``budget``, raise ``PassError`` with a message that names both
       numbers, e.g. ``f"{self.name}: the buffers need {need} bytes, over the budget of
       {budget} bytes"``, before changing anything.
    3. In each slot the first buffer (smallest ``start``) keeps its ``memref.alloc``;
       every other buffer of the slot uses it instead
       (``rewriter.replace_all_uses_with(alloc.results[0], kept.results[0])``), and its
       ``memref.alloc`` is erased (``rewriter.erase_op``). The memory stays allocated
       until the slot's last buffer dies: if the program already frees buffers
       (``memref.dealloc`` after ``buffer-deallocation``), erase the deallocs of every
       buffer of the slot but the last one (do it before replacing the uses, while each
       dealloc still names its own buffer).
    4. Count ``statistics["allocations shared"]`` (allocs erased) and
       ``statistics["bytes planned"]`` (the plan's bytes, all blocks added).

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
        rewriter = PatternRewriter()
        blocks = {nested.parent: None for nested in op.walk() if nested.name == "memref.alloc"}
        for block in blocks:
            placed = block_buffers(block)
            slots = assign_slots([buffer for _, buffer in placed])  # step 1
            sizes = {slot: buffer.bytes for (_, buffer), slot in zip(placed, slots, strict=True)}
            need = sum(sizes.values())
            if self.budget is not None and need > self.budget:  # step 2
                raise PassError(
                    f"{self.name}: the buffers need {need} bytes, over the budget of "
                    f"{self.budget} bytes"
                )
            self.statistics["bytes planned"] += need
            for slot in sorted(sizes):  # step 3
                members = [(a, b) for (a, b), s in zip(placed, slots, strict=True) if s == slot]
                members.sort(key=lambda pair: pair[1].start)
                kept = members[0][0]
                for alloc, _ in members[:-1]:
                    for dealloc in [
                        u for u in alloc.results[0].users if u.name == "memref.dealloc"
                    ]:
                        rewriter.erase_op(dealloc)
                for alloc, _ in members[1:]:
                    rewriter.replace_all_uses_with(alloc.results[0], kept.results[0])
                    rewriter.erase_op(alloc)
                    self.statistics["allocations shared"] += 1

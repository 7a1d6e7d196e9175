"""In-place analysis: may this op write its result into its operand's buffer?

``%r = linalg.generic ... outs(%x)`` computes a new tensor ``%r`` from ``%x``. Giving
``%r`` the buffer of ``%x`` (writing *in place*) saves an allocation and a copy, but
it destroys the old contents of ``%x``. That is only safe when nothing still needs
them: no op reads ``%x`` (or a value sharing its memory) after the write. This is a
**read-after-write conflict** check, MLIR's One-Shot Analysis (``OneShotAnalysis.cpp``)
in a simplified form. The algorithm:

1. Check every op with tensors has a bufferization rule (``aliasing.py``).
2. Seed the sets (``alias_sets.py``): a view (``extract_slice``, reshapes) aliases its
   source; an ``scf.for`` iter_arg is its result.
3. Visit the candidate operands (``outs`` of linalg, ``insert_slice`` dest,
   ``tensor.insert`` dest, ``scf.for`` inits) bottom-up, last op first, as MLIR's
   default heuristic does: a consumer's decision is known when its producer is asked.
4. For a candidate, *pretend* it is in place: join the operand's alias set with the
   result's. Collect every read of a value in the joined set and every in-place write
   into it (decided earlier, or this candidate).
5. A write ``W`` and a read ``R`` of value ``%x`` conflict when ``R`` may run after
   ``W`` and expects the contents ``%x`` had before ``W``:

   a. ``R`` comes after ``W`` in program order, and ``%x`` was last written before
      ``W`` (views pass the question on to their source);
   b. or ``R`` comes before ``W`` inside a loop around both, and ``%x`` comes from
      outside that loop: the next iteration reads what this one overwrote;
   c. ``W`` and ``R`` are one op: fine for its own ``outs``, and for an input with
      the same buffer read through the same indexing map when the op is elementwise
      (each element is read before it is written); a conflict otherwise;
   d. not a conflict: ``R`` is a ``tensor.insert_slice`` reading its destination and
      ``W`` writes inside exactly the window that insert overwrites (the tiling
      pattern ``extract_slice -> compute in place -> insert_slice`` at one offset);
   e. not a conflict: ``%x`` comes from ``tensor.empty``: its contents are undefined,
      so nobody can miss them (CSE often makes loops share one ``tensor.empty``).

6. Also refuse when the joined set holds a function argument (the caller's memory,
   read-only unless ``writable_arguments=True``), or when another operand of the
   same op already writes into it (``outs(%e, %e)``: two results, one buffer).
7. No conflict: decide in place and join the sets for real (and the equivalence
   sets: the result *is* the operand's buffer). Otherwise decide "copy": the result
   gets a new buffer. Every decision keeps its reason.

What is simplified against MLIR: no subset reasoning beyond (5d) (writes to two
disjoint slices of one buffer count as conflicting), ``scf.for`` inits always count
as written, every op must have a rule (no ``allow-unknown-ops``), and only
``scf.for`` among the region ops may carry tensors.

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
>>> for decision in analyze_in_place(m.body.first_op).decisions:
...     print(decision.reason)
copy: %a is read later by 'func.return' at line 17
in place: no later read of %e
"""

from __future__ import annotations

from dataclasses import dataclass

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir.naming import SSANames
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Use, Value
from tinycomp.passes.bufferize.alias_sets import ValueSets
from tinycomp.passes.bufferize.aliasing import (
    INSERT_SLICE_DEST,
    INSERT_SLICE_SOURCE,
    SUPPORTED_OPS,
    VIEW_OPS,
    aliasing_values,
    has_undefined_contents,
    is_tensor,
    reads_operand,
    writable_operands,
)
from tinycomp.passes.bufferize.program_order import ProgramOrder
from tinycomp.passes.errors import PassError

__all__ = ["InPlaceAnalysis", "InPlaceDecision", "analyze_in_place"]


@dataclass(frozen=True)
class InPlaceDecision:
    """The verdict for one operand that an op would write."""

    op: Operation
    """The op that writes (linalg, ``tensor.insert_slice``, ``scf.for``...)."""
    operand_index: int
    """Which of its operands it would write."""
    in_place: bool
    """True: the result reuses the operand's buffer. False: a new buffer (a copy)."""
    reason: str
    """``in place: no later read of %x`` or ``copy: %x is read later by ...``."""


class InPlaceAnalysis:
    """Decides every candidate operand of ``function`` (see the module docstring);
    ``decisions`` is in the order they were made (bottom-up)."""

    def __init__(self, function: Operation, writable_arguments: bool = False) -> None:
        self.order = ProgramOrder(function)
        self.aliases = ValueSets()
        """Values whose buffers may overlap."""
        self.equivalents = ValueSets()
        """Values with exactly the same buffer."""
        self.decisions: list[InPlaceDecision] = []
        self._in_place: set[Use] = set()
        arguments = function.regions[0].blocks[0].arguments if function.regions else ()
        self.read_only: set[Value] = set() if writable_arguments else set(arguments)
        """The function arguments the analysis may not write (the caller's memory)."""
        root = function
        while root.parent_op() is not None:
            root = root.parent_op()
        self._names = SSANames(root)
        self._check_supported(function)  # step 1
        self._seed(function)  # step 2
        for op in reversed(list(function.walk())):  # step 3
            for index in writable_operands(op):
                self._decide(Use(op, index))

    # -- queries ------------------------------------------------------------------------
    def is_in_place(self, op: Operation, index: int) -> bool:
        """Whether operand ``index`` of ``op`` was decided in place."""
        return Use(op, index) in self._in_place

    def name(self, value: Value) -> str:
        """The value's SSA name as the tensor IR prints it (``%0``, ``%acc``)."""
        return self._names.value_name(value)

    # -- steps 1 and 2 --------------------------------------------------------------------
    def _check_supported(self, function: Operation) -> None:
        for op in function.walk():
            if op is function:
                continue
            touches_tensors = any(is_tensor(v) for v in (*op.operands, *op.results))
            if not touches_tensors:
                continue
            if isinstance(op, StructuredOp) and op.is_tensor_semantics:
                continue
            if op.name not in SUPPORTED_OPS:
                raise PassError(
                    f"one-shot-bufferize: no bufferization rule for {self.order.describe(op)}, "
                    "which has tensor operands or results (supported: linalg ops on tensors, "
                    f"{', '.join(SUPPORTED_OPS)})"
                )

    def _seed(self, function: Operation) -> None:
        for op in function.walk():
            if op.name in VIEW_OPS:
                self.aliases.union(op.operands[0], op.results[0])
            if op.name == "scf.for":
                for index in writable_operands(op):
                    result, iter_arg = aliasing_values(op, index)
                    self.aliases.union(result, iter_arg)
                    self.equivalents.union(result, iter_arg)

    # -- steps 4 to 7 ---------------------------------------------------------------------
    def _decide(self, candidate: Use) -> None:
        operand = candidate.user.operands[candidate.index]
        aliased = aliasing_values(candidate.user, candidate.index)
        members = self.aliases.merged_members(operand, aliased[0])  # step 4
        pair = (self.equivalents.find(operand), self.equivalents.find(aliased[0]))
        reason = (
            self._read_only_problem(members)
            or self._written_twice(candidate, members)
            or self._first_conflict(candidate, members, pair)
        )
        in_place = reason is None
        if in_place:  # step 7
            self._in_place.add(candidate)
            for value in aliased:
                self.aliases.union(operand, value)
                self.equivalents.union(operand, value)
            reason = f"in place: no later read of {self.name(operand)}"
        decision = InPlaceDecision(candidate.user, candidate.index, in_place, reason)
        self.decisions.append(decision)

    def _read_only_problem(self, members: list[Value]) -> str | None:
        for value in members:  # step 6
            if value in self.read_only:
                return (
                    f"copy: {self.name(value)} is a function argument (read-only; "
                    "writable_arguments=True allows writing it)"
                )
        return None

    def _written_twice(self, candidate: Use, members: list[Value]) -> str | None:
        """Step 6 too: two operands of one op, both written in place into one buffer,
        would overwrite each other (``outs(%e, %e)``; ``iter_args`` from one value)."""
        op = candidate.user
        for index in writable_operands(op):
            other = Use(op, index)
            if other != candidate and other in self._in_place and op.operands[index] in members:
                value = self.name(op.operands[index])
                return f"copy: {value} is also written by {self.order.describe(op)}"
        return None

    def _first_conflict(self, candidate: Use, members: list[Value], pair: tuple) -> str | None:
        reads = [
            use for value in members for use in value.uses if reads_operand(use.user, use.index)
        ]
        reads.sort(key=lambda use: self.order.start[use.user])
        earlier_writes = [use for value in members for use in value.uses if use in self._in_place]
        for write in [candidate, *earlier_writes]:  # the candidate's own conflicts first
            for read in reads:
                problem = self._conflict(write, read, pair)
                if problem is None:
                    continue
                if write.user is not candidate.user and write.user is not read.user:
                    writer = self.order.describe(write.user)
                    problem += f" after {writer} writes into its buffer"
                return f"copy: {problem}"
        return None

    def _conflict(self, write: Use, read: Use, pair: tuple) -> str | None:
        """Why ``read`` would see ``write`` too early (step 5), or ``None``."""
        writer, reader = write.user, read.user
        value = reader.operands[read.index]
        if has_undefined_contents(value):  # 5e
            return None
        if writer is reader:  # 5c
            return self._same_op_conflict(write, read, pair)
        if reader.name == "tensor.insert_slice" and read.index == INSERT_SLICE_DEST:
            if self._writes_inside_window(write, reader, pair):  # 5d
                return None
        w, r = self.order.start[writer], self.order.start[reader]
        last_write = self._last_write_position(value)
        if r > w:  # 5a
            if last_write < w:
                return f"{self.name(value)} is read later by {self.order.describe(reader)}"
            return None
        loop = self.order.innermost_common_loop(writer, reader)  # 5b
        if loop is not None and last_write < self.order.start[loop]:
            return (
                f"{self.name(value)} is read by {self.order.describe(reader)} in the next "
                f"iteration of {self.order.describe(loop)}"
            )
        return None

    def _same_op_conflict(self, write: Use, read: Use, pair: tuple) -> str | None:
        op = write.user
        if read.index == write.index:
            return None
        if isinstance(op, StructuredOp) and read.index < op.num_inputs:
            same_buffer = self._equivalent(op.operands[read.index], op.operands[write.index], pair)
            if same_buffer and _elementwise_pair(op, read.index, write.index):
                return None
        if op.name == "tensor.insert_slice" and read.index == INSERT_SLICE_SOURCE:
            if self._writes_inside_window(Use(op, INSERT_SLICE_SOURCE), op, pair):
                return None
        value = op.operands[read.index]
        return f"{self.name(value)} is also read by {self.order.describe(op)}, which writes it"

    def _writes_inside_window(self, write: Use, insert: Operation, pair: tuple) -> bool:
        """Whether the written value is (equivalent to) ``extract_slice`` of the insert's
        destination at the insert's window: then the write stays inside the window."""
        written = write.user.operands[write.index]
        for value in self._equivalent_members(written, pair):
            extract = value.defining_op()
            if extract is None or extract.name != "tensor.extract_slice":
                continue
            if not _same_window(extract, insert):
                continue
            if self._equivalent(extract.operands[0], insert.operands[INSERT_SLICE_DEST], pair):
                return True
        return False

    # -- helpers ----------------------------------------------------------------------------
    def _equivalent_members(self, value: Value, pair: tuple) -> list[Value]:
        if self.equivalents.find(value) in pair:
            return self.equivalents.merged_members(*pair)
        return self.equivalents.members(value)

    def _equivalent(self, a: Value, b: Value, pair: tuple) -> bool:
        roots = {self.equivalents.find(a), self.equivalents.find(b)}
        return len(roots) == 1 or roots == set(pair)

    def _last_write_position(self, value: Value) -> int:
        """Where the contents of ``value`` were last written: views ask their source."""
        op = value.defining_op()
        while op is not None and op.name in VIEW_OPS:
            value = op.operands[0]
            op = value.defining_op()
        return self.order.definition_position(value)


def _same_window(extract: Operation, insert: Operation) -> bool:
    """Same static offsets, sizes and strides, and the same dynamic values for them."""
    keys = ("static_offsets", "static_sizes", "static_strides")
    if any(extract.attributes[key] != insert.attributes[key] for key in keys):
        return False
    return list(extract.operands[1:]) == list(insert.operands[2:])


def _elementwise_pair(op: StructuredOp, input_index: int, output_index: int) -> bool:
    """Each output element depends only on the input element at the same place (all
    loops parallel, the same permutation map): reading and writing one buffer is safe."""
    maps = op.indexing_maps()
    if any(kind != "parallel" for kind in op.iterator_types()):
        return False
    return maps[input_index] == maps[output_index] and maps[output_index].is_permutation()


def analyze_in_place(function: Operation, writable_arguments: bool = False) -> InPlaceAnalysis:
    """Run the in-place analysis on one ``func.func``; see ``InPlaceAnalysis``.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%x: tensor<4xf32>, %v: f32) -> tensor<4xf32> {
    ...   %r = linalg.fill ins(%v : f32) outs(%x : tensor<4xf32>) -> tensor<4xf32>
    ...   return %r : tensor<4xf32> }''')
    >>> analyze_in_place(m.body.first_op).decisions[0].in_place
    False
    >>> analyze_in_place(m.body.first_op, writable_arguments=True).decisions[0].reason
    'in place: no later read of %x'
    """
    return InPlaceAnalysis(function, writable_arguments)

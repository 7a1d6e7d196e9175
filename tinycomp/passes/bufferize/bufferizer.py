"""The driver that turns one function from tensors to memrefs, following the analysis.

The in-place analysis has decided, for every operand an op would write, whether the
result reuses the operand's buffer. The bufferizer walks the function once, top to
bottom, and keeps one map: ``buffers``, from each tensor value to the memref holding
it. For every op touching tensors it asks ``rewrite.py`` for the memref ops that do
the same work, inserts them before the op, and records the buffers of the op's
results. The algorithm:

1. Give the function new arguments: identity-layout memrefs for the tensor ones (the
   caller's arrays), the same types for the others. The old arguments stay until the
   end, so every op still sees the tensor types it had while it is rewritten.
2. Visit the ops in order (nested regions too). An op without tensors stays as it is.
   An op with tensors is rewritten by its rule; the old op is kept until the end,
   since later ops still name its results.
3. An in-place result maps to its operand's buffer (the same SSA memref value, so a
   later rule can see "this is the buffer I write into"); an out-of-place one to a
   new ``memref.alloc``, filled with a ``memref.copy`` when its old contents are read.
4. Erase the old tensor ops (last first, so every result has lost its users), the
   tensor block arguments of rewritten loops, the old function arguments, and any
   allocation nothing uses (a ``tensor.empty`` whose every user got its own buffer).
5. ``func.return`` now returns memrefs; ``function_boundary.py`` turns those results
   into out-params.

Every change goes through a ``PatternRewriter``. ``allocations`` remembers why each
``memref.alloc`` was made, for the report.

>>> from tinycomp.ir import parse
>>> from tinycomp.passes.bufferize.inplace_analysis import analyze_in_place
>>> m = parse('''func.func @f(%t: tensor<8xf32>, %i: index) -> f32 {
...   %s = tensor.extract_slice %t[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
...   %x = tensor.extract %s[%i] : tensor<4xf32>
...   return %x : f32 }''')
>>> f = m.body.first_op
>>> Bufferizer(f, analyze_in_place(f)).run()
>>> print(f)
func.func @f(%t: memref<8xf32>, %i: index) -> f32 {
  %subview = memref.subview %t[%i] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: ?>>
  %x = memref.load %subview[%i] : memref<4xf32, strided<[1], offset: ?>>
  return %x : f32
}
"""  # noqa: E501

from __future__ import annotations

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.memref.access import CopyOp
from tinycomp.ir.attributes import TypeAttr
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FunctionType, RankedTensorType
from tinycomp.ir.values import Value
from tinycomp.passes.bufferize.aliasing import has_undefined_contents, is_tensor
from tinycomp.passes.bufferize.inplace_analysis import InPlaceAnalysis
from tinycomp.passes.bufferize.memref_types import alloc_like, memref_type_for
from tinycomp.passes.bufferize.rewrite import RULES, bufferize_linalg
from tinycomp.passes.errors import PassError
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["Bufferizer"]


class Bufferizer:
    """Rewrites one ``func.func`` to memrefs (see the module docstring)."""

    def __init__(self, function: Operation, analysis: InPlaceAnalysis) -> None:
        self.function = function
        """The function being rewritten."""
        self.analysis = analysis
        """The in-place decisions to follow."""
        self.rewriter = PatternRewriter()
        """Inserts new ops (before the op being rewritten) and erases old ones."""
        self.buffers: dict[Value, Value] = {}
        """Tensor value -> the memref that holds it."""
        self.allocations: dict[Operation, str] = {}
        """Each ``memref.alloc`` made -> why (for the report)."""
        self.loop_buffers: dict[Block, dict[int, Value]] = {}
        """Body of a rewritten loop -> its iter buffer per tensor iter_arg position."""
        self._dead_ops: list[Operation] = []
        self._dead_arguments: list[tuple[Block, list[int]]] = []

    def run(self) -> None:
        """Steps 1-4 of the module docstring."""
        entry = self.function.regions[0].blocks[0]
        old_arguments = list(entry.arguments)
        for argument in old_arguments:  # step 1
            if isinstance(argument.type, RankedTensorType):
                new = entry.add_argument(memref_type_for(argument.type), argument.name_hint)
                self.buffers[argument] = new
            else:
                new = entry.add_argument(argument.type, argument.name_hint)
                self.rewriter.replace_all_uses_with(argument, new)
        self.bufferize_block(entry)  # step 2
        for op in reversed(self._dead_ops):  # step 4
            self.rewriter.erase_op(op)
        for block, positions in self._dead_arguments:
            for position in sorted(positions, reverse=True):
                block.erase_argument(position)
        for position in reversed(range(len(old_arguments))):
            entry.erase_argument(position)
        for alloc in [op for op in self.allocations if not op.results[0].has_uses]:
            self.rewriter.erase_op(alloc)  # a tensor.empty all of whose users copied
            del self.allocations[alloc]
        self._retype_function()

    def bufferize_block(self, block: Block) -> None:
        """Rewrite the ops of ``block`` in order (step 2)."""
        for op in block.ops:
            self.rewriter.set_current_op(op)
            if isinstance(op, StructuredOp) and op.is_tensor_semantics and op.results:
                bufferize_linalg(self, op)
            elif op.name in RULES:
                RULES[op.name](self, op)
            else:
                for region in op.regions:
                    for nested in region.blocks:
                        self.bufferize_block(nested)

    # -- what the rules use -------------------------------------------------------------------
    def buffer(self, value: Value) -> Value:
        """The memref holding tensor ``value`` (non-tensors are themselves)."""
        if not is_tensor(value):
            return value
        if value not in self.buffers:
            raise PassError(
                f"one-shot-bufferize: no buffer for {self.analysis.name(value)} "
                f"(defined outside what was bufferized)"
            )
        return self.buffers[value]

    def new_buffer(self, tensor_type, like: Value | None, why: str) -> Value:
        """Insert a ``memref.alloc`` for a tensor of ``tensor_type`` (dynamic sizes read
        from the buffer ``like``) and remember ``why``."""
        buffer = alloc_like(self.rewriter, tensor_type, like)
        self.allocations[buffer.defining_op()] = why
        return buffer

    def copy(self, source: Value, target: Value) -> None:
        """Insert ``memref.copy source, target``."""
        self.rewriter.insert(CopyOp.build(source, target))

    def destination(self, op: Operation, index: int) -> Value:
        """The buffer ``op`` writes for operand ``index``: the operand's own buffer when
        the analysis said in place, else a new buffer holding a copy (step 3)."""
        value = op.operands[index]
        if self.analysis.is_in_place(op, index):
            return self.buffer(value)
        where = self.analysis.order.describe(op)
        what = "new buffer" if has_undefined_contents(value) else "copy"
        why = f"{what} of {self.analysis.name(value)} for {where}"
        fresh = self.new_buffer(value.type, self.buffer(value), why)
        if self.reads_destination(op, index):
            self.copy(self.buffer(value), fresh)
        return fresh

    @staticmethod
    def reads_destination(op: Operation, index: int) -> bool:
        """Whether the old contents of a written operand matter (linalg: when the
        payload uses the output element; insert ops always keep the rest; never for
        the undefined contents of a ``tensor.empty``)."""
        if has_undefined_contents(op.operands[index]):
            return False
        if isinstance(op, StructuredOp):
            return op.payload_reads(index)
        return True

    def set_result_buffer(self, result: Value, buffer: Value) -> None:
        """Record that tensor ``result`` lives in ``buffer``."""
        self.buffers[result] = buffer

    def replace_scalar(self, old: Value, new: Value) -> None:
        """Make the users of a non-tensor result of an old op read ``new`` (which keeps
        the old name, if it has none of its own)."""
        if new.name_hint is None:
            new.name_hint = old.name_hint
        self.rewriter.replace_all_uses_with(old, new)

    def retire(self, op: Operation) -> None:
        """Mark an old tensor op for erasure at the end (step 4)."""
        self._dead_ops.append(op)

    def retire_arguments(self, block: Block, positions: list[int]) -> None:
        """Mark tensor block arguments of a rewritten loop body for erasure."""
        self._dead_arguments.append((block, positions))

    def _retype_function(self) -> None:
        entry = self.function.regions[0].blocks[0]
        terminator = entry.last_op
        results = [v.type for v in terminator.operands] if terminator is not None else []
        inputs = [a.type for a in entry.arguments]
        self.function.attributes["function_type"] = TypeAttr(FunctionType(inputs, results))

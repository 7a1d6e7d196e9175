"""cf to LLVM: unstructured branches, block arguments as phi nodes.

``cf.br`` and ``cf.cond_br`` are LLVM's ``br`` already; the one difference is how
values flow into a block. MLIR blocks take *arguments*, passed by each branch::

    cf.cond_br %c, ^bb1(%a : f32), ^bb1(%b : f32)     // MLIR: the branch passes %a / %b
    ^bb1(%x: f32):

LLVM blocks start with *phi nodes* instead, which list, per predecessor block, the
value that arrives from it::

    %x = phi float [ %a, %entry ], [ %b, %other ]

The two say the same thing from opposite ends. Steps:

1. ``emit_function`` gave each block argument its phi names (one per LLVM part, so a
   memref argument has one phi per descriptor field), in ``em.block_targets``.
2. A branch adds ``(operand, current block)`` to the phis of the block it goes to,
   then writes ``br``.
3. A phi may list each predecessor once, so when both arms of a ``cf.cond_br`` go to
   the same block with arguments, one arm goes through a new block of its own (MLIR's
   translation does the same).

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> print(emit_llvm(parse('''func.func @max(%a: i32, %b: i32) -> i32 {
...   %c = arith.cmpi sgt, %a, %b : i32
...   cf.cond_br %c, ^bb1(%a : i32), ^bb1(%b : i32)
... ^bb1(%m: i32):
...   return %m : i32
... }''')).text)
define i32 @max(i32 %a, i32 %b) {
entry:
  %c = icmp sgt i32 %a, %b
  br i1 %c, label %bb1, label %cond_br.false
cond_br.false:
  br label %bb1
bb1:
  %m = phi i32 [ %a, %entry ], [ %b, %cond_br.false ]
  ret i32 %m
}
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value

__all__: list[str] = []  # the module registers emitters; it exports nothing


def pass_block_arguments(
    em: FunctionEmitter, op: Operation, dest: Block, operands: Sequence[Value]
) -> str:
    """Step 2 without the ``br``: feed ``operands`` to ``dest``'s phis from the current
    block; returns ``dest``'s label."""
    if dest not in em.block_targets:
        raise em.op_error(op, "expected a branch to a block of the same function body")
    label, phis = em.block_targets[dest]
    for names, value in zip(phis, operands, strict=True):
        for name, (_, text) in zip(names, em.parts(value), strict=True):
            em.add_incoming(name, text, em.current_label)
    return label


@register_emitter("cf.br")
def emit_br(em: FunctionEmitter, op: Operation) -> None:
    """``br label %dest``."""
    label = pass_block_arguments(em, op, op.successors[0], op.operands)
    em.emit(f"br label %{label}")


@register_emitter("cf.cond_br")
def emit_cond_br(em: FunctionEmitter, op: Operation) -> None:
    """``br i1 %c, label %then, label %else`` (step 3 when both go to one block)."""
    true_dest, false_dest = op.successors
    true_operands = op.successor_operands(0)
    false_operands = op.successor_operands(1)
    condition = em.value(op.operands[0])
    true_label = pass_block_arguments(em, op, true_dest, true_operands)
    if false_dest is true_dest and false_dest.arguments:
        branch_block = em.fresh_label("cond_br.false")
        em.emit(f"br i1 {condition}, label %{true_label}, label %{branch_block}")
        em.start_block(branch_block)
        false_label = pass_block_arguments(em, op, false_dest, false_operands)
        em.emit(f"br label %{false_label}")
        return
    false_label = pass_block_arguments(em, op, false_dest, false_operands)
    em.emit(f"br i1 {condition}, label %{true_label}, label %{false_label}")

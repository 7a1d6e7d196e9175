"""scf to LLVM: structured loops and conditionals as blocks, branches and phis.

MLIR lowers scf in two steps, ``-convert-scf-to-cf`` (regions become blocks with
arguments and ``cf.br``) then ``-convert-cf-to-llvm``; tinycomp writes the blocks
directly (``control_flow.py`` draws them):

1. ``scf.for``: a counted loop; the induction variable and each ``iter_args`` value
   are phis of the loop header, the body's ``scf.yield`` gives their next values and
   the loop's results are the header phis seen from the exit block. The comparison is
   signed (``icmp slt``) unless the loop has ``unsignedCmp``. A ``tinycomp.bind``
   attribute (a tile loop bound to hardware units) changes nothing on a CPU: the loop
   runs in order.
2. ``scf.if``: a diamond of blocks; results are phis of the merge block.
3. ``scf.while``: the ``before`` region computes the condition and the values to pass
   on (``scf.condition``); its block arguments are phis fed by the initial values and
   by the ``after`` region's ``scf.yield``. The values ``scf.condition`` passes are
   defined in the ``before`` block, which dominates both the body and the exit, so
   they need no phis: the body's arguments and the loop's results are those values.
4. ``scf.execute_region`` with one block: its ops, in place.

A value of several LLVM parts (a memref carried by a loop) has one phi per part.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> print(emit_llvm(parse('''func.func @sum(%n: index) -> index {
...   %c0 = arith.constant 0 : index
...   %c1 = arith.constant 1 : index
...   %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %c0) -> (index) {
...     %next = arith.addi %acc, %i : index
...     scf.yield %next : index
...   }
...   return %r : index
... }''')).text)
define i64 @sum(i64 %n) {
entry:
  br label %for.cond
for.cond:
  %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
  %acc = phi i64 [ 0, %entry ], [ %next, %for.body ]
  %cond = icmp slt i64 %i, %n
  br i1 %cond, label %for.body, label %for.end
for.body:
  %next = add i64 %acc, %i
  %i.next = add i64 %i, 1
  br label %for.cond
for.end:
  ret i64 %acc
}
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.codegen.llvm.control_flow import counted_loop, if_then_else
from tinycomp.codegen.llvm.registry import FunctionEmitter, register_emitter
from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value

__all__: list[str] = []  # emitters; the helpers below are shared with emit_affine


def flat_parts(em: FunctionEmitter, values: Sequence[Value]) -> list[tuple[str, str]]:
    """``(type, text)`` of every LLVM part of ``values``, in order."""
    return [part for value in values for part in em.parts(value)]


def bind_grouped(em: FunctionEmitter, values: Sequence[Value], texts: Sequence[str]) -> None:
    """Bind ``values`` to ``texts`` given part by part (as ``flat_parts`` lists them)."""
    position = 0
    for value in values:
        count = len(em.part_types(value.type))
        em.bind_parts(value, texts[position : position + count])
        position += count


def part_hints(em: FunctionEmitter, values: Sequence[Value], fallback: str) -> list[str]:
    """Names for the phis of ``values``: the tinycomp names, one per part."""
    hints = []
    for value in values:
        count = len(em.part_types(value.type))
        base = value.name_hint or fallback
        hints += [base] if count == 1 else [f"{base}.{k}" for k in range(count)]
    return hints


def emit_region_values(em: FunctionEmitter, op: Operation, block: Block) -> list[str]:
    """Emit a region's only block; return the texts its terminator yields, by part."""
    terminator = em.emit_block(block)
    if terminator is None:
        raise em.op_error(op, "expected its region to end in a yield")
    return [text for _, text in flat_parts(em, terminator.operands)]


@register_emitter("scf.for")
def emit_for(em: FunctionEmitter, op: Operation) -> None:
    """Step 1: a counted loop with loop-carried values."""
    lower, upper, step = (em.value(v) for v in op.operands[:3])

    def body(iv: str, phis: list[str]) -> list[str]:
        em.bind(op.induction_var, iv)
        bind_grouped(em, op.region_iter_args, phis)
        return emit_region_values(em, op, op.body)

    results = counted_loop(
        em,
        lower,
        upper,
        step,
        flat_parts(em, op.init_args),
        body,
        iv_hint=op.induction_var.name_hint or "iv",
        iv_type=em.llvm_type(op.operands[0].type),
        unsigned="unsignedCmp" in op.attributes,
        carried_hints=part_hints(em, op.region_iter_args, "iter"),
    )
    bind_grouped(em, op.results, results)


@register_emitter("scf.if")
def emit_if(em: FunctionEmitter, op: Operation) -> None:
    """Step 2: then / else / merge."""
    else_block = op.regions[1].blocks[0] if op.regions[1].blocks else None
    types = [t for value in op.results for t in em.part_types(value.type)]
    results = if_then_else(
        em,
        em.value(op.operands[0]),
        lambda: emit_region_values(em, op, op.regions[0].blocks[0]),
        (lambda: emit_region_values(em, op, else_block)) if else_block is not None else None,
        types,
    )
    bind_grouped(em, op.results, results)


@register_emitter("scf.while")
def emit_while(em: FunctionEmitter, op: Operation) -> None:
    """Step 3: condition block with phis, body, exit."""
    before, after = op.regions[0].blocks[0], op.regions[1].blocks[0]
    preheader = em.current_label
    header, body, exit_label = (em.fresh_label(f"while.{n}") for n in ("cond", "body", "end"))
    em.emit(f"br label %{header}")
    em.start_block(header)
    initial = flat_parts(em, op.operands)
    phis = []
    for (type_, text), hint in zip(initial, part_hints(em, before.arguments, "arg"), strict=True):
        phi = em.fresh(hint)
        em.add_phi(header, phi, type_)
        em.add_incoming(phi, text, preheader)
        phis.append(phi)
    bind_grouped(em, before.arguments, phis)
    condition = em.emit_block(before)
    if condition is None or condition.name != "scf.condition":
        raise em.op_error(op, "expected the 'before' region to end in scf.condition")
    decision, *passed = condition.operands
    em.emit(f"br i1 {em.value(decision)}, label %{body}, label %{exit_label}")
    passed_texts = [text for _, text in flat_parts(em, passed)]
    em.start_block(body)
    bind_grouped(em, after.arguments, passed_texts)
    next_values = emit_region_values(em, op, after)
    for phi, text in zip(phis, next_values, strict=True):
        em.add_incoming(phi, text, em.current_label)
    em.emit(f"br label %{header}")
    em.start_block(exit_label)
    bind_grouped(em, op.results, passed_texts)


@register_emitter("scf.execute_region")
def emit_execute_region(em: FunctionEmitter, op: Operation) -> None:
    """Step 4: a one-block region, inline."""
    blocks = op.regions[0].blocks
    if len(blocks) != 1:
        raise em.op_error(op, f"expected a region of one block, got {len(blocks)}")
    bind_grouped(em, op.results, emit_region_values(em, op, blocks[0]))

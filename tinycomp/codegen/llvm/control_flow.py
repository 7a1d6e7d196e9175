"""Structured control flow as basic blocks: the loop and the if-then-else.

LLVM has no loops, only blocks and branches. A counted loop with loop-carried values
(``scf.for %i = %lb to %ub step %s iter_args(%acc = %init)``) becomes four blocks, the
shape clang gives a C ``for`` loop and MLIR's ``-convert-scf-to-cf`` gives ``scf.for``::

    preheader:                      ; where we were
      br label %for.cond
    for.cond:                       ; the header: one phi per changing value
      %i   = phi i64   [ %lb, %preheader ], [ %i.next, %latch ]
      %acc = phi float [ %init, %preheader ], [ %acc.new, %latch ]
      %cond = icmp slt i64 %i, %ub
      br i1 %cond, label %for.body, label %for.end
    for.body:                       ; the body (nested loops add blocks here)
      ...                           ; the last block of the body is the "latch"
      %i.next = add i64 %i, %s
      br label %for.cond
    for.end:                        ; after the loop, %acc holds the result

Steps of ``counted_loop``:

1. Reserve the labels; branch from the current block (the preheader) to the header.
2. Header: declare one phi for the induction variable and one per carried value (their
   incoming values are not all known yet: the latch does not exist), compare, branch.
3. Body: let the caller emit it, given the induction variable and the carried phis; it
   returns the values for the next iteration. The block we are in afterwards is the
   latch: increment, branch back, and now give the phis their incoming values.
4. Continue in the exit block; the carried phis are the loop's results.

MLIR keeps ``scf.for``'s carried values as block arguments of the header; block
arguments *are* phis, written at the other end of the branch. ``if_then_else`` is the
same idea with a diamond: then, else, and a merge block with a phi per result.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinycomp.codegen.llvm.registry import FunctionEmitter

__all__ = ["counted_loop", "if_then_else"]

LoopBody = Callable[[str, list[str]], list[str]]
"""``body(induction_variable, carried_values) -> next_carried_values``."""


def counted_loop(
    em: FunctionEmitter,
    lower: str,
    upper: str,
    step: str,
    carried: Sequence[tuple[str, str]],
    body: LoopBody,
    iv_hint: str = "iv",
    iv_type: str = "i64",
    unsigned: bool = False,
    carried_hints: Sequence[str] = (),
) -> list[str]:
    """Emit a loop ``for iv = lower; iv < upper; iv += step`` (steps 1-4 above).

    ``carried`` gives ``(type, initial value)`` per loop-carried value (named after
    ``carried_hints`` when given); returns the names that hold their final values
    after the loop.

    >>> from tinycomp.codegen.llvm.registry import FunctionEmitter
    >>> from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
    >>> function = FunctionText("triangle", "i64", [("i64", "n")])
    >>> em = FunctionEmitter(ModuleText(), function)
    >>> em.start_block("entry")
    >>> def body(i, carried):
    ...     total = em.fresh("total")
    ...     em.emit(f"{total} = add i64 {carried[0]}, {i}")
    ...     return [total]
    >>> (result,) = counted_loop(em, "0", "%n", "1", [("i64", "0")], body, iv_hint="i")
    >>> em.emit(f"ret i64 {result}")
    >>> em.finish()
    >>> for text, _ in function.blocks[1].phis:
    ...     print(text)
    %i = phi i64 [ 0, %entry ], [ %i.next, %for.body ]
    %iter = phi i64 [ 0, %entry ], [ %total, %for.body ]
    """
    preheader = em.current_label
    header = em.fresh_label("for.cond")
    body_label = em.fresh_label("for.body")
    em.emit(f"br label %{header}")
    em.start_block(header)
    iv = em.fresh(iv_hint)
    em.add_phi(header, iv, iv_type)
    em.add_incoming(iv, lower, preheader)
    phis = []
    for position, (type_, initial) in enumerate(carried):
        hint = carried_hints[position] if position < len(carried_hints) else "iter"
        phi = em.fresh(hint)
        em.add_phi(header, phi, type_)
        em.add_incoming(phi, initial, preheader)
        phis.append(phi)
    condition = em.fresh("cond")
    em.emit(f"{condition} = icmp {'ult' if unsigned else 'slt'} {iv_type} {iv}, {upper}")
    exit_label = em.fresh_label("for.end")
    em.emit(f"br i1 {condition}, label %{body_label}, label %{exit_label}")
    em.start_block(body_label)
    next_values = body(iv, phis)
    next_iv = em.fresh(f"{iv.lstrip('%')}.next")
    em.emit(f"{next_iv} = add {iv_type} {iv}, {step}")
    latch = em.current_label
    em.emit(f"br label %{header}")
    em.add_incoming(iv, next_iv, latch)
    for phi, value in zip(phis, next_values, strict=True):
        em.add_incoming(phi, value, latch)
    em.start_block(exit_label)
    return phis


def if_then_else(
    em: FunctionEmitter,
    condition: str,
    then_body: Callable[[], list[str]],
    else_body: Callable[[], list[str]] | None,
    result_types: Sequence[str] = (),
) -> list[str]:
    """Emit ``if (condition) then_body else else_body``; each body returns its values
    for the results (``result_types``), which meet in phis of the merge block.

    >>> from tinycomp.codegen.llvm.registry import FunctionEmitter
    >>> from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
    >>> function = FunctionText("pick", "i32", [("i1", "c")])
    >>> em = FunctionEmitter(ModuleText(), function)
    >>> em.start_block("entry")
    >>> (r,) = if_then_else(em, "%c", lambda: ["1"], lambda: ["2"], ["i32"])
    >>> em.emit(f"ret i32 {r}")
    >>> em.finish()
    >>> [block.label for block in function.blocks]
    ['entry', 'if.then', 'if.else', 'if.end']
    >>> function.blocks[-1].phis[0][0]
    '%if.result = phi i32 [ 1, %if.then ], [ 2, %if.else ]'
    """
    then_label = em.fresh_label("if.then")
    else_label = em.fresh_label("if.else") if else_body is not None else None
    merge = em.fresh_label("if.end")
    em.emit(f"br i1 {condition}, label %{then_label}, label %{else_label or merge}")
    arms: list[tuple[list[str], str]] = []
    for label, arm in ((then_label, then_body), (else_label, else_body)):
        if label is None or arm is None:
            continue
        em.start_block(label)
        values = arm()
        arms.append((values, em.current_label))
        em.emit(f"br label %{merge}")
    em.start_block(merge)
    results = []
    for position, type_ in enumerate(result_types):
        phi = em.fresh("if.result")
        em.add_phi(merge, phi, type_)
        for values, predecessor in arms:
            em.add_incoming(phi, values[position], predecessor)
        results.append(phi)
    return results

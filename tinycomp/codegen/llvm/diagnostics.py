"""LLVM's complaints, told in tinycomp's terms.

When LLVM rejects the IR tinycomp wrote, the fault is in an emitter, and the person
reading the message wants to know which tinycomp op was being emitted. LLVM says where
in *its* text the problem is, in one of two ways:

* the parser gives a position: ``<string>:12:5: error: use of undefined value '%x'``;
* the verifier prints the offending instruction(s):
  ``Instruction does not dominate all uses!\\n  %c = add i32 %b, 1\\n  %b = add ...``.

Steps of ``llvm_error``:

1. A parser position gives the line directly.
2. Otherwise look up each instruction the verifier printed: first as exact text (the
   emitters write instructions the way LLVM prints them), then by the name it defines
   (every value tinycomp emits is named, and names are kept by the parser).
3. The line map of the rendered module (``LLVMModule.source_op``) gives the tinycomp op
   (emitted again with source lines when its ops had none: ``module.located``); the
   message shows LLVM's words, the LLVM line, and the op with its own line.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.llvm import emit_llvm
>>> llvm = emit_llvm(parse('''func.func @f(%a: i32) -> i32 {
...   %b = arith.addi %a, %a : i32
...   return %b : i32
... }'''))
>>> error = llvm_error(llvm, "Broken!\\n  %b = add i32 %a, %a\\n", "verification")
>>> print(error)  # doctest: +NORMALIZE_WHITESPACE
LLVM IR verification failed: Broken!
  at LLVM IR line 3: %b = add i32 %a, %a
  emitted for 'arith.addi' at line 2 (%b = arith.addi %a, %a : i32)
"""

from __future__ import annotations

import re

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.module import located
from tinycomp.codegen.llvm.registry import describe_op
from tinycomp.codegen.llvm.renderer import LLVMModule

__all__ = ["find_llvm_line", "llvm_error"]

_POSITION = re.compile(r"<string>:(\d+):(\d+): error: (.*)")
_DEFINES = re.compile(r"^\s*(%[-a-zA-Z$._0-9]+) = ")


def find_llvm_line(llvm: LLVMModule, message: str) -> int | None:
    """The 1-based line of ``llvm`` that ``message`` (from LLVM) is about (steps 1-2).

    >>> from tinycomp.codegen.llvm import emit_llvm
    >>> llvm = emit_llvm("func.func @f() {\\n  return\\n}")
    >>> find_llvm_line(llvm, "<string>:3:3: error: oops"), find_llvm_line(llvm, "Bad\\n  ret void")
    (3, 3)
    """
    position = _POSITION.search(message)
    if position:
        return int(position.group(1))
    lines = [line.strip() for line in llvm.text.splitlines()]
    quoted = [line.strip() for line in message.splitlines()[1:] if line.strip()]
    for text in quoted:
        for number, line in enumerate(lines, 1):
            if line == text:
                return number
    for text in quoted:
        defined = _DEFINES.match(text)
        if defined is None:
            continue
        for number, line in enumerate(lines, 1):
            if line.startswith(f"{defined.group(1)} = "):
                return number
    return None


def llvm_error(llvm: LLVMModule, message: str, what: str) -> CodegenError:
    """A ``CodegenError`` for LLVM's ``message`` about ``llvm`` (``what``: "parsing" or
    "verification"), naming the LLVM line and the tinycomp op behind it (step 3).

    >>> from tinycomp.codegen.llvm import emit_llvm
    >>> llvm = emit_llvm("func.func @f() {\\n  return\\n}")
    >>> llvm_error(llvm, "<string>:3:3: error: oops", "parsing").op.name
    'func.return'
    """
    position = _POSITION.search(message)
    summary = position.group(3) if position else message.strip().splitlines()[0]
    line = find_llvm_line(llvm, message)
    parts = [f"LLVM IR {what} failed: {summary}"]
    op = located(llvm).source_op(line) if line is not None else None
    if line is not None:
        parts.append(f"  at LLVM IR line {line}: {llvm.line(line)}")
    if op is not None:
        parts.append(f"  emitted for {describe_op(op)}")
    elif line is not None:
        parts.append("  (a line no tinycomp op wrote: the module header or a declaration)")
    else:
        parts.append("  (LLVM did not say which line; the full message follows)")
        parts.append("  " + message.strip().replace("\n", "\n  "))
    return CodegenError("\n".join(parts), op, line)

"""The one exception of the code generation layer.

``CodegenError`` is raised for IR the LLVM emitter cannot translate (an op it has no
rule for, a type LLVM cannot hold), for LLVM IR that LLVM rejects (a parse error or a
verifier failure, reported with the LLVM line *and* the tinycomp op that wrote it), and
for a call of JIT-compiled code with arguments that do not match the function.

>>> raise CodegenError("'tensor.empty' at line 3: no LLVM emitter for this op")
Traceback (most recent call last):
...
tinycomp.codegen.errors.CodegenError: 'tensor.empty' at line 3: no LLVM emitter for this op
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation

__all__ = ["CodegenError"]


class CodegenError(Exception):
    """IR that cannot become native code, or a native function called wrongly."""

    def __init__(self, message: str, op: Operation | None = None, llvm_line: int | None = None):
        self.message = message
        """What went wrong, naming the op (and its line) and what was expected."""
        self.op = op
        """The tinycomp op at fault, when there is one."""
        self.llvm_line = llvm_line
        """The 1-based line of the LLVM IR text at fault, when LLVM rejected the IR."""
        super().__init__(message)

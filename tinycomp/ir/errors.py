"""The two exception classes of the IR layer.

``ParseError`` is raised by the lexer and parser for text that is not valid IR syntax;
``VerifyError`` is raised by the verifier for IR that is well formed text but breaks a
rule (a missing terminator, a use that its definition does not dominate, operand types
that do not match). Both carry a message that says what was expected and what was found.

>>> raise ParseError("expected ')', found ','", line=2, column=7)
Traceback (most recent call last):
...
tinycomp.ir.errors.ParseError: 2:7: expected ')', found ','
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation


class ParseError(Exception):
    """Text that the IR parser cannot read.

    ``str(error)`` is ``"line:column: message"``, followed by the offending source line
    and a caret under the column when the parser had the source at hand.
    """

    def __init__(self, message: str, line: int, column: int, excerpt: str = "") -> None:
        self.message = message
        """What was expected and what was found, without the position."""
        self.line = line
        """1-based line of the offending token."""
        self.column = column
        """1-based column of the offending token."""
        self.excerpt = excerpt
        """The source line and a caret line under the column (may be empty)."""
        text = f"{line}:{column}: {message}"
        if excerpt:
            text += "\n" + excerpt
        super().__init__(text)


class VerifyError(Exception):
    """IR that breaks a structural rule or an op's own invariant.

    ``message`` names the op and its line: ``'arith.addf' at line 3: expected ..., got
    ...``; ``str(error)`` adds the op itself on a second line, printed (lazily) in generic
    form with its regions elided, as MLIR's "see current operation" note does.
    """

    def __init__(self, message: str, op: Operation | None = None) -> None:
        self.message = message
        """What is wrong, naming the op and its line."""
        self.op = op
        """The operation at fault, when there is one."""
        super().__init__(message)

    def __str__(self) -> str:
        if self.op is None:
            return self.message
        from tinycomp.ir.printer import print_op_summary

        return f"{self.message}\n  {print_op_summary(self.op)}"

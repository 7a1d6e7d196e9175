"""Source locations: where in a file an operation came from.

MLIR attaches a location to every operation; with ``--mlir-print-debuginfo`` it prints
them as ``loc("file.mlir":3:5)``. tinycomp keeps the simplest kind, a file name with a
line and a column, and prints it only when asked (``print_ir(op, locations=True)``).
The parser records the position of each op it reads, which is what lets the verifier
say ``'arith.addf' at line 3``.

>>> print(Location("kernel.py", 12, 5))
loc("kernel.py":12:5)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A file/line/column location (MLIR's ``FileLineColLoc``)."""

    file: str
    """The file name, as written between the quotes of ``loc("...":l:c)``."""
    line: int
    """1-based line number."""
    col: int
    """1-based column number."""

    def __str__(self) -> str:
        from tinycomp.ir.attributes import quote_string

        return f"loc({quote_string(self.file)}:{self.line}:{self.col})"


DEFAULT_FILE = "<input>"
"""The file name the parser records for text that came from a string."""
NOTEBOOK_CELL = "<notebook cell>"
"""The file name of code defined in a notebook cell (the kernel DSL records it)."""


def describe_location(location: Location | None) -> str:
    """The ``" at line 3"`` part of a message (``" at kernel.py:3"`` for other files).

    >>> describe_location(Location("<input>", 3, 5)), describe_location(None)
    (' at line 3', '')
    """
    if location is None:
        return ""
    if location.file == DEFAULT_FILE:
        return f" at line {location.line}"
    if location.file == NOTEBOOK_CELL:
        return f" at line {location.line} of the notebook cell"
    return f" at {location.file}:{location.line}"

"""The one exception of the kernel DSL, and the kernel's source it points into.

Every mistake a kernel's author can make (a construct the DSL does not translate, a
name it cannot resolve, a store of the wrong shape, a launch argument of a type it does
not take: ``KernelArgumentError``, a subclass) is a ``KernelSyntaxError`` naming the
kernel, the file and line, and quoting the line itself::

    kernel 'saxpy', kernel.py:12: `break` is not supported in a kernel (use a while
    loop with a flag)
        12 |         break

``KernelSource`` holds what the messages need: the function's parsed ``ast``, its file
and the line numbers of the file (not of the snippet ``inspect`` returns).

>>> source = KernelSource.from_text("def k(a):\\n    a[0] = 1\\n", "k.py", first_line=10)
>>> print(source.error(source.function.body[0], "an example"))
kernel 'k', k.py:11: an example
    11 |     a[0] = 1
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from tinycomp.ir.location import NOTEBOOK_CELL, Location

__all__ = ["KernelArgumentError", "KernelSource", "KernelSyntaxError"]


class KernelSyntaxError(ValueError):
    """A kernel the DSL cannot translate: the message names the kernel, the file and
    line, what was expected and what was found, and quotes the source line."""

    def __init__(self, message: str, kernel: str = "", location: Location | None = None):
        super().__init__(message)
        self.kernel = kernel
        """The kernel's name."""
        self.location = location
        """Where in the kernel's file (``None`` when no line applies)."""


class KernelArgumentError(KernelSyntaxError, TypeError):
    """A launch argument the kernel cannot take (how many, an array's dtype, rank or
    layout, a scalar's type); a ``KernelSyntaxError`` too, and a ``TypeError``."""


@dataclass
class KernelSource:
    """A kernel function's source: its ``ast.FunctionDef`` and where its lines are."""

    function: ast.FunctionDef
    """The parsed ``def``."""
    file: str
    """The file the function was defined in."""
    first_line: int
    """The file's line number of the snippet's first line (a decorator, or the ``def``)."""
    indent: int
    """How many columns ``textwrap.dedent`` removed."""
    lines: list[str]
    """The snippet's lines, as in the file."""

    @classmethod
    def from_function(cls, fn: Callable) -> KernelSource:
        """The source of ``fn``, which must be a plain ``def`` whose file is readable.

        >>> def k(a):
        ...     a[0] = 1.0
        >>> KernelSource.from_function(k).function.name
        'k'
        """
        name = getattr(fn, "__name__", repr(fn))
        if not inspect.isfunction(fn):
            raise KernelSyntaxError(f"kernel {name!r}: expected a Python function, got {fn!r}")
        try:
            lines, first_line = inspect.getsourcelines(fn)
        except (OSError, TypeError) as error:
            raise KernelSyntaxError(
                f"kernel {name!r}: its source is not available ({error}); define kernels "
                "in a file or a notebook cell",
                name,
            ) from None
        file = display_file(inspect.getsourcefile(fn) or "<unknown>")
        return cls.from_text("".join(lines), file, first_line)

    @classmethod
    def from_text(cls, text: str, file: str, first_line: int = 1) -> KernelSource:
        """The first ``def`` of ``text``, as if ``text`` started at ``first_line`` of ``file``.

        >>> KernelSource.from_text("def k(x):\\n    pass\\n", "k.py").function.args.args[0].arg
        'x'
        """
        dedented = textwrap.dedent(text)
        first = next((line for line in text.splitlines() if line.strip()), "")
        indent = len(first) - len(first.lstrip())
        tree = ast.parse(dedented)
        functions = [node for node in tree.body if isinstance(node, ast.FunctionDef)]
        if not functions:
            raise KernelSyntaxError(f"{file}:{first_line}: expected a 'def', got {text[:40]!r}")
        return cls(functions[0], file, first_line, indent, text.splitlines())

    @property
    def name(self) -> str:
        """The kernel's name."""
        return self.function.name

    def location(self, node: ast.AST) -> Location:
        """The file location of ``node``.

        >>> source = KernelSource.from_text("def k():\\n    x = 1\\n", "k.py", first_line=5)
        >>> print(source.location(source.function.body[0]))
        loc("k.py":6:5)
        """
        line = getattr(node, "lineno", self.function.lineno)
        col = getattr(node, "col_offset", 0)
        return Location(self.file, line + self.first_line - 1, col + self.indent + 1)

    def source_line(self, location: Location) -> str:
        """The text of the file's line ``location.line`` (``""`` outside the kernel)."""
        position = location.line - self.first_line
        return self.lines[position] if 0 <= position < len(self.lines) else ""

    def error(self, node: ast.AST | None, message: str) -> KernelSyntaxError:
        """A ``KernelSyntaxError`` at ``node`` (the ``def`` line when ``None``), quoting it."""
        location = self.location(node if node is not None else self.function)
        where = f"{os.path.basename(self.file)}:{location.line}"
        text = f"kernel {self.name!r}, {where}: {message}"
        line = self.source_line(location)
        if line.strip():
            text += f"\n    {location.line} | {line.rstrip()}"
        return KernelSyntaxError(text, self.name, location)


_PACKAGE_ROOT = Path(__file__).resolve().parents[3]
"""The folder holding the ``tinycomp`` package (a checkout, or site-packages)."""
_NOTEBOOK_CELL = re.compile(r"ipykernel_\d+[/\\]\d+\.py$")


def display_file(path: str) -> str:
    """How messages and IR locations name a kernel's file: a notebook cell as
    ``<notebook cell>`` (its line numbers are the cell's), a file of the kit relative to
    the kit, any other file by its name.

    >>> display_file("/tmp/ipykernel_4242/3141592653.py")
    '<notebook cell>'
    >>> display_file("/home/student/work/my_kernels.py")
    'my_kernels.py'
    """
    if _NOTEBOOK_CELL.search(path):
        return NOTEBOOK_CELL
    if path.startswith("<"):
        return path
    resolved = Path(path).resolve()
    if resolved.is_relative_to(_PACKAGE_ROOT) and "site-packages" not in resolved.parts:
        return resolved.relative_to(_PACKAGE_ROOT).as_posix()
    return resolved.name

"""Writing generated functions as MLIR text: indentation, and index constants made once.

The GEMM's functions are generated (their bodies unrolled for a given MR and NR), and
the clearest way to read a generator is next to the text it writes. ``FunctionWriter``
keeps the lines of one ``func.func``; ``index(7)`` returns ``%c7`` and remembers that
the function needs ``%c7 = arith.constant 7 : index``, which ``text()`` puts at the
top of the function, so every constant is defined once and before all its uses.

>>> f = FunctionWriter("inc", "%x: index", "-> index")
>>> f.line(f"%y = arith.addi %x, {f.index(1)} : index")
>>> f.line("return %y : index")
>>> print(f.text())
func.func @inc(%x: index) -> index {
  %c1 = arith.constant 1 : index
  %y = arith.addi %x, %c1 : index
  return %y : index
}
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FunctionWriter"]


class FunctionWriter:
    """The text of one ``func.func`` (see the module docstring)."""

    def __init__(
        self, name: str, parameters: str, results: str = "", private: bool = False
    ) -> None:
        visibility = "private " if private else ""
        self.header = f"func.func {visibility}@{name}({parameters}) {results}".rstrip() + " {"
        """The signature line."""
        self.lines: list[str] = []
        """The body, indented, without the constants."""
        self.depth = 1
        """Current indentation, in levels of two spaces."""
        self.constants: dict[str, str] = {}
        """Name -> defining line of each constant the body uses."""

    def line(self, text: str) -> None:
        """Append one line of IR at the current indentation."""
        self.lines.append("  " * self.depth + text)

    @contextmanager
    def region(self, opener: str | None, closer: str = "}") -> Iterator[None]:
        """``opener`` (ending in ``{``; ``None`` continues after an ``} else {``), the
        lines written inside, indented, then ``closer``.

        >>> f = FunctionWriter("f", "")
        >>> with f.region("scf.if %p {", "} else {"):
        ...     f.line("x")
        >>> with f.region(None):
        ...     f.line("y")
        >>> f.lines
        ['  scf.if %p {', '    x', '  } else {', '    y', '  }']
        """
        if opener is not None:
            self.line(opener)
        self.depth += 1
        try:
            yield
        finally:
            self.depth -= 1
            self.line(closer)

    def index(self, value: int) -> str:
        """``%c<value>``, an ``index`` constant defined at the top of the function."""
        name = f"%c{value}" if value >= 0 else f"%c_minus{-value}"
        self.constants.setdefault(name, f"{name} = arith.constant {value} : index")
        return name

    def constant(self, name: str, definition: str) -> str:
        """A constant of any type, ``%name = <definition>``, defined once at the top."""
        self.constants.setdefault(f"%{name}", f"%{name} = {definition}")
        return f"%{name}"

    def text(self) -> str:
        """The whole function: signature, constants, body, closing brace."""
        constants = ["  " + line for line in self.constants.values()]
        return "\n".join([self.header, *constants, *self.lines, "}"])

"""``Builtin``: a function of the tile language (``tile.load``, ``tile.dot``, ...).

A builtin is only meaningful inside a kernel, where the generator calls its
``implementation`` with the kernel's ``TileContext`` first. Called from plain Python it
says so, except for the few that also make sense on the host (``tile.cdiv`` on ints).

>>> double = Builtin("double", lambda context, x: x * 2, host=lambda x: x * 2)
>>> double(21)
42
>>> Builtin("program_id", lambda context, axis: None)(0)
Traceback (most recent call last):
...
tinycomp.frontend.tile.values.TileError: tile.program_id can only be used inside a \
@tile.kernel function
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tinycomp.frontend.tile.values import TileError

__all__ = ["Builtin"]


@dataclass(frozen=True)
class Builtin:
    """One function of the tile language."""

    name: str
    """Its name in the language (``"load"``)."""
    implementation: Callable
    """``implementation(context, *args, **kwargs)``: builds the ops, returns the value."""
    host: Callable | None = None
    """What a call outside a kernel does (``None``: an error)."""

    def __call__(self, *args: object, **kwargs: object) -> object:
        if self.host is None:
            raise TileError(f"tile.{self.name} can only be used inside a @tile.kernel function")
        return self.host(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<tile builtin {self.name}>"

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.implementation.__doc__

"""How terminators steer the interpreter: ``Branch`` to another block, or ``Exit`` the
region.

A rule normally returns the values of its op's results. The rule of a terminator
returns one of these instead, and ``Interpreter.run_region`` acts on it:

* ``Branch(dest, arguments)`` (``cf.br``, ``cf.cond_br``): run block ``dest`` next, its
  arguments bound to ``arguments``;
* ``Exit(values)`` (``func.return``, ``scf.yield``, ``linalg.yield``...): leave the region;
  ``values`` go to the op that ran it (a call returns them, a loop carries them on).

>>> Exit([1, 2]).values
[1, 2]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tinycomp.ir.block import Block


@dataclass
class Branch:
    """What ``cf.br``/``cf.cond_br`` rules return: jump to ``dest`` with ``arguments``."""

    dest: Block
    """The block to run next (in the same region)."""
    arguments: list[Any]
    """Values for ``dest``'s block arguments."""


@dataclass
class Exit:
    """What return-like terminators' rules return: leave the region with ``values``."""

    values: list[Any]
    """The terminator's operand values, handed to the op that owns the region."""


__all__ = ["Branch", "Exit"]

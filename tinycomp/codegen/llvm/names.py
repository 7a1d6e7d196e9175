"""Local names in an LLVM function: ``%in``, ``%in.1``, ``%for.body.2``.

LLVM IR is in SSA form like tinycomp's IR, and its local names (``%x``) are as free:
any name made of letters, digits and ``$._-``, defined once per function. Values and
block labels share one namespace. LLVM would also accept unnamed values (``%0``,
``%1``...), but those must be numbered in order of definition, which an emitter that
writes a loop's header before its body cannot promise; so tinycomp names everything,
reusing the names of the tinycomp IR where it has them (``%d0``, ``%in``, ``%cst``).
A name already taken gets the next free ``.N`` suffix.

>>> names = NameTable()
>>> names.fresh("in"), names.fresh("in"), names.fresh("for.body"), names.fresh("a b")
('in', 'in.1', 'for.body', 'a_b')
"""

from __future__ import annotations

import re

__all__ = ["NameTable", "sanitize"]

_INVALID = re.compile(r"[^-a-zA-Z$._0-9]")


def sanitize(hint: str) -> str:
    """``hint`` with characters LLVM does not allow in a name replaced by ``_``; a name
    may not start with a digit (``%0`` is an unnamed value), so those get a ``v``.

    >>> sanitize("d0_6"), sanitize("0"), sanitize("")
    ('d0_6', 'v0', 'v')
    """
    name = _INVALID.sub("_", hint) or "v"
    return f"v{name}" if name[0].isdigit() else name


class NameTable:
    """The local names of one function; ``fresh`` hands out unused ones.

    >>> names = NameTable()
    >>> names.fresh("x"), names.fresh("x.1"), names.fresh("x")
    ('x', 'x.1', 'x.2')
    """

    def __init__(self) -> None:
        self._used: set[str] = set()
        self._next_suffix: dict[str, int] = {}

    def fresh(self, hint: str) -> str:
        """An unused name like ``hint`` (without the ``%``), now taken."""
        base = sanitize(hint)
        name = base
        suffix = self._next_suffix.get(base, 1)
        while name in self._used:
            name = f"{base}.{suffix}"
            suffix += 1
        self._next_suffix[base] = suffix
        self._used.add(name)
        return name

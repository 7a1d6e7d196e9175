"""The op registry: which Python class implements which op name.

The parser reads an op name and asks ``lookup_op_class`` for its class; the printer
asks the op itself. A dialect module (``dialects/arith/__init__.py``) lists its op
classes in a ``Dialect`` and calls ``register_dialect`` once, at import time. Names no
dialect registered still parse and print (generically) as plain ``Operation``s, so
tinycomp can carry IR it does not understand, as ``mlir-opt --allow-unregistered-dialect``
does.

>>> from tinycomp.ir import lookup_op_class
>>> lookup_op_class("arith.addf").__name__, lookup_op_class("nope.op")
('AddFOp', None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tinycomp.ir.operation import Operation

_OP_CLASSES: dict[str, type[Operation]] = {}
_DIALECTS: dict[str, Dialect] = {}


@dataclass(frozen=True)
class Dialect:
    """A named group of op classes (``arith``, ``func``...)."""

    name: str
    """The prefix of every op name in the dialect."""
    ops: tuple[type[Operation], ...]
    """The op classes."""

    def __init__(self, name: str, ops: Sequence[type[Operation]]) -> None:
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "ops", tuple(ops))


def register_dialect(dialect: Dialect) -> None:
    """Make the parser build ``dialect``'s classes for their op names.

    Registering the same dialect object again is harmless; two classes for one name
    is an error.
    """
    for op_class in dialect.ops:
        if not op_class.name.startswith(dialect.name + "."):
            raise ValueError(f"op '{op_class.name}' does not belong to dialect '{dialect.name}'")
        existing = _OP_CLASSES.get(op_class.name)
        if existing is not None and existing is not op_class:
            raise ValueError(f"op '{op_class.name}' is already registered by {existing}")
        _OP_CLASSES[op_class.name] = op_class
    _DIALECTS[dialect.name] = dialect


def lookup_op_class(name: str) -> type[Operation] | None:
    """The class registered for op ``name``, or ``None``."""
    return _OP_CLASSES.get(name)


def registered_op_classes() -> list[type[Operation]]:
    """Every registered op class, in the order the dialects registered them.

    >>> "arith.addf" in [op_class.name for op_class in registered_op_classes()]
    True
    """
    return list(_OP_CLASSES.values())


def registered_dialects() -> dict[str, Dialect]:
    """All registered dialects by name (a copy)."""
    return dict(_DIALECTS)

"""Symbols: ops that other ops refer to by name (``func.func @f`` is called by ``@f``).

A *symbol* is an op with a ``sym_name`` string attribute. A *symbol table* is an op
(``module``) whose body holds symbols with unique names. References are
``SymbolRefAttr``s resolved in the nearest enclosing symbol table: the ``@f`` of a
``func.call`` is looked up in the module around the call.

>>> from tinycomp.ir import parse
>>> m = parse("func.func private @f(f32) -> f32")
>>> SymbolTable(m).lookup("f").name
'func.func'
"""

from __future__ import annotations

from tinycomp.ir.attributes import StringAttr
from tinycomp.ir.operation import Operation


def symbol_name(op: Operation) -> str | None:
    """The op's ``sym_name``, or ``None`` if it is not a symbol."""
    attr = op.attributes.get("sym_name")
    return attr.value if isinstance(attr, StringAttr) else None


class SymbolTable:
    """The symbols directly inside a symbol-table op, by name."""

    def __init__(self, table_op: Operation) -> None:
        self.op = table_op
        """The symbol-table op (a module)."""
        self._symbols: dict[str, Operation] = {}
        for region in table_op.regions:
            for block in region.blocks:
                for op in block:
                    name = symbol_name(op)
                    if name is not None:
                        self._symbols.setdefault(name, op)

    def lookup(self, name: str) -> Operation | None:
        """The symbol called ``name`` (the first one, if defined twice)."""
        return self._symbols.get(name)

    def __contains__(self, name: str) -> bool:
        return name in self._symbols


def nearest_symbol_table(op: Operation) -> Operation | None:
    """The closest ancestor of ``op`` (not ``op`` itself) that is a symbol table."""
    current = op.parent_op()
    while current is not None and not current.is_symbol_table:
        current = current.parent_op()
    return current


def lookup_symbol(from_op: Operation, name: str) -> Operation | None:
    """Resolve ``@name`` as seen from ``from_op``.

    Builds the table each time (cost: the size of the module body); passes that look up
    many symbols should keep a ``SymbolTable``.
    """
    table_op = nearest_symbol_table(from_op)
    return SymbolTable(table_op).lookup(name) if table_op is not None else None

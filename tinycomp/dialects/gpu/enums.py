"""gpu: the enum attributes of the gpu and nvvm dialects, kept as MLIR spells them.

MLIR writes a dialect enum as ``#gpu<dim x>``, ``#gpu<shuffle_mode xor>``,
``#gpu<all_reduce_op add>`` or ``#nvvm<redux_kind fmax>`` in the generic form and as the
bare keyword (``x``, ``xor``...) in the custom form. tinycomp keeps them as
``OpaqueAttr`` text; these helpers build one and read the keyword back.

>>> attr = enum_attr("gpu", "dim", "y")
>>> print(attr), enum_value(attr, "gpu", "dim")
#gpu<dim y>
(None, 'y')
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.attributes import Attribute, OpaqueAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser

__all__ = ["check_enum", "enum_attr", "enum_value", "parse_enum_keyword"]


def enum_attr(dialect: str, mnemonic: str, value: str) -> OpaqueAttr:
    """The attribute ``#dialect<mnemonic value>``.

    >>> print(enum_attr("gpu", "shuffle_mode", "xor"))
    #gpu<shuffle_mode xor>
    """
    return OpaqueAttr(f"#{dialect}<{mnemonic} {value}>")


def enum_value(attr: Attribute | None, dialect: str, mnemonic: str) -> str | None:
    """The keyword inside ``#dialect<mnemonic keyword>``, or ``None`` for anything else.

    >>> enum_value(enum_attr("nvvm", "redux_kind", "add"), "nvvm", "redux_kind")
    'add'
    >>> enum_value(enum_attr("gpu", "dim", "x"), "nvvm", "redux_kind") is None
    True
    """
    if not isinstance(attr, OpaqueAttr):
        return None
    head = f"#{dialect}<{mnemonic} "
    if attr.text.startswith(head) and attr.text.endswith(">"):
        return attr.text[len(head) : -1].strip()
    return None


def check_enum(op: Operation, key: str, dialect: str, mnemonic: str, allowed: Sequence[str]) -> str:
    """Raise unless ``op``'s attribute ``key`` is ``#dialect<mnemonic v>`` with ``v`` in
    ``allowed``; return ``v``. The message names the op, the attribute and the choices.

    >>> from tinycomp.ir import Operation
    >>> op = Operation.create("t.op", attributes={"dimension": enum_attr("gpu", "dim", "w")})
    >>> try:
    ...     check_enum(op, "dimension", "gpu", "dim", ("x", "y", "z"))
    ... except Exception as error:
    ...     print(str(error).splitlines()[0])
    't.op': expected 'dimension' to be one of x, y, z, got #gpu<dim w>
    """
    attr = op.attributes.get(key)
    value = enum_value(attr, dialect, mnemonic)
    if value not in allowed:
        choices = ", ".join(allowed)
        raise op.error(f"expected '{key}' to be one of {choices}, got {attr}")
    return value


def parse_enum_keyword(parser: Parser, what: str, allowed: Sequence[str]) -> str:
    """Read one of the keywords ``allowed`` (``x``, ``xor``...), or fail naming them."""
    token = parser.token
    word = parser.parse_identifier(what)
    if word not in allowed:
        raise parser.error(f"expected {what} ({', '.join(allowed)}), got '{word}'", token)
    return word

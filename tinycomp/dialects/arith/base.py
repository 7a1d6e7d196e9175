"""Shared pieces of the arith dialect: type classes and the optional op flags.

Arith ops work elementwise: ``arith.addf`` accepts ``f32``, ``vector<4xf32>`` or
``tensor<?xf32>``, as long as operands and result agree. "Float-like" means a float or
a vector/tensor of floats; "integer-like" an integer or index, or a vector/tensor of
them.

Two kinds of flags refine some ops; they are attributes whose absence means ``none``:

* ``fastmath`` (float ops): ``arith.addf %a, %b fastmath<nnan,contract> : f32``, stored
  as ``fastmath = #arith.fastmath<nnan,contract>``;
* ``overflowFlags`` (addi, subi, muli, shli): ``arith.addi %a, %b overflow<nsw> : i32``,
  stored as ``overflowFlags = #arith.overflow<nsw>``.

>>> from tinycomp.ir.types import VectorType, f32
>>> is_float_like(VectorType((4,), f32))
True
>>> print(bool_like(VectorType((4,), f32)))
vector<4xi1>
"""

from __future__ import annotations

from tinycomp.ir.attributes import Attribute, OpaqueAttr
from tinycomp.ir.operation import Operation
from tinycomp.ir.parser import Parser
from tinycomp.ir.printer import Printer
from tinycomp.ir.type_helpers import element_type, with_element_type
from tinycomp.ir.types import FloatType, IndexType, IntegerType, ShapedType, Type, i1

FASTMATH = "fastmath"
"""Attribute name of the fast-math flags."""
OVERFLOW = "overflowFlags"
"""Attribute name of the integer overflow flags."""
_KEYWORDS = {FASTMATH: "fastmath", OVERFLOW: "overflow"}
_FLAG_ORDER = {
    FASTMATH: ("reassoc", "nnan", "ninf", "nsz", "arcp", "contract", "afn"),
    OVERFLOW: ("nsw", "nuw"),
}
_SEPARATORS = {FASTMATH: ",", OVERFLOW: ", "}


def normalize_flags(attr_name: str, flags: str) -> str:
    """Spell a flag list as MLIR prints it: canonical order, MLIR's separator, and
    ``fast`` for all fast-math flags. Unknown words are kept as written.

    >>> normalize_flags(FASTMATH, "ninf, nnan"), normalize_flags(OVERFLOW, "nuw,nsw")
    ('nnan,ninf', 'nsw, nuw')
    """
    order = _FLAG_ORDER[attr_name]
    words = {word.strip() for word in flags.split(",")}
    if attr_name == FASTMATH and "fast" in words:
        words = (words - {"fast"}) | set(order)
    if len(words) > 1:
        words.discard("none")
    if not words <= {*order, "none"}:
        return flags
    if attr_name == FASTMATH and words == set(order):
        return "fast"
    return _SEPARATORS[attr_name].join(w for w in ("none", *order) if w in words)


def flag_attr(attr_name: str, flags: str) -> OpaqueAttr:
    """``flag_attr(FASTMATH, "fast")`` -> ``#arith.fastmath<fast>``."""
    return OpaqueAttr(f"#arith.{_KEYWORDS[attr_name]}<{normalize_flags(attr_name, flags)}>")


def none_flag(attr_name: str) -> OpaqueAttr:
    """The default (absent) value of a flag attribute."""
    return flag_attr(attr_name, "none")


def flags_dict(attr_name: str, flags: str | None) -> dict[str, Attribute]:
    """``{attr_name: flag_attr(...)}``, or ``{}`` when ``flags`` is None or "none"."""
    if flags is None or flags == "none":
        return {}
    return {attr_name: flag_attr(attr_name, flags)}


def print_flag(printer: Printer, op: Operation, attr_name: str) -> None:
    """`` fastmath<fast>`` when the op has a non-default flag attribute."""
    attr = op.attributes.get(attr_name)
    if attr is not None and attr != none_flag(attr_name):
        printer.write(" " + str(attr).removeprefix("#arith."))


def parse_optional_flag(parser: Parser, attr_name: str) -> dict[str, Attribute]:
    """Read ``fastmath<...>`` / ``overflow<...>`` if next; returns the attribute dict."""
    keyword = _KEYWORDS[attr_name]
    if not parser.token.is_keyword(keyword):
        return {}
    parser.advance()
    if not parser.token.is_punct("<"):
        raise parser.expected("'<'")
    body, end = parser.scan_balanced(parser.token)
    parser.reset_to(end)
    return {attr_name: flag_attr(attr_name, body)}


def is_float_like(t: Type) -> bool:
    """A float, or a vector/tensor of floats."""
    return isinstance(element_type(t), FloatType)


def is_int_like(t: Type) -> bool:
    """An integer or index, or a vector/tensor of them."""
    return isinstance(element_type(t), (IntegerType, IndexType))


def is_bool_like(t: Type) -> bool:
    """``i1``, or a vector/tensor of ``i1``."""
    return element_type(t) == i1


def bool_like(t: Type) -> Type:
    """The ``i1`` type with the shape of ``t`` (the result type of a comparison)."""
    return with_element_type(t, i1)


def same_shape(a: Type, b: Type) -> bool:
    """True when ``a`` and ``b`` are both scalars, or the same kind of container with the
    same shape (``tensor<4xi32>`` and ``tensor<4xf32>``)."""
    if isinstance(a, ShapedType) or isinstance(b, ShapedType):
        return type(a) is type(b) and a.shape == b.shape
    return True

"""Attributes: compile-time constants attached to operations, printed as MLIR prints them.

An op's ``attributes`` dict maps names to attribute values: the value of a constant,
the predicate of a comparison, the callee of a call. Attributes are frozen and compare
by value. ``str(attr)`` is the MLIR syntax.

>>> from tinycomp.ir.types import f32, i32, index
>>> print(IntegerAttr(4, i32), FloatAttr(1.0, f32), BoolAttr(True), StringAttr("hi"))
4 : i32 1.000000e+00 : f32 true "hi"
>>> print(ArrayAttr([IntegerAttr(1, index), UnitAttr()]))
[1 : index, unit]
>>> print(DictionaryAttr({"b": UnitAttr(), "a": BoolAttr(False)}))
{a = false, b}

Dense arrays and tensors live in ``dense.py``; dialect attributes tinycomp does not model
(``#linalg.iterator_type<parallel>``) are kept verbatim in an ``OpaqueAttr``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tinycomp.ir.float_format import float_to_bits, format_float, round_to_type
from tinycomp.ir.types import DYNAMIC, FloatType, IndexType, IntegerType, Type, f64, i1, i64

_BARE_ID = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")


def quote_string(text: str) -> str:
    """MLIR's string literal (LLVM's ``printEscapedString``): printable ASCII kept, a
    backslash doubled, ``"`` and the rest as ``\\XX``.

    >>> print(quote_string('say "hi"\\n'))
    "say \\22hi\\22\\0A"
    >>> print(quote_string("a\\\\b"))
    "a\\\\b"
    """
    out = []
    for byte in text.encode("utf-8"):
        char = chr(byte)
        if char == "\\":
            out.append("\\\\")
        elif char == '"' or not (32 <= byte < 127):
            out.append("\\" + format(byte, "02X"))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def format_symbol_name(name: str) -> str:
    """``@name``, quoted when ``name`` is not a bare identifier.

    >>> format_symbol_name("main"), format_symbol_name("my kernel")
    ('@main', '@"my kernel"')
    """
    return "@" + (name if _BARE_ID.match(name) else quote_string(name))


def format_attr_name(name: str) -> str:
    """An attribute-dictionary key: bare when possible, quoted otherwise."""
    return name if _BARE_ID.match(name) else quote_string(name)


class Attribute:
    """Base class of all attributes (for ``isinstance`` checks)."""


@dataclass(frozen=True)
class IntegerAttr(Attribute):
    """An integer of an integer or index type: ``4 : i32``.

    Values are stored in the signed range of the type (MLIR prints signless integers as
    signed), so ``IntegerAttr(255, i8).value == -1``. ``i1`` values are ``BoolAttr``.
    """

    value: int
    """The value, normalized to the signed range of ``type``."""
    type: Type = i64
    """An ``IntegerType`` (not ``i1``) or ``index``."""

    def __post_init__(self) -> None:
        if isinstance(self.type, IndexType):
            width = 64
        elif isinstance(self.type, IntegerType) and self.type.width > 1:
            width = self.type.width
        elif self.type == i1:
            raise ValueError("expected a BoolAttr for an i1 value, got IntegerAttr")
        else:
            raise ValueError(f"expected an integer or index type, got {self.type}")
        value = int(self.value)
        if not -(2 ** (width - 1)) <= value < 2**width:
            raise ValueError(f"integer constant {value} is out of range for {self.type}")
        if value >= 2 ** (width - 1):
            value -= 2**width
        object.__setattr__(self, "value", value)

    def __str__(self) -> str:
        return f"{self.value} : {self.type}"


@dataclass(frozen=True)
class BoolAttr(Attribute):
    """``true`` / ``false``: an ``i1`` constant."""

    value: bool
    """The truth value."""

    @property
    def type(self) -> Type:
        """Always ``i1``."""
        return i1

    def __str__(self) -> str:
        return "true" if self.value else "false"


@dataclass(frozen=True, eq=False)
class FloatAttr(Attribute):
    """A float of a float type: ``1.000000e+00 : f32`` (see ``float_format`` for digits).

    The value is rounded to ``type`` on construction; two FloatAttrs are equal when their
    bit patterns are (so ``-0.0 != 0.0`` and a NaN equals itself).

    >>> from tinycomp.ir.types import f32
    >>> FloatAttr(0.1, f32).value
    0.10000000149011612
    """

    value: float
    """The value, exactly representable in ``type``."""
    type: FloatType = f64
    """The float type."""

    def __post_init__(self) -> None:
        if not isinstance(self.type, FloatType):
            raise ValueError(f"expected a float type, got {self.type}")
        object.__setattr__(self, "value", round_to_type(float(self.value), self.type.name))

    def bits(self) -> int:
        """The IEEE bit pattern of the value."""
        return float_to_bits(self.value, self.type.name)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, FloatAttr) and self.type == other.type and self.bits() == other.bits()
        )

    def __hash__(self) -> int:
        return hash((self.type, self.bits()))

    def __str__(self) -> str:
        return f"{format_float(self.value, self.type.name)} : {self.type}"


@dataclass(frozen=True)
class StringAttr(Attribute):
    """A string: ``"hello"``."""

    value: str
    """The text (any Unicode; printed UTF-8 with escapes)."""

    def __str__(self) -> str:
        return quote_string(self.value)


@dataclass(frozen=True)
class UnitAttr(Attribute):
    """The presence-only attribute: ``{inbounds}`` in a dict, ``unit`` elsewhere."""

    def __str__(self) -> str:
        return "unit"


@dataclass(frozen=True)
class TypeAttr(Attribute):
    """A type used as a value, e.g. ``function_type = (f32) -> f32``."""

    type: Type
    """The type."""

    def __str__(self) -> str:
        return str(self.type)


@dataclass(frozen=True)
class SymbolRefAttr(Attribute):
    """A reference to a symbol (a function name): ``@callee`` or ``@module::@f``."""

    root: str
    """The first symbol name, without ``@``."""
    nested: tuple[str, ...] = ()
    """Names nested inside ``root``'s symbol table."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "nested", tuple(self.nested))

    def __str__(self) -> str:
        return "::".join(format_symbol_name(n) for n in (self.root, *self.nested))


@dataclass(frozen=True)
class ArrayAttr(Attribute):
    """A list of attributes: ``[1 : i32, "x", 2]`` (``i64`` and ``f64`` elements are
    printed without their type, as MLIR does)."""

    elements: tuple[Attribute, ...]
    """The elements, in order."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "elements", tuple(self.elements))

    def __len__(self) -> int:
        return len(self.elements)

    def __iter__(self) -> Iterator[Attribute]:
        return iter(self.elements)

    def __getitem__(self, position: int) -> Attribute:
        return self.elements[position]

    def __str__(self) -> str:
        return "[" + ", ".join(_format_array_element(e) for e in self.elements) + "]"


def _format_array_element(attr: Attribute) -> str:
    """Inside ``[...]`` MLIR leaves out the default types: ``[1, 2.5]`` is ``i64``/``f64``."""
    if isinstance(attr, IntegerAttr) and attr.type == i64:
        return str(attr.value)
    if isinstance(attr, FloatAttr) and attr.type == f64:
        text = format_float(attr.value, "f64")
        if not text.startswith("0x"):  # a hex pattern alone would read back as an integer
            return text
    return str(attr)


@dataclass(frozen=True)
class DictionaryAttr(Attribute):
    """A name -> attribute map, kept sorted by name as MLIR does: ``{a = 1 : i32, b}``."""

    entries: tuple[tuple[str, Attribute], ...]
    """``(name, attribute)`` pairs, sorted by name (a dict is accepted too)."""

    def __init__(self, entries: Mapping[str, Attribute] | Sequence[tuple[str, Attribute]]):
        pairs = entries.items() if isinstance(entries, Mapping) else entries
        object.__setattr__(self, "entries", tuple(sorted(pairs, key=lambda kv: kv[0])))

    def __getitem__(self, name: str) -> Attribute:
        return dict(self.entries)[name]

    def get(self, name: str, default: Any = None) -> Any:
        """The attribute called ``name``, or ``default``."""
        return dict(self.entries).get(name, default)

    def to_dict(self) -> dict[str, Attribute]:
        """The entries as a plain dict."""
        return dict(self.entries)

    def __str__(self) -> str:
        return format_attr_dict(dict(self.entries))


def format_attr_dict(attributes: Mapping[str, Attribute]) -> str:
    """``{a = 1 : i32, b}``: sorted by name, unit attributes as a bare name.

    >>> from tinycomp.ir.types import i32
    >>> format_attr_dict({"z": UnitAttr(), "a": IntegerAttr(1, i32)})
    '{a = 1 : i32, z}'
    """
    parts = []
    for name in sorted(attributes):
        value = attributes[name]
        key = format_attr_name(name)
        parts.append(key if isinstance(value, UnitAttr) else f"{key} = {value}")
    return "{" + ", ".join(parts) + "}"


@dataclass(frozen=True)
class StridedLayoutAttr(Attribute):
    """A memref layout ``strided<[8, 1], offset: 4>``: element (i, j) lives at
    ``offset + i * 8 + j * 1``. ``DYNAMIC`` (``None``) prints as ``?``; offset 0 is elided.

    >>> print(StridedLayoutAttr((8, 1)), StridedLayoutAttr((DYNAMIC, 1), DYNAMIC))
    strided<[8, 1]> strided<[?, 1], offset: ?>
    """

    strides: tuple[int | None, ...]
    """One stride per dimension, in elements."""
    offset: int | None = 0
    """Offset of element (0, ..., 0) from the base, in elements."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "strides", tuple(self.strides))

    def __str__(self) -> str:
        strides = ", ".join("?" if s is DYNAMIC else str(s) for s in self.strides)
        if self.offset == 0:
            return f"strided<[{strides}]>"
        offset = "?" if self.offset is DYNAMIC else str(self.offset)
        return f"strided<[{strides}], offset: {offset}>"


@dataclass(frozen=True)
class AffineMapAttr(Attribute):
    """An affine map used as an attribute: ``affine_map<(d0, d1) -> (d1, d0)>``.

    ``map`` is a ``tinycomp.affine.AffineMap``, whose ``str`` is the text inside ``<>``.
    """

    map: Any
    """The ``tinycomp.affine.AffineMap``."""

    def is_identity(self) -> bool:
        """True for ``(d0, ..., dn) -> (d0, ..., dn)`` with no symbols."""
        from tinycomp.affine import AffineDimExpr

        results = tuple(self.map.results)
        return (
            self.map.num_symbols == 0
            and len(results) == self.map.num_dims
            and all(isinstance(r, AffineDimExpr) and r.position == i for i, r in enumerate(results))
        )

    def __str__(self) -> str:
        return f"affine_map<{self.map}>"


@dataclass(frozen=True)
class IntegerSetAttr(Attribute):
    """An integer set used as an attribute: ``affine_set<(d0) : (d0 - 10 >= 0)>``."""

    set: Any
    """The ``tinycomp.affine.IntegerSet``."""

    def __str__(self) -> str:
        return f"affine_set<{self.set}>"


@dataclass(frozen=True)
class OpaqueAttr(Attribute):
    """A dialect attribute kept verbatim: ``#gpu.address_space<workgroup>``.

    >>> print(OpaqueAttr("#linalg.iterator_type<parallel>"))
    #linalg.iterator_type<parallel>
    """

    text: str
    """The full spelling, starting with ``#``."""

    def __str__(self) -> str:
        return self.text

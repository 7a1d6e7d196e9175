"""Parsing attributes and locations.

The attribute grammar, by first token:

======================  ==========================================================
``42``, ``-1``, ``0x..`` integer (``: type`` optional, default ``i64``; a hex literal
                        with a float type is the float's bit pattern)
``1.5``                 float (``: type`` optional, default ``f64``)
``true`` ``false``      ``BoolAttr``;  ``unit``: ``UnitAttr``
``"text"``              ``StringAttr``
``[`` / ``{``           ``ArrayAttr`` / ``DictionaryAttr``
``@f``, ``@m::@f``      ``SymbolRefAttr``
``dense<`` ``array<``   dense elements / dense array (``dense.py``)
``affine_map<``         affine map; the body contains ``->``, so its end is found by
``affine_set<``         bracket counting and the body goes to ``tinycomp.affine``
``strided<``            ``StridedLayoutAttr``
``#name``               an alias defined at the top, or a dialect attribute kept as
                        ``OpaqueAttr`` (``#gpu.address_space<workgroup>``)
a type                  ``TypeAttr``
======================  ==========================================================
"""

from __future__ import annotations

import re

import numpy as np

from tinycomp.ir.attributes import (
    AffineMapAttr,
    ArrayAttr,
    Attribute,
    BoolAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    IntegerSetAttr,
    OpaqueAttr,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
)
from tinycomp.ir.dense import DenseArrayAttr, DenseElementsAttr
from tinycomp.ir.float_format import bits_to_float
from tinycomp.ir.lexer import Token, decode_string
from tinycomp.ir.location import Location
from tinycomp.ir.parse_types import TypeParser
from tinycomp.ir.type_helpers import to_numpy_dtype
from tinycomp.ir.types import (
    DYNAMIC,
    FloatType,
    IntegerType,
    RankedTensorType,
    Type,
    VectorType,
    f64,
    i1,
    i64,
)

_FILE_LINE_COL = re.compile(r'\s*("(?:[^"\\\n]|\\.)*")\s*:\s*([0-9]+)\s*:\s*([0-9]+)\s*\Z')


class AttributeParser(TypeParser):
    """Adds the attribute and location grammar to ``TypeParser``."""

    def parse_attribute(self) -> Attribute:
        """Parse one attribute (see the table in the module docstring)."""
        with self.nested():
            token = self.token
            try:
                return self._parse_attribute(token)
            except (ValueError, OverflowError, TypeError) as exc:  # rejected by a constructor
                raise self.error(str(exc), token) from None

    def _parse_attribute(self, token: Token) -> Attribute:
        if token.kind in ("integer", "float") or token.is_punct("-"):
            return self._parse_number()
        if token.kind == "string":
            return StringAttr(decode_string(self.advance().text))
        if token.kind == "at_id":
            return self._parse_symbol_ref()
        if token.kind == "hash_id":
            return self._parse_hash_attribute()
        if token.is_punct("["):
            self.advance()
            elements = self.parse_comma_separated(self.parse_attribute, "]")
            self.parse_punct("]")
            return ArrayAttr(elements)
        if token.is_punct("{"):
            return DictionaryAttr(self.parse_attr_dict())
        if token.kind == "bare_id":
            keyword = token.text
            if keyword in ("true", "false"):
                self.advance()
                return BoolAttr(keyword == "true")
            if keyword == "unit":
                self.advance()
                return UnitAttr()
            if keyword == "dense":
                return self._parse_dense()
            if keyword == "array":
                return self._parse_dense_array()
            if keyword in ("affine_map", "affine_set"):
                return self._parse_affine(keyword)
            if keyword == "strided":
                return self._parse_strided()
            if keyword == "loc":  # a location used as an attribute: kept verbatim
                self.advance()
                if not self.token.is_punct("("):
                    raise self.expected("'('")
                body, end = self.scan_balanced(self.token)
                self.reset_to(end)
                return OpaqueAttr(f"loc({body})")
        if self.at_type():
            return TypeAttr(self.parse_type())
        raise self.expected("an attribute")

    def _parse_number(self) -> Attribute:
        negative = self.parse_optional_punct("-")
        token = self.token
        if token.kind not in ("integer", "float"):
            raise self.expected("a number")
        self.advance()
        attr_type = self.parse_type() if self.parse_optional_punct(":") else None
        if token.kind == "float":
            value = -float(token.text) if negative else float(token.text)
            if attr_type is None:
                attr_type = f64
            if not isinstance(attr_type, FloatType):
                raise self.error(f"expected a float type for {token.text}, got {attr_type}")
            return FloatAttr(value, attr_type)
        number = int(token.text, 0)
        if isinstance(attr_type, FloatType):
            if not token.text.startswith("0x") or negative:
                raise self.error("expected a float literal (add a '.') or a hex bit pattern", token)
            if number >= 1 << attr_type.width:
                raise self.error(f"hex float literal does not fit in {attr_type}", token)
            return FloatAttr(bits_to_float(number, attr_type.name), attr_type)
        number = -number if negative else number
        if attr_type == i1:
            if number not in (0, 1, -1):
                raise self.error(f"integer constant {number} is out of range for i1", token)
            return BoolAttr(number != 0)
        return IntegerAttr(number, attr_type or i64)

    def _parse_symbol_ref(self) -> SymbolRefAttr:
        names = [self.parse_symbol_name()]
        while self.parse_optional_punct("::"):
            names.append(self.parse_symbol_name())
        return SymbolRefAttr(names[0], names[1:])

    def parse_symbol_name(self) -> str:
        """``@name`` or ``@"quoted name"``; returns the name without ``@``."""
        if self.token.kind != "at_id":
            raise self.expected("a symbol name like '@f'")
        text = self.advance().text[1:]
        return decode_string(text) if text.startswith('"') else text

    def _parse_hash_attribute(self) -> Attribute:
        token = self.advance()
        name = token.text[1:]
        if name in self.attr_aliases:
            return self.attr_aliases[name]
        glued = self.token.is_punct("<") and self.token.pos == token.pos + len(token.text)
        if "." not in name and not glued:
            raise self.error(f"undefined attribute alias '{token.text}'", token)
        text = token.text
        if glued:
            body, end = self.scan_balanced(self.token)
            text += f"<{body}>"
            self.reset_to(end)
        return OpaqueAttr(text)

    def parse_attr_dict(self) -> dict[str, Attribute]:
        """``{name = attr, unit_name, "quoted" = attr}``."""
        self.parse_punct("{")
        entries: dict[str, Attribute] = {}

        def parse_entry() -> None:
            token = self.token
            if token.kind == "bare_id":
                name = token.text
            elif token.kind == "string":
                name = decode_string(token.text)
            else:
                raise self.expected("an attribute name")
            self.advance()
            if name in entries:
                raise self.error(f"duplicate attribute '{name}'", token)
            entries[name] = self.parse_attribute() if self.parse_optional_punct("=") else UnitAttr()

        self.parse_comma_separated(parse_entry, "}")
        self.parse_punct("}")
        return entries

    def parse_optional_attr_dict(self) -> dict[str, Attribute]:
        """An attribute dictionary if one is next, else ``{}``."""
        return self.parse_attr_dict() if self.token.is_punct("{") else {}

    def parse_optional_attr_dict_with_keyword(self) -> dict[str, Attribute]:
        """``attributes {...}`` if next, else ``{}``."""
        if self.parse_optional_keyword("attributes"):
            return self.parse_attr_dict()
        return {}

    # -- dense data ----------------------------------------------------------------------
    def _parse_dense(self) -> DenseElementsAttr:
        self.advance()
        self.parse_punct("<")
        if self.token.kind == "string":
            literal: object = self.advance()
        elif self.token.is_punct(">"):
            literal = []
        else:
            literal = self._parse_dense_literal()
        self.parse_punct(">")
        type_token = self.token
        attr_type = self.parse_colon_type()
        if not isinstance(attr_type, (RankedTensorType, VectorType)):
            raise self.error(f"expected a tensor or vector type, got {attr_type}", type_token)
        if isinstance(literal, Token):
            return self._dense_from_hex(literal, attr_type)
        shape, flat = self._flatten_literal(literal, type_token)
        if shape != attr_type.shape and len(flat) != 1:
            raise self.error(
                f"expected dense data of shape {attr_type.shape}, got {shape}", type_token
            )
        self._check_elements(flat, attr_type.element_type, type_token)
        array = np.array(flat, dtype=object).reshape(shape if len(flat) != 1 else ())
        if isinstance(attr_type.element_type, FloatType):
            array = array.astype(np.float64)
        return DenseElementsAttr(attr_type, array)

    def _flatten_literal(self, literal: object, token: Token) -> tuple[tuple[int, ...], list]:
        """The shape of a nested list literal and its elements in order."""
        if not isinstance(literal, list):
            return (), [literal]
        parts = [self._flatten_literal(item, token) for item in literal]
        inner_shapes = {shape for shape, _ in parts}
        if len(inner_shapes) > 1:
            raise self.error("expected dense data with sublists of equal shape", token)
        inner = inner_shapes.pop() if inner_shapes else ()
        return (len(literal), *inner), [x for _, flat in parts for x in flat]

    def _check_elements(self, values: list, element_type: Type, token: Token) -> None:
        """Every literal must fit the element type: a float only for float types, an
        integer within the width for integer types."""
        if isinstance(element_type, FloatType):
            return
        width = element_type.width if isinstance(element_type, IntegerType) else 64
        for value in values:
            if isinstance(value, float):
                raise self.error(
                    f"expected integer elements for {element_type}, got {value}", token
                )
            if not isinstance(value, bool) and not -(2 ** (width - 1)) <= value < 2**width:
                raise self.error(f"integer {value} is out of range for {element_type}", token)

    def _parse_dense_literal(self) -> object:
        """A number, ``true``/``false``, or a nested list of them."""
        with self.nested():
            if self.parse_optional_punct("["):
                items = self.parse_comma_separated(self._parse_dense_literal, "]")
                self.parse_punct("]")
                return items
            if self.token.kind == "bare_id" and self.token.text in ("true", "false"):
                return self.advance().text == "true"
            negative = self.parse_optional_punct("-")
            token = self.token
            if token.kind == "float":
                value: float | int = float(self.advance().text)
            elif token.kind == "integer":
                value = int(self.advance().text, 0)
            else:
                raise self.expected("a number, 'true', 'false' or '['")
            return -value if negative else value

    def _dense_from_hex(self, token: Token, attr_type) -> DenseElementsAttr:
        text = decode_string(token.text)
        dtype = to_numpy_dtype(attr_type).newbyteorder("<")
        try:
            raw = bytes.fromhex(text[2:]) if text.startswith("0x") else b""
        except ValueError:
            raw = b""
        if dtype == np.bool_:  # i1 data is packed 8 elements per byte
            total = attr_type.num_elements
            if len(raw) == 1 and total > 8:
                return DenseElementsAttr(attr_type, raw[0] != 0)
            if raw and len(raw) == (total + 7) // 8:
                bits = np.unpackbits(np.frombuffer(raw, np.uint8), bitorder="little")
                return DenseElementsAttr(
                    attr_type, bits[:total].astype(bool).reshape(attr_type.shape)
                )
            raise self.error("expected hex data ('0x...') with one bit per i1 element", token)
        count = len(raw) // dtype.itemsize if dtype.itemsize else 0
        if not raw or len(raw) % dtype.itemsize or count not in (1, attr_type.num_elements):
            raise self.error("expected hex data ('0x...') of one element or the whole type", token)
        values = np.frombuffer(raw, dtype=dtype)
        return DenseElementsAttr(attr_type, values.reshape(() if count == 1 else attr_type.shape))

    def _parse_dense_array(self) -> DenseArrayAttr:
        self.advance()
        self.parse_punct("<")
        type_token = self.token
        element_type = self.parse_type()
        values: list[object] = []
        if self.parse_optional_punct(":"):
            values = self.parse_comma_separated(self._parse_dense_literal, ">")
        self.parse_punct(">")
        if any(isinstance(v, list) for v in values):
            raise self.error("expected a flat list of numbers in array<...>", type_token)
        if element_type == i1 and not all(isinstance(v, bool) for v in values):
            raise self.error("expected 'true' or 'false' elements for i1", type_token)
        if element_type != i1:
            self._check_elements(values, element_type, type_token)
            if isinstance(element_type, FloatType) and any(isinstance(v, bool) for v in values):
                raise self.error(f"expected numbers for {element_type}", type_token)
        return DenseArrayAttr(element_type, values)

    # -- layouts and affine structures ---------------------------------------------------
    def _parse_strided(self) -> StridedLayoutAttr:
        self.advance()
        self.parse_punct("<")
        self.parse_punct("[")
        strides = self.parse_comma_separated(self._parse_static_or_dynamic, "]")
        self.parse_punct("]")
        offset: int | None = 0
        if self.parse_optional_punct(","):
            self.parse_keyword("offset")
            self.parse_punct(":")
            offset = self._parse_static_or_dynamic()
        self.parse_punct(">")
        return StridedLayoutAttr(strides, offset)

    def _parse_static_or_dynamic(self) -> int | None:
        if self.parse_optional_punct("?"):
            return DYNAMIC
        return self.parse_integer("an integer or '?'")

    def _parse_affine(self, keyword: str) -> Attribute:
        from tinycomp.affine import parse_affine_map, parse_integer_set

        self.advance()
        if not self.token.is_punct("<"):
            raise self.expected("'<'")
        open_token = self.token
        body, end = self.scan_balanced(open_token)
        try:
            if keyword == "affine_map":
                attr: Attribute = AffineMapAttr(parse_affine_map(body))
            else:
                attr = IntegerSetAttr(parse_integer_set(body))
        except Exception as exc:  # the affine parser's own error, whatever its class
            raise self.error(f"invalid {keyword}: {exc}", open_token) from None
        self.reset_to(end)
        return attr

    def parse_memref_attribute(self) -> Attribute:
        """A memref layout or memory space; a bare integer is an ``i64`` memory space."""
        return self.parse_attribute()

    def is_layout(self, attr: Attribute) -> bool:
        """True for the two layout kinds a memref may have."""
        return isinstance(attr, (StridedLayoutAttr, AffineMapAttr))

    # -- locations ---------------------------------------------------------------------------
    def parse_optional_location(self) -> Location | str | None:
        """``loc(...)`` if next. Returns a ``Location``, ``None`` for a kind tinycomp does
        not keep (``unknown``, fused, call sites), or the name of a ``#loc`` alias that
        may be defined further down (resolved at the end of the parse). No ``loc`` at
        all returns ``""``."""
        if not self.token.is_keyword("loc"):
            return ""
        self.advance()
        if not self.token.is_punct("("):
            raise self.expected("'('")
        body, end = self.scan_balanced(self.token)
        self.reset_to(end)
        match = _FILE_LINE_COL.match(body)
        if match:
            return Location(decode_string(match.group(1)), int(match.group(2)), int(match.group(3)))
        if body.strip().startswith("#"):
            return body.strip()[1:]
        return None

"""Parsing types: ``f32``, ``tensor<4x?xf32>``, ``memref<8xf32, strided<[1]>, 1>``,
``(i32, f32) -> f32``, ``!alias`` and dialect types such as ``!llvm.ptr``.

Shapes need care: ``4x8xf32`` is not three tokens to MLIR's lexer (it reads ``4`` and
then the identifier ``x8xf32``), so ``parse_dimension_list`` reads the ``4x8x`` prefix
straight from the source text and restarts the lexer at ``f32``, as MLIR's parser does.
"""

from __future__ import annotations

import re

from tinycomp.ir.parser_base import ParserBase
from tinycomp.ir.types import (
    DYNAMIC,
    FLOAT_WIDTHS,
    FloatType,
    FunctionType,
    IntegerType,
    MemRefType,
    NoneType,
    OpaqueType,
    RankedTensorType,
    Shape,
    Type,
    VectorType,
    index,
)

_DIMENSIONS = re.compile(r"(?:(?:[0-9]+|\?)x)*")
_INTEGER_TYPE = re.compile(r"i([0-9]+)\Z")
TYPE_KEYWORDS = ("index", "none", "vector", "tensor", "memref", *FLOAT_WIDTHS)
"""Bare identifiers that start a type (besides ``iN``)."""


class TypeParser(ParserBase):
    """Adds the type grammar to ``ParserBase``."""

    def at_type(self) -> bool:
        """True if the current token can start a type."""
        token = self.token
        if token.kind == "bare_id":
            return token.text in TYPE_KEYWORDS or bool(_INTEGER_TYPE.match(token.text))
        return token.kind == "exclamation_id" or token.is_punct("(")

    def parse_type(self) -> Type:
        """Parse one type."""
        with self.nested():
            token = self.token
            if token.is_punct("("):
                return self.parse_function_type()
            if token.kind == "exclamation_id":
                return self._parse_dialect_or_alias_type()
            if token.kind != "bare_id":
                raise self.expected("a type")
            keyword = token.text
            match = _INTEGER_TYPE.match(keyword)
            if match:
                self.advance()
                width = int(match.group(1))
                if not 1 <= width <= 1 << 16:
                    raise self.error(f"integer width {width} is out of range", token)
                return IntegerType(width)
            if keyword in FLOAT_WIDTHS:
                self.advance()
                return FloatType(keyword)
            if keyword == "index":
                self.advance()
                return index
            if keyword == "none":
                self.advance()
                return NoneType()
            if keyword in ("vector", "tensor", "memref"):
                return self._parse_shaped_type(keyword)
            raise self.expected("a type")

    def parse_colon_type(self) -> Type:
        """``: type``."""
        self.parse_punct(":")
        return self.parse_type()

    def parse_type_list(self) -> list[Type]:
        """``type (, type)*`` (at least one)."""
        types = [self.parse_type()]
        while self.parse_optional_punct(","):
            types.append(self.parse_type())
        return types

    def parse_function_type(self) -> FunctionType:
        """``(inputs) -> results`` where results is one type or a parenthesized list."""
        self.parse_punct("(")
        inputs = self.parse_comma_separated(self.parse_type, ")")
        self.parse_punct(")")
        self.parse_punct("->")
        return FunctionType(inputs, self.parse_result_types())

    def parse_result_types(self) -> list[Type]:
        """What follows ``->``: ``f32``, ``()`` or ``(f32, i32)``."""
        if self.token.is_punct("("):
            # `(f32) -> f32` as a single result type is written `((f32) -> f32)`.
            self.advance()
            results = self.parse_comma_separated(self.parse_type, ")")
            self.parse_punct(")")
            return results
        return [self.parse_type()]

    def parse_dimension_list(self) -> Shape:
        """The ``4x?x8x`` prefix of a shaped type, read from the raw source."""
        if self.token.is_punct("*"):
            raise self.error("unranked types (`*`) are not supported by tinycomp")
        if self.token.is_punct("["):
            raise self.error("scalable vector dimensions are not supported by tinycomp")
        start = self.token.pos
        match = _DIMENSIONS.match(self.lexer.source, start)
        dims: list[int | None] = []
        for text in match.group().split("x")[:-1]:
            dims.append(DYNAMIC if text == "?" else int(text))
        self.reset_to(match.end())
        return tuple(dims)

    def _parse_shaped_type(self, keyword: str) -> Type:
        keyword_token = self.advance()
        self.parse_punct("<")
        dims = self.parse_dimension_list()
        element = self.parse_type()
        try:
            if keyword == "vector":
                self.parse_punct(">")
                return VectorType(dims, element)
            if keyword == "tensor":
                if self.token.is_punct(","):
                    raise self.error("tensor encodings are not supported by tinycomp")
                self.parse_punct(">")
                return RankedTensorType(dims, element)
            layout = memory_space = None
            while self.parse_optional_punct(","):
                attr_token = self.token
                attr = self.parse_memref_attribute()
                if layout is None and memory_space is None and self.is_layout(attr):
                    layout = attr
                elif memory_space is None and not self.is_layout(attr):
                    memory_space = attr
                else:
                    raise self.error(
                        "expected at most a layout and then a memory space", attr_token
                    )
            self.parse_punct(">")
            return MemRefType(dims, element, layout, memory_space)
        except ValueError as exc:
            raise self.error(str(exc), keyword_token) from None

    def parse_memref_attribute(self):
        """A layout or memory space (implemented by ``AttributeParser``)."""
        raise NotImplementedError

    def is_layout(self, attr) -> bool:
        """Whether ``attr`` is a memref layout (implemented by ``AttributeParser``)."""
        raise NotImplementedError

    def _parse_dialect_or_alias_type(self) -> Type:
        token = self.advance()
        name = token.text[1:]
        if name in self.type_aliases:
            return self.type_aliases[name]
        if "." not in name and not self.token.is_punct("<"):
            raise self.error(f"undefined type alias '{token.text}'", token)
        text = token.text
        if self.token.is_punct("<") and self.token.pos == token.pos + len(token.text):
            body, end = self.scan_balanced(self.token)
            text += f"<{body}>"
            self.reset_to(end)
        return OpaqueType(text)

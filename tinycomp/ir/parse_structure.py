"""Parsing SSA values, blocks and regions: the part of the parser that custom syntax
hooks share with the generic form.

``StructureParser`` adds to ``AttributeParser`` what needs the SSA name scopes
(``ssa_scopes.py``): operands (``%x``, read now and resolved once their type is known),
block arguments, successors (``^bb1(%a : f32)``) and regions. ``Parser``
(``parse_operations.py``) adds operations on top.

>>> from tinycomp.ir.parser import Parser
>>> p = Parser("%a, %b#1 : f32")
>>> [(o.name, o.number) for o in p.parse_operand_list()]
[('%a', 0), ('%b', 1)]
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.block import Block
from tinycomp.ir.lexer import Token
from tinycomp.ir.location import DEFAULT_FILE
from tinycomp.ir.parse_attributes import AttributeParser
from tinycomp.ir.region import Region
from tinycomp.ir.ssa_scopes import UnresolvedOperand, ValueScopes
from tinycomp.ir.types import FunctionType, Type
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.ir.operation import Operation

__all__ = ["Argument", "StructureParser"]

_GENERATED_ARGUMENT_NAME = re.compile(r"[0-9]+|arg[0-9]+")


@dataclass(frozen=True)
class Argument:
    """A block argument declared in custom syntax: ``%x: f32 {attrs}``."""

    name: str
    """The value name, ``%x``."""
    type: Type
    """The declared type."""
    attributes: dict[str, Attribute]
    """Argument attributes (``{}`` when none)."""
    token: Token
    """Where the name was written."""


class StructureParser(AttributeParser):
    """Adds SSA values, blocks and regions to ``AttributeParser``."""

    def __init__(self, source: str, filename: str = DEFAULT_FILE) -> None:
        super().__init__(source, filename)
        self.scopes = ValueScopes(self.lexer)
        """The SSA names and block labels visible at the current point."""

    def parse_operation(self) -> Operation:
        """One operation (``Parser`` implements it; a region's body is a list of them)."""
        raise NotImplementedError

    def parse_value_name(self) -> Token:
        """A ``%name`` being defined (no ``#N``)."""
        token = self.token
        if token.kind != "percent_id" or "#" in token.text:
            raise self.expected("a value name like '%x'")
        return self.advance()

    # -- operands and SSA names ------------------------------------------------------------
    def parse_operand(self) -> UnresolvedOperand:
        """``%x`` or ``%x#1``: a value to read, resolved later with its type."""
        token = self.token
        if token.kind != "percent_id":
            raise self.expected("an SSA value like '%x'")
        self.advance()
        name, _, number = token.text.partition("#")
        return UnresolvedOperand(name, int(number) if number else 0, token)

    def parse_operand_list(self) -> list[UnresolvedOperand]:
        """``%a, %b`` (possibly empty: stops at the first token that is not a value)."""
        if self.token.kind != "percent_id":
            return []
        operands = [self.parse_operand()]
        while self.parse_optional_punct(","):
            operands.append(self.parse_operand())
        return operands

    def resolve_operands(
        self, operands: Sequence[UnresolvedOperand], types: Sequence[Type]
    ) -> list[Value]:
        """``resolve_operand`` for each pair; the counts must match."""
        if len(operands) != len(types):
            token = operands[0].token if operands else self.token
            raise self.error(f"expected {len(operands)} types, got {len(types)}", token)
        return [self.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]

    def resolve_operand(self, operand: UnresolvedOperand, type: Type) -> Value:
        """The value named by ``operand``, which must have type ``type``."""
        return self.scopes.resolve(operand, type)

    # -- regions and blocks ------------------------------------------------------------------
    def parse_region(self, arguments: Sequence[Argument] | None = None) -> Region:
        """``{ ops ^bb1(...): ops ... }``. Custom ops that print the entry block's
        arguments themselves (``func.func``) pass them as ``arguments``."""
        with self.nested():
            self.parse_punct("{")
            self.scopes.push()
            region = Region()
            if arguments is not None and not arguments and self.token.kind == "caret_id":
                arguments = None  # no arguments: the entry block may carry a label
            if arguments is not None:
                entry = region.append_block(Block())
                for argument in arguments:
                    self._define_block_argument(entry, argument.token, argument.type)
                if self.token.kind == "caret_id":
                    raise self.error("invalid block name in a region with named arguments")
                self._parse_block_body(entry)
            elif not self.token.is_punct("}") and self.token.kind != "caret_id":
                self._parse_block_body(region.append_block(Block()))
            while self.token.kind == "caret_id":
                self._parse_block(region)
            self.parse_punct("}")
            self.scopes.pop()
            return region

    def _parse_block(self, region: Region) -> None:
        """``^label(%a: f32, ...):`` followed by the block's ops."""
        block = self.scopes.define_block(self.advance())
        region.append_block(block)
        if self.parse_optional_punct("("):

            def parse_block_argument() -> None:
                argument = self.parse_argument(allow_attributes=False)
                self._define_block_argument(block, argument.token, argument.type)

            self.parse_comma_separated(parse_block_argument, ")")
            self.parse_punct(")")
        self.parse_punct(":")
        self._parse_block_body(block)

    def _define_block_argument(self, block: Block, token: Token, type: Type) -> None:
        argument = block.add_argument(type)
        self.scopes.define(token, (argument,))
        if not _GENERATED_ARGUMENT_NAME.fullmatch(token.text[1:]):  # %0, %arg0: printer-made
            argument.name_hint = token.text[1:]

    def _parse_block_body(self, block: Block) -> None:
        while not (self.token.is_punct("}") or self.token.kind in ("caret_id", "eof")):
            block.append(self.parse_operation())

    def parse_argument(self, allow_attributes: bool = True) -> Argument:
        """``%x: f32``, then ``{attrs}`` if allowed, then an optional ``loc(...)``."""
        token = self.parse_value_name()
        self.parse_punct(":")
        arg_type = self.parse_type()
        attributes = self.parse_optional_attr_dict() if allow_attributes else {}
        self.parse_optional_location()
        return Argument(token.text, arg_type, attributes, token)

    def parse_successor(self) -> Block:
        """``^bb1``: a block of the current region, possibly defined further down."""
        token = self.token
        if token.kind != "caret_id":
            raise self.expected("a block name like '^bb1'")
        self.advance()
        return self.scopes.block(token)

    def parse_successor_and_operands(self) -> tuple[Block, list[Value]]:
        """``^bb1`` or ``^bb1(%a, %b : f32, i32)``."""
        block = self.parse_successor()
        if not self.parse_optional_punct("("):
            return block, []
        operands = self.parse_operand_list()
        self.parse_punct(":")
        types = self.parse_type_list()
        self.parse_punct(")")
        return block, self.resolve_operands(operands, types)

    def parse_function_type_or_error(self) -> FunctionType:
        """A function type, with a clear message when something else is there."""
        if not self.token.is_punct("("):
            raise self.expected("a function type like '(f32) -> f32'")
        return self.parse_function_type()

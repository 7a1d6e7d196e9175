"""SSA names while parsing: which ``%name`` and ``^label`` mean which value and block.

Names are scoped by region, as in MLIR: a region sees the names of the regions around
it, and its own names disappear when it closes (so ``then`` and ``else`` regions may
both define ``%0``). Defining a name that is still visible is an error.

A name may be *used before its definition*: blocks can come in any order, so
``^bb1`` may read a ``%x`` defined in ``^bb2`` further down. Such a use gets a
placeholder value of the type the use expects; the definition replaces it (after
checking that the types agree). A region that closes with uses still waiting hands
them to the enclosing region, where the definition may still come; at the end of the
input, a use still waiting is an "undeclared SSA value". Block labels work the same way,
but must be defined in their own region.

>>> from tinycomp.ir.lexer import Lexer
>>> from tinycomp.ir.types import f32
>>> lexer = Lexer("%x")
>>> token = lexer.next_token()
>>> scopes = ValueScopes(lexer)
>>> scopes.push()
>>> waiting = scopes.resolve(UnresolvedOperand("%x", 0, token), f32)  # used first...
>>> from tinycomp.ir.block import Block
>>> defined = Block([f32]).arguments[0]
>>> scopes.define(token, [defined])                                  # ...defined later
>>> waiting.has_uses, scopes.pop()
(False, None)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from tinycomp.ir.block import Block
from tinycomp.ir.lexer import Lexer, Token
from tinycomp.ir.types import Type
from tinycomp.ir.values import Value


@dataclass(frozen=True)
class UnresolvedOperand:
    """An operand name read by ``Parser.parse_operand``, waiting for its type."""

    name: str
    """The value name, ``%x`` (without ``#N``)."""
    number: int
    """The result number after ``#`` (0 when absent)."""
    token: Token
    """Where it was written, for error messages."""


class ForwardRef(Value):
    """A placeholder for a value used before its definition."""

    def __init__(self, type: Type, token: Token) -> None:
        super().__init__(type)
        self.token = token
        """The first use, for the error when no definition ever comes."""


@dataclass
class _Scope:
    """The names of one region."""

    values: dict[str, tuple[Value, ...]] = field(default_factory=dict)
    pending: dict[str, dict[int, ForwardRef]] = field(default_factory=dict)
    blocks: dict[str, Block] = field(default_factory=dict)
    undefined_blocks: dict[str, Token] = field(default_factory=dict)


class ValueScopes:
    """The stack of region scopes of one parse; errors point into ``lexer``'s source."""

    def __init__(self, lexer: Lexer) -> None:
        self._lexer = lexer
        self._scopes: list[_Scope] = []

    def push(self) -> None:
        """Open the scope of a new region."""
        self._scopes.append(_Scope())

    def pop(self) -> None:
        """Close the current region (see the module docstring for waiting uses)."""
        scope = self._scopes.pop()
        for name, token in scope.undefined_blocks.items():
            raise self._lexer.error(f"reference to an undefined block '{name}'", token.pos)
        if not self._scopes:
            for waiting in scope.pending.values():
                first = min(waiting.values(), key=lambda ref: ref.token.pos)
                name = first.token.text.partition("#")[0]
                raise self._lexer.error(
                    f"use of undeclared SSA value name '{name}'", first.token.pos
                )
            return
        outer = self._scopes[-1].pending
        for name, waiting in scope.pending.items():
            outer_waiting = outer.setdefault(name, {})
            for number, placeholder in waiting.items():
                earlier = outer_waiting.get(number)
                if earlier is None:
                    outer_waiting[number] = placeholder
                    continue
                self._check_type(name, placeholder.type, earlier.type, placeholder.token)
                placeholder.replace_all_uses_with(earlier)

    def resolve(self, operand: UnresolvedOperand, type: Type) -> Value:
        """The value ``operand`` names, which must have ``type`` (a placeholder if the
        name is not defined yet)."""
        for scope in reversed(self._scopes):
            group = scope.values.get(operand.name)
            if group is not None:
                if operand.number >= len(group):
                    raise self._lexer.error(
                        f"'{operand.name}' has {len(group)} results, "
                        f"so '#{operand.number}' is out of range",
                        operand.token.pos,
                    )
                value = group[operand.number]
                self._check_type(operand.name, type, value.type, operand.token)
                return value
        waiting = self._scopes[-1].pending.setdefault(operand.name, {})
        placeholder = waiting.get(operand.number)
        if placeholder is None:
            placeholder = waiting[operand.number] = ForwardRef(type, operand.token)
        self._check_type(operand.name, type, placeholder.type, operand.token)
        return placeholder

    def define(self, token: Token, values: Sequence[Value]) -> None:
        """Bind the name in ``token`` (``%x``, or ``%x`` of ``%x:2``) to ``values``."""
        name = token.text
        for scope in self._scopes:
            if name in scope.values:
                raise self._lexer.error(f"redefinition of SSA value '{name}'", token.pos)
        scope = self._scopes[-1]
        scope.values[name] = tuple(values)
        for number, placeholder in scope.pending.pop(name, {}).items():
            if number >= len(values):
                raise self._lexer.error(f"'{name}' has no result #{number}", placeholder.token.pos)
            value = values[number]
            if value.type != placeholder.type:
                line, _ = self._lexer.line_and_column(placeholder.token.pos)
                raise self._lexer.error(
                    f"definition of SSA value '{name}' has type {value.type}, "
                    f"but line {line} uses it as {placeholder.type}",
                    token.pos,
                )
            placeholder.replace_all_uses_with(value)

    def block(self, token: Token) -> Block:
        """The block called ``token.text`` in the current region (created on first
        mention; it must be defined with ``define_block`` before the region closes)."""
        scope = self._scopes[-1]
        if token.text not in scope.blocks:
            scope.blocks[token.text] = Block()
            scope.undefined_blocks[token.text] = token
        return scope.blocks[token.text]

    def define_block(self, token: Token) -> Block:
        """The block labelled by ``token`` (an error if it was labelled before)."""
        scope = self._scopes[-1]
        if token.text in scope.blocks and token.text not in scope.undefined_blocks:
            raise self._lexer.error(f"redefinition of block '{token.text}'", token.pos)
        scope.undefined_blocks.pop(token.text, None)
        return scope.blocks.setdefault(token.text, Block())

    def _check_type(self, name: str, used_as: Type, actual: Type, token: Token) -> None:
        if used_as != actual:
            raise self._lexer.error(
                f"use of value '{name}' expects different type than prior uses: "
                f"'{used_as}' vs '{actual}'",
                token.pos,
            )

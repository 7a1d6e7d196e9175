"""Which SSA values may be the dimensions and symbols of an affine map.

Affine analysis (dependences, footprints) only works when every map operand is either
fixed for the whole loop nest (a *symbol*) or a loop counter that moves in an affine way
(a *dimension*). MLIR enforces that with these rules, which tinycomp follows (in a
slightly simplified form). An *affine scope* is an op isolated from above, such as
``func.func``; a *top-level* value is defined directly in an affine scope's body (a
function argument, or an op result there, not inside a loop).

A **symbol** is an ``index`` value that is

1. a top-level value, or
2. the result of ``arith.constant``, or
3. the result of ``affine.apply``/``affine.min``/``affine.max`` whose operands are all
   symbols, or
4. the result of ``memref.dim`` of a top-level memref.

A **dimension** is an ``index`` value that is a symbol, or

1. the induction variable of ``affine.for`` (or an argument of an affine scope), or
2. the result of ``affine.apply`` whose operands are all dimensions, or
3. the result of ``memref.dim`` of a top-level memref.

So the induction variable of an ``scf.for`` is neither: ``affine.load %A[%i]`` inside
an ``scf.for %i`` is rejected, by mlir-opt and by tinycomp, and so are ``affine.store``,
``affine.for`` bounds and ``affine.if`` conditions that use it
(``check_dims_and_symbols``). Values whose definition is not (yet) inside any op are
accepted, so detached ops can be built and checked.

The index-arithmetic ops are relaxed, exactly as in MLIR, because they are also used
outside affine loops (``-convert-linalg-to-loops`` feeds ``scf.for`` induction
variables to ``affine.apply``; tiling with ``scf.for`` uses ``affine.min``):

* ``affine.apply`` accepts any ``index`` value as a dimension or a symbol, except that a
  value that is a valid dimension but not a valid symbol (an ``affine.for`` induction
  variable, or ``affine.apply`` of one) may not sit in a symbol position
  (``check_apply_operands``);
* ``affine.min`` and ``affine.max`` accept any ``index`` operands.

>>> from tinycomp.ir import parse
>>> f = parse('''
... func.func @f(%n: index) {
...   affine.for %i = 0 to %n {
...     %j = arith.addi %i, %i : index
...   }
...   return
... }''').body.first_op
>>> loop = f.entry_block.first_op
>>> i, j = loop.body.arguments[0], loop.body.first_op.result
>>> is_valid_symbol(f.arguments[0]), is_valid_dim(i), is_valid_symbol(i), is_valid_dim(j)
(True, True, False, False)
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import index
from tinycomp.ir.values import BlockArgument, OpResult, Value

_APPLY_LIKE = ("affine.apply", "affine.min", "affine.max")
_INDUCTION_VARIABLE_OWNERS = ("affine.for", "affine.parallel")


def _defining_block(value: Value) -> Block | None:
    if isinstance(value, OpResult):
        return value.op.parent
    if isinstance(value, BlockArgument):
        return value.block
    return None


def _scope_of(value: Value) -> Operation | None:
    """The op whose region holds ``value``'s definition (``None`` when detached)."""
    block = _defining_block(value)
    return block.parent_op() if block is not None else None


def is_top_level(value: Value) -> bool:
    """Defined directly in the body of an affine scope (or not inside any op yet)."""
    owner = _scope_of(value)
    return owner is None or owner.is_isolated_from_above


def is_valid_symbol(value: Value) -> bool:
    """May ``value`` be a symbol of an affine map? (see the module docstring)"""
    if value.type != index:
        return False
    if is_top_level(value):
        return True
    if not isinstance(value, OpResult):
        return False
    op = value.op
    if op.name == "arith.constant":
        return True
    if op.name in _APPLY_LIKE:
        return all(is_valid_symbol(operand) for operand in op.operands)
    if op.name == "memref.dim" and op.operands:
        return is_top_level(op.operands[0])
    return False


def is_valid_dim(value: Value) -> bool:
    """May ``value`` be a dimension of an affine map? (see the module docstring)"""
    if value.type != index:
        return False
    if isinstance(value, BlockArgument):
        owner = _scope_of(value)
        if owner is None or owner.is_isolated_from_above:
            return True
        return owner.name in _INDUCTION_VARIABLE_OWNERS and (
            owner.name == "affine.parallel" or value.index == 0
        )
    if is_valid_symbol(value):
        return True
    if isinstance(value, OpResult) and value.op.name == "affine.apply":
        return all(is_valid_dim(operand) for operand in value.op.operands)
    if isinstance(value, OpResult) and value.op.name == "memref.dim" and value.op.operands:
        return is_top_level(value.op.operands[0])
    return False


def check_dims_and_symbols(
    op: Operation, operands: Sequence[Value], num_dims: int, what: str = "map"
) -> None:
    """Raise unless the first ``num_dims`` operands are valid dimensions and the rest
    valid symbols; ``what`` names the map (``"lower bound map"``)."""
    for position, value in enumerate(operands):
        if value.type != index:
            raise op.error(f"expected index operands for the {what}, got {value.type}")
        if position < num_dims and not is_valid_dim(value):
            raise op.error(
                f"operand #{position} of the {what} cannot be used as a dimension: expected an "
                "affine.for induction variable, a symbol, or affine.apply of those"
            )
        if position >= num_dims and not is_valid_symbol(value):
            raise op.error(
                f"operand #{position} of the {what} cannot be used as a symbol: expected a "
                "value defined at the function's top level, a constant, or affine.apply/min/"
                "max of symbols"
            )


def check_apply_operands(
    op: Operation, operands: Sequence[Value], num_dims: int, *, dims_in_symbols: bool
) -> None:
    """Raise unless the operands suit ``affine.apply``/``min``/``max`` (MLIR's rules).

    Every operand must be an ``index``. With ``dims_in_symbols=False`` (``affine.apply``)
    a symbol position may not hold a value that is a valid dimension but not a valid
    symbol, such as an ``affine.for`` induction variable; any other ``index`` value (an
    ``scf.for`` induction variable, an ``arith.addi`` result) is fine anywhere.
    ``affine.min``/``affine.max`` pass ``dims_in_symbols=True``: MLIR checks nothing more.

    >>> from tinycomp.ir import parse
    >>> f = parse('''
    ... func.func @f(%n: index) {
    ...   affine.for %i = 0 to %n {
    ...   }
    ...   return
    ... }''').body.first_op
    >>> loop = f.entry_block.first_op
    >>> i = loop.body.arguments[0]
    >>> check_apply_operands(loop, [i], num_dims=1, dims_in_symbols=False)  # as a dimension
    >>> check_apply_operands(loop, [i], num_dims=0, dims_in_symbols=True)  # affine.min
    >>> check_apply_operands(loop, [i], num_dims=0, dims_in_symbols=False)
    Traceback (most recent call last):
    ...
    tinycomp.ir.errors.VerifyError: ...cannot be used as a symbol...
    """
    for position, value in enumerate(operands):
        if value.type != index:
            raise op.error(f"expected index operands for the map, got {value.type}")
        if dims_in_symbols or position < num_dims:
            continue
        if is_valid_dim(value) and not is_valid_symbol(value):
            raise op.error(
                f"operand #{position} of the map is a dimension (an affine.for induction "
                "variable or affine.apply of one) and cannot be used as a symbol: expected a "
                "symbol, or an index value not tied to an affine loop"
            )


__all__ = [
    "check_apply_operands",
    "check_dims_and_symbols",
    "is_top_level",
    "is_valid_dim",
    "is_valid_symbol",
]

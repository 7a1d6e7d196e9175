"""Structural equality of IR, ignoring SSA names: ``ir_equal(a, b)``.

Two ops are equal when they have the same names, attributes, result types and regions
(same blocks, same argument types, ops pairwise equal), and their operands and
successors correspond: ``%x`` in ``a`` plays the role of ``%arg0`` in ``b``. Names,
name hints and locations are ignored; an attribute an op class documents a default for
(``fastmath = #arith.fastmath<none>``) counts as present with that value.

It runs in two passes, because a use can come before its definition (blocks may be in
any order):

1. Walk both trees in lockstep, comparing everything but operands and successors, and
   record which value/block of ``a`` corresponds to which of ``b``.
2. Walk the recorded op pairs and compare operands and successors through that map;
   a value defined outside ``a`` must be the very same value in ``b``.

>>> from tinycomp.ir import parse
>>> one = parse("func.func @f(%x: f32) -> f32 { %y = arith.mulf %x, %x : f32  return %y : f32 }")
>>> two = parse("func.func @f(%a: f32) -> f32 { %0 = arith.mulf %a, %a : f32  return %0 : f32 }")
>>> ir_equal(one, two)
True
>>> three = parse("func.func @f(%a: f32) -> f32 { %0 = arith.addf %a, %a : f32  return %0 : f32 }")
>>> print(first_difference(one, three))
op names differ: 'arith.mulf' at line 1 vs 'arith.addf' at line 1
"""

from __future__ import annotations

from typing import Any

from tinycomp.ir.attributes import Attribute
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation


def ir_equal(a: Operation, b: Operation) -> bool:
    """True when ``a`` and ``b`` are the same IR up to SSA names (see module docstring)."""
    return first_difference(a, b) is None


def first_difference(a: Operation, b: Operation) -> str | None:
    """A sentence describing the first difference between ``a`` and ``b``, or ``None``."""
    mapping: dict[Any, Any] = {}
    pairs: list[tuple[Operation, Operation]] = []
    problem = _compare_structure(a, b, mapping, pairs)
    if problem:
        return problem
    for op_a, op_b in pairs:
        for index, (value_a, value_b) in enumerate(zip(op_a.operands, op_b.operands, strict=True)):
            if mapping.get(value_a, value_a) is not value_b:
                return f"operand #{index} differs: {_where(op_a, op_b)}"
        for index, (block_a, block_b) in enumerate(
            zip(op_a.successors, op_b.successors, strict=True)
        ):
            if mapping.get(block_a, block_a) is not block_b:
                return f"successor #{index} differs: {_where(op_a, op_b)}"
    return None


def effective_attributes(op: Operation) -> dict[str, Attribute]:
    """The op's attributes with its class's documented defaults filled in (what
    ``ir_equal`` compares, and what CSE and linalg's short form look at).

    >>> from tinycomp.ir import parse
    >>> f = parse("func.func @f(%x: f32) { %y = arith.negf %x : f32  return }").body.first_op
    >>> print(effective_attributes(f.entry_block.first_op)["fastmath"])
    #arith.fastmath<none>
    """
    return {**op.default_attributes, **op.attributes}


def _where(a: Operation, b: Operation) -> str:
    return f"'{a.name}'{describe_location(a.location)} vs '{b.name}'{describe_location(b.location)}"


def _compare_structure(
    a: Operation, b: Operation, mapping: dict[Any, Any], pairs: list[tuple[Operation, Operation]]
) -> str | None:
    if a.name != b.name:
        return f"op names differ: {_where(a, b)}"
    if len(a.operands) != len(b.operands):
        return f"operand counts differ ({len(a.operands)} vs {len(b.operands)}): {_where(a, b)}"
    if len(a.successors) != len(b.successors):
        return f"successor counts differ: {_where(a, b)}"
    if a.result_types != b.result_types:
        types_a = ", ".join(map(str, a.result_types))
        types_b = ", ".join(map(str, b.result_types))
        return f"result types differ ({types_a} vs {types_b}): {_where(a, b)}"
    attrs_a, attrs_b = effective_attributes(a), effective_attributes(b)
    if attrs_a != attrs_b:
        for name in sorted(set(attrs_a) | set(attrs_b)):
            if attrs_a.get(name) != attrs_b.get(name):
                return (
                    f"attribute '{name}' differs ({attrs_a.get(name)} vs {attrs_b.get(name)}): "
                    f"{_where(a, b)}"
                )
    if len(a.regions) != len(b.regions):
        return f"region counts differ: {_where(a, b)}"
    mapping.update(zip(a.results, b.results, strict=True))
    pairs.append((a, b))
    for number, (region_a, region_b) in enumerate(zip(a.regions, b.regions, strict=True)):
        if len(region_a.blocks) != len(region_b.blocks):
            return f"block counts of region #{number} differ: {_where(a, b)}"
        for block_a, block_b in zip(region_a.blocks, region_b.blocks, strict=True):
            types_a = [arg.type for arg in block_a.arguments]
            types_b = [arg.type for arg in block_b.arguments]
            if types_a != types_b:
                return f"block argument types differ in region #{number}: {_where(a, b)}"
            mapping[block_a] = block_b
            mapping.update(zip(block_a.arguments, block_b.arguments, strict=True))
            for child_a, child_b in zip(block_a, block_b, strict=False):
                problem = _compare_structure(child_a, child_b, mapping, pairs)
                if problem:
                    return problem
            if len(block_a) != len(block_b):
                return (
                    f"a block in region #{number} has {len(block_a)} ops vs {len(block_b)}: "
                    f"{_where(a, b)}"
                )
    return None


__all__ = ["effective_attributes", "first_difference", "ir_equal"]

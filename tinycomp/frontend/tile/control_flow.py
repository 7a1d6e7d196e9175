"""Python control flow in a tile kernel: ``for ... in range(...)`` and ``if``.

**Loops** become ``scf.for`` over ``index`` with *carried values*, as in Triton:

1. the bounds (compile-time ints or integer scalars) are cast to ``index``; a
   compile-time step must be positive;
2. every variable the body assigns that already has a value is carried: its value
   enters as an ``iter_arg`` (a tile as its tensor, a scalar as itself, a pointer as its
   offsets, a Python number as an ``arith.constant``);
3. the body is translated with the loop counter (cast to ``i32``) and the carried
   variables bound to the body block's arguments; it ends in ``scf.yield`` of their new
   values, which must keep their types;
4. after the loop the carried variables are the loop's results; variables first
   assigned inside the loop have no value after it (using one is an error).

**Branches**: a compile-time condition (a constexpr comparison) translates only the
branch taken. A scalar ``i1`` condition becomes ``scf.if``: both branches are
translated into their own blocks, and every variable either assigns is merged as a
result of the ``scf.if`` (both sides of one type; a Python number is made a constant
of the other side's type).

>>> import ast
>>> sorted(assigned_names(ast.parse("a = 1\\nfor i in range(3):\\n    b += a").body))
['a', 'b', 'i']
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.scf import ForOp, IfOp, YieldOp
from tinycomp.frontend.tile.arithmetic import binary, scalar_cast, to_value
from tinycomp.frontend.tile.expressions import evaluate
from tinycomp.frontend.tile.values import Pointer, Tile, Undefined, kind_of
from tinycomp.ir import Block, Builder, Region
from tinycomp.ir.type_helpers import is_integer
from tinycomp.ir.types import IntegerType, RankedTensorType, Type, f32, i1, i32, index
from tinycomp.ir.values import Value

if TYPE_CHECKING:
    from tinycomp.frontend.tile.generator import TileGenerator

__all__ = ["assigned_names", "translate_for", "translate_if"]


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """The names ``body`` assigns (targets, augmented targets, loop counters), in order."""
    names: list[str] = []
    for statement in body:
        for node in ast.walk(statement):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                if node.id not in names:
                    names.append(node.id)
    return names


def _carried_value(generator: TileGenerator, value: object, node: ast.AST) -> Value:
    """The SSA value that carries a variable's value through a loop or branch."""
    context = generator.context
    if isinstance(value, Tile):
        return value.value
    if isinstance(value, Value):
        return value
    if isinstance(value, Pointer):
        offsets = value.offsets if value.offsets is not None else 0
        return _carried_value(generator, offsets, node)
    if isinstance(value, bool):
        return context.insert(ConstantOp.build(int(value), i1)).result
    if isinstance(value, (int, float)):
        dtype = f32 if isinstance(value, float) else i32
        return context.insert(ConstantOp.build(value, dtype)).result
    raise generator.error(node, f"cannot carry {kind_of(value)} through a loop or branch")


def _carried_type(value: object) -> Type:
    """The type ``_carried_value`` gives ``value`` (without building anything)."""
    if isinstance(value, Tile):
        return value.type
    if isinstance(value, Value):
        return value.type
    if isinstance(value, Pointer):
        return _carried_type(value.offsets if value.offsets is not None else 0)
    if isinstance(value, bool):
        return i1
    return f32 if isinstance(value, float) else i32


def _rebuild(generator: TileGenerator, template: object, value: Value) -> object:
    """The kernel value of ``value`` in the shape of ``template`` (a pointer stays a
    pointer into the same buffer, a tensor becomes a tile)."""
    if isinstance(template, Pointer):
        offsets = template.offsets if template.offsets is not None else 0
        return Pointer(template.buffer, _rebuild(generator, offsets, value))
    if isinstance(value.type, RankedTensorType):
        return generator.context.wrap(value)
    return value


def _matching(
    generator: TileGenerator,
    name: str,
    template: object,
    after: object,
    expected: Type,
    node: ast.AST,
) -> Value:
    """``after`` as a value of the carried type ``expected``, or an error naming ``name``."""
    if isinstance(template, Pointer):
        if not isinstance(after, Pointer) or after.buffer is not template.buffer:
            raise generator.error(
                node,
                f"variable '{name}' is a pointer into "
                f"%{template.buffer.name_hint} and then {kind_of(after)}",
            )
        after = after.offsets if after.offsets is not None else 0
    if isinstance(after, (bool, int, float)) and not isinstance(expected, RankedTensorType):
        return to_value(generator.context, after, expected)
    found = _carried_value(generator, after, node)
    if found.type != expected:
        raise generator.error(
            node,
            f"variable '{name}' changes type from {expected} to "
            f"{found.type}; a carried value must keep its type (convert "
            "it with .to(...) or start it as a tile of the final shape)",
        )
    return found


def _as_index(generator: TileGenerator, bound: object, node: ast.AST) -> Value:
    context = generator.context
    if isinstance(bound, int) and not isinstance(bound, bool):
        return context.insert(ConstantOp.build(bound, index)).result
    if isinstance(bound, Value) and isinstance(bound.type, IntegerType) and bound.type != i1:
        context.builder.location = context.location
        return scalar_cast(context.builder, bound, index)
    raise generator.error(
        node, f"expected range() bounds that are ints or integer scalars, got {kind_of(bound)}"
    )


def _range_bounds(generator: TileGenerator, node: ast.For) -> list[Value]:
    call = node.iter
    is_range = (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Name)
        and generator.lookup(call.func) is range
    )
    if not is_range or call.keywords or not 1 <= len(call.args) <= 3:
        raise generator.error(
            node,
            "expected 'for name in range(stop)', 'range(start, stop)' "
            "or 'range(start, stop, step)'",
        )
    values = [evaluate(generator, a) for a in call.args]
    start, stop, step = (0, values[0], 1) if len(values) == 1 else (*values, 1)[:3]
    if isinstance(step, int) and step <= 0:
        raise generator.error(node, f"expected a positive range() step (scf.for), got {step}")
    generator.context.location = generator.source.location(node)
    return [_as_index(generator, b, node) for b in (start, stop, step)]


def translate_for(generator: TileGenerator, node: ast.For) -> None:
    """``for i in range(...)`` as ``scf.for`` (see the module docstring).

    >>> import numpy as np
    >>> from tinycomp.frontend.tile import kernel
    >>> @kernel
    ... def count(x, n):
    ...     total = 0.0
    ...     for i in range(n):
    ...         total += 1.0
    >>> loop = count.specialize(np.zeros(1, np.float32), 3).body.first_op.entry_block.ops[-2]
    >>> print(loop.name, loop.results[0].type)
    scf.for f32
    """
    if node.orelse or not isinstance(node.target, ast.Name):
        raise generator.error(node, "expected 'for name in range(...)' without 'else'")
    lower, upper, step = _range_bounds(generator, node)
    env = generator.env
    counter_name = node.target.id
    carried = [
        n
        for n in assigned_names(node.body)
        if n in env and not isinstance(env[n], Undefined) and n != counter_name
    ]
    before = {n: env[n] for n in carried}
    inits = [_carried_value(generator, before[n], node) for n in carried]
    loop = generator.context.insert(ForOp.build(lower, upper, step, inits))
    body = loop.regions[0].entry_block
    outer_builder = generator.context.builder
    generator.context.builder = Builder.before(body.last_op) if not inits else Builder.at_end(body)
    body.arguments[0].name_hint = f"{counter_name}_index"
    counter = scalar_cast(generator.context.builder, body.arguments[0], i32)
    counter.name_hint = counter_name
    env[counter_name] = counter
    for name, argument in zip(carried, body.arguments[1:], strict=True):
        argument.name_hint = name
        env[name] = _rebuild(generator, before[name], argument)
    generator.statements(node.body)
    if inits:
        generator.context.location = generator.source.location(node)
        yields = [
            _matching(generator, n, before[n], env[n], v.type, node)
            for n, v in zip(carried, inits, strict=True)
        ]
        generator.context.insert(YieldOp.build(yields))
    generator.context.builder = outer_builder
    line = generator.source.location(node).line
    for name in assigned_names(node.body):
        if name not in before:
            env[name] = Undefined(f"is assigned only inside the loop at line {line}")
    env[node.target.id] = Undefined(f"is the counter of the loop at line {line}")
    for name, result in zip(carried, loop.results, strict=True):
        result.name_hint = name
        env[name] = _rebuild(generator, before[name], result)


def translate_if(generator: TileGenerator, node: ast.If) -> None:
    """``if`` on a compile-time value or an ``i1`` scalar (see the module docstring).

    >>> import numpy as np
    >>> from tinycomp.frontend.tile import kernel
    >>> @kernel
    ... def pick(x, n):
    ...     value = 1.0
    ...     if n > 2:
    ...         value = 2.0
    >>> branch = pick.specialize(np.zeros(1, np.float32), 3).body.first_op.entry_block.ops[-2]
    >>> print(branch.name, branch.results[0].type)
    scf.if f32
    """
    condition = evaluate(generator, node.test)
    if isinstance(condition, (bool, int, float)) or condition is None:
        generator.statements(node.body if condition else node.orelse)
        return
    if isinstance(condition, Value) and is_integer(condition.type) and condition.type != i1:
        condition = binary(generator.context, "!=", condition, 0)
    if not isinstance(condition, Value) or condition.type != i1:
        raise generator.error(
            node.test,
            f"expected a scalar condition, got {kind_of(condition)} "
            "(use tile.where for a condition per element)",
        )
    env = dict(generator.env)
    outer_builder = generator.context.builder
    branches = []
    for statements in (node.body, node.orelse):
        block = Block()
        generator.context.builder = Builder.at_end(block)
        generator.env = dict(env)
        generator.statements(statements)
        branches.append((block, generator.env))
    merged, types = [], []
    line = generator.source.location(node).line
    final_env = dict(env)
    for name in assigned_names(node.body + node.orelse):
        sides = [branch_env.get(name, env.get(name)) for _, branch_env in branches]
        if any(s is None or isinstance(s, Undefined) for s in sides):
            final_env[name] = Undefined(f"is assigned in only one branch of the if at line {line}")
            continue
        if sides[0] is sides[1]:
            final_env[name] = sides[0]
            continue
        if all(isinstance(s, (bool, int, float)) for s in sides) and sides[0] == sides[1]:
            final_env[name] = sides[0]
            continue
        merged.append((name, sides))
    yields: list[list[Value]] = [[], []]
    for name, sides in merged:
        template = next((s for s in sides if not isinstance(s, (bool, int, float))), sides[0])
        expected = _carried_type(template)
        for (block, _), side, values in zip(branches, sides, yields, strict=True):
            generator.context.builder = Builder.at_end(block)
            values.append(_matching(generator, name, template, side, expected, node))
        types.append(expected)
        final_env[name] = template
    for (block, _), values in zip(branches, yields, strict=True):
        generator.context.builder = Builder.at_end(block)
        generator.context.insert(YieldOp.build(values))
    generator.context.builder = outer_builder
    generator.context.location = generator.source.location(node)
    regions = [Region([branches[0][0]]), Region([branches[1][0]])]
    op = generator.context.insert(IfOp([condition], types, {}, regions))
    for (name, _), result in zip(merged, op.results, strict=True):
        result.name_hint = name
        final_env[name] = _rebuild(generator, final_env[name], result)
    generator.env = final_env

"""``if``, ``for``, ``while`` and the early ``return`` of a kernel, as structured IR.

Python variables become SSA values, so a variable changed under control flow has to be
passed out of it explicitly:

1. **``if``/``elif``/``else``** is ``scf.if``. Each branch is translated into a block
   of its own on a copy of the environment; every variable that either branch assigns
   and both have a value for becomes a *result* of the ``scf.if`` (``scf.yield`` in each
   branch). A variable assigned in one branch only, and not before, has no value after
   the ``if``: using it is an error that names it. A condition that is a literal picks
   its branch now.
2. **``for i in range(start, stop, step)``** is ``scf.for`` over ``index``; every
   variable the body assigns that was defined before the loop is *loop-carried*: an
   ``iter_args`` entry, yielded at the end of the body, a result after the loop. The
   step must be a positive constant or a value.
3. **``while cond:``** is ``scf.while``: the loop-carried variables are arguments of both
   regions; the ``before`` region computes ``cond`` (``scf.condition``), the ``after``
   region runs the body and yields.
4. **``if cond: return``** at the top level of the kernel ends the current block with
   ``cf.cond_br %cond, ^exit, ^rest``; ``^exit`` holds only ``gpu.return`` and comes last.

A loop-carried variable or branch result keeps the type it had before (a store-like
conversion, ``arith.truncf``...); a variable first assigned inside a loop body is local
to it.

>>> import ast
>>> assigned_names(ast.parse("x = 1\\nfor i in range(3):\\n    y += x\\n    a[i] = y").body)
['x', 'i', 'y']
"""

from __future__ import annotations

import ast

from tinycomp.dialects import cf, gpu, scf
from tinycomp.frontend.simt.conversions import common_type, constant, convert, is_number_type
from tinycomp.frontend.simt.expressions import describe, in_block, number, to_index
from tinycomp.frontend.simt.generator import KernelGenerator, Undefined
from tinycomp.frontend.simt.operators import truth
from tinycomp.ir.block import Block
from tinycomp.ir.builder import InsertionPoint
from tinycomp.ir.region import Region
from tinycomp.ir.types import Type, i1
from tinycomp.ir.values import Value

__all__ = ["assigned_names", "translate_for", "translate_if", "translate_while"]


def assigned_names(statements: list[ast.stmt]) -> list[str]:
    """The variable names ``statements`` assign (nested blocks too), first use first."""
    names: list[str] = []

    def add_target(target: ast.expr) -> None:
        if isinstance(target, ast.Name) and target.id not in names:
            names.append(target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                add_target(element)

    for statement in statements:
        for node in ast.walk(statement):
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    add_target(target)
            elif isinstance(node, ast.AugAssign | ast.AnnAssign | ast.For):
                add_target(node.target)
    return names


def _condition(gen: KernelGenerator, node: ast.expr) -> Value | bool:
    return truth(gen.builder, number(gen, node, "a condition"))


def _branch(gen: KernelGenerator, block: Block, body: list[ast.stmt], before: dict) -> dict:
    gen.env = dict(before)
    gen.depth += 1
    try:
        with in_block(gen, block):
            gen.statements(body)
    finally:
        gen.depth -= 1
    return gen.env


def _merged_type(gen: KernelGenerator, name: str, values: list, before: object, node) -> Type:
    """The type a variable has after control flow: its type before, else the common one."""
    if isinstance(before, Value):
        return before.type
    types = [v.type for v in values]
    if all(is_number_type(t) for t in types):
        result = types[0]
        for other in types[1:]:
            result = common_type(result, other)
        return result
    if len(set(map(str, types))) != 1:
        found = " and ".join(map(str, types))
        raise gen.error(node, f"variable '{name}' is {found} in the two branches")
    return types[0]


def _coerce(gen: KernelGenerator, name: str, value: object, to: Type, node: ast.AST) -> Value:
    if not isinstance(value, Value):
        raise gen.error(node, f"variable '{name}' must be a number or an array here, got "
                        f"{describe(value)}")  # fmt: skip
    if value.type == to:
        return value
    if not (is_number_type(value.type) and is_number_type(to)):
        raise gen.error(node, f"variable '{name}' is {value.type} here but {to} before")
    return convert(gen.builder, value, to)


def translate_if(gen: KernelGenerator, node: ast.If) -> None:
    """``if``/``elif``/``else`` (step 1), or an early exit (step 4)."""
    if _is_early_exit(node):
        if gen.depth > 0:
            raise gen.error(node.body[0], "`return` is only supported as an early exit at the "
                            "top level of the kernel: `if cond: return`")  # fmt: skip
        _early_exit(gen, node)
        return
    condition = _condition(gen, node.test)
    if not isinstance(condition, Value):
        gen.statements(node.body if condition else node.orelse)
        return
    before = gen.env
    then_block, else_block = Block(), Block()
    then_env = _branch(gen, then_block, node.body, before)
    else_env = _branch(gen, else_block, node.orelse, before)
    gen.env = dict(before)
    results: list[tuple[str, Type]] = []
    for name in dict.fromkeys([*then_env, *else_env]):
        then_value, else_value = then_env.get(name), else_env.get(name)
        if then_value is before.get(name) and else_value is before.get(name):
            continue
        if then_value is None or else_value is None:
            branch = "'if'" if else_value is None else "'else'"
            gen.env[name] = Undefined(
                f"is assigned only in the {branch} branch (line "
                f"{gen.source.location(node).line}) and not before it"
            )
            continue  # fmt: skip
        if isinstance(then_value, Undefined) or isinstance(else_value, Undefined):
            gen.env[name] = then_value if isinstance(then_value, Undefined) else else_value
            continue
        if not (isinstance(then_value, Value) and isinstance(else_value, Value)):
            if then_value is else_value:
                gen.env[name] = then_value
                continue
            gen.env[name] = Undefined(
                f"holds {describe(then_value)} that differs between the "
                "branches of an 'if' (only numbers and arrays can)"
            )
            continue  # fmt: skip
        merged = _merged_type(gen, name, [then_value, else_value], before.get(name), node)
        results.append((name, merged))
    for block, env, body in (
        (then_block, then_env, node.body),
        (else_block, else_env, node.orelse),
    ):
        with in_block(gen, block), gen.at(body[-1] if body else node):
            values = [_coerce(gen, name, env[name], t, node) for name, t in results]
            gen.builder.insert(scf.YieldOp.build(values))
    has_else = bool(node.orelse) or bool(results)
    regions = [Region([then_block]), Region([else_block] if has_else else [])]
    op = gen.builder.insert(scf.IfOp([condition], [t for _, t in results], {}, regions))
    for (name, _), result in zip(results, op.results, strict=True):
        result.name_hint = name
        gen.env[name] = result


def _is_early_exit(node: ast.If) -> bool:
    return any(isinstance(statement, ast.Return) for statement in node.body) or any(
        isinstance(statement, ast.Return) for statement in node.orelse
    )


def _early_exit(gen: KernelGenerator, node: ast.If) -> None:
    returns = node.body[0]
    if len(node.body) != 1 or node.orelse or returns.value is not None:
        raise gen.error(node, "an early exit must be exactly `if cond: return` (no other "
                        "statements, no value, no else)")  # fmt: skip
    condition = _condition(gen, node.test)
    if not isinstance(condition, Value):
        condition = constant(gen.builder, condition, i1)
    if gen.exit_block is None:
        gen.exit_block = Block()
        with in_block(gen, gen.exit_block), gen.at(returns):
            gen.builder.insert(gpu.ReturnOp.build())
    rest = Block()
    gen.builder.insert(cf.CondBranchOp.build(condition, gen.exit_block, [], rest, []))
    gen.region_blocks.append(rest)
    gen.builder.insertion_point = InsertionPoint.at_end(rest)


def _carried(gen: KernelGenerator, body: list[ast.stmt], exclude: str | None) -> list[str]:
    names = assigned_names(body)
    return [n for n in names if n != exclude and isinstance(gen.env.get(n), Value)]


def _after_loop(gen: KernelGenerator, before: dict, body_env: dict, node: ast.stmt) -> None:
    """Variables first assigned in a loop body have no value after the loop."""
    line = gen.source.location(node).line
    for name in body_env:
        if name not in before:
            gen.env[name] = Undefined(f"is assigned inside the loop at line {line} and not "
                                      "before it (give it a value before the loop)")  # fmt: skip
        elif not isinstance(before[name], Value) and body_env[name] is not before[name]:
            gen.env[name] = Undefined(
                f"holds {describe(before[name])} reassigned inside the "
                f"loop at line {line} (only numbers and arrays can be)"
            )


def _loop_body(gen: KernelGenerator, block: Block, body: list[ast.stmt], env: dict) -> dict:
    gen.env = env
    gen.depth += 1
    try:
        with in_block(gen, block):
            gen.statements(body)
    finally:
        gen.depth -= 1
    return gen.env


def _yield_carried(
    gen: KernelGenerator, block: Block, env: dict, carried: list[str], types: list, node: ast.stmt
) -> None:
    with in_block(gen, block), gen.at(node.body[-1]):
        pairs = zip(carried, types, strict=True)
        values = [_coerce(gen, name, env[name], t, node) for name, t in pairs]
        gen.builder.insert(scf.YieldOp.build(values))


def _range_bounds(gen: KernelGenerator, node: ast.For) -> list[Value]:
    call = node.iter
    if not (isinstance(call, ast.Call) and gen.expression(call.func) is range):
        raise gen.error(node, "only `for i in range(...)` loops are supported in a kernel")
    if not 1 <= len(call.args) <= 3 or call.keywords:
        raise gen.error(call, f"range() takes 1 to 3 arguments, got {len(call.args)}")
    args = list(call.args)
    if len(args) == 1:
        args.insert(0, ast.copy_location(ast.Constant(0), call))
    if len(args) == 2:
        args.append(ast.copy_location(ast.Constant(1), call))
    what = ("the range start", "the range stop", "the range step")
    values = [number(gen, arg, w) for arg, w in zip(args, what, strict=True)]
    if isinstance(values[2], int | float) and not values[2] > 0:
        raise gen.error(call, f"expected a positive range() step, got {values[2]} (count down "
                        "with a while loop)")  # fmt: skip
    return [to_index(gen, v, arg, w) for v, arg, w in zip(values, args, what, strict=True)]


def translate_for(gen: KernelGenerator, node: ast.For) -> None:
    """``for i in range(...)`` as ``scf.for`` (step 2)."""
    if not isinstance(node.target, ast.Name):
        raise gen.error(node, "expected one loop variable, as in `for i in range(n)`")
    if node.orelse:
        raise gen.error(node, "`for ... else` is not supported in a kernel")
    lower, upper, step = _range_bounds(gen, node)
    name = node.target.id
    carried = _carried(gen, node.body, name)
    before = gen.env
    inits = [before[n] for n in carried]
    loop = gen.builder.insert(scf.ForOp.build(lower, upper, step, inits))
    body = loop.regions[0].entry_block
    induction, *arguments = body.arguments
    induction.name_hint = name
    env = dict(before)
    env[name] = induction
    for variable, argument in zip(carried, arguments, strict=True):
        argument.name_hint = variable
        env[variable] = argument
    if not carried:
        body.last_op.erase()  # the implicit scf.yield: the body's own yield ends it below
    body_env = _loop_body(gen, body, node.body, env)
    _yield_carried(gen, body, body_env, carried, [v.type for v in inits], node)
    gen.env = dict(before)
    _after_loop(gen, before, body_env, node)
    gen.env[name] = Undefined("is the loop variable; it has no value after the loop")
    for variable, result in zip(carried, loop.results, strict=True):
        result.name_hint = variable
        gen.env[variable] = result


def translate_while(gen: KernelGenerator, node: ast.While) -> None:
    """``while cond:`` as ``scf.while`` (step 3)."""
    if node.orelse:
        raise gen.error(node, "`while ... else` is not supported in a kernel")
    carried = _carried(gen, node.body, None)
    before = gen.env
    inits = [before[n] for n in carried]
    loop = gen.builder.insert(scf.WhileOp.build(inits))
    for block in (loop.before_block, loop.after_block):
        for variable, argument in zip(carried, block.arguments, strict=True):
            argument.name_hint = variable
    env = dict(before)
    env.update(zip(carried, loop.before_block.arguments, strict=True))
    gen.env = env
    with in_block(gen, loop.before_block):
        condition = _condition(gen, node.test)
        if not isinstance(condition, Value):
            condition = constant(gen.builder, condition, i1)
        gen.builder.insert(scf.ConditionOp.build(condition, list(loop.before_block.arguments)))
    env = dict(before)
    env.update(zip(carried, loop.after_block.arguments, strict=True))
    body_env = _loop_body(gen, loop.after_block, node.body, env)
    types = [v.type for v in inits]
    _yield_carried(gen, loop.after_block, body_env, carried, types, node)
    gen.env = dict(before)
    _after_loop(gen, before, body_env, node)
    for variable, result in zip(carried, loop.results, strict=True):
        result.name_hint = variable
        gen.env[variable] = result

"""The scf dialect: syntax as mlir-opt prints it, implied terminators, builders, verifier."""

from __future__ import annotations

import pytest

from tinycomp.dialects import arith, func, scf
from tinycomp.ir import (
    Block,
    Builder,
    DenseArrayAttr,
    FunctionType,
    ModuleOp,
    f32,
    i1,
    i32,
    index,
    ir_equal,
    parse,
    print_ir,
)

from .roundtrip import assert_round_trip, assert_verify_error, first_op_named, in_function

SIGNATURE = "(%lb: index, %ub: index, %step: index, %x: f32, %c: i1, %m: memref<?xf32>)"


@pytest.mark.parametrize(
    "body",
    [
        # for: no iter_args (implied yield), iter_args, several, i32 bounds, unsigned, attrs
        "scf.for %i = %lb to %ub step %step {\n  memref.store %x, %m[%i] : memref<?xf32>\n}",
        "%0 = scf.for %i = %lb to %ub step %step iter_args(%acc = %x) -> (f32) {\n"
        "  %1 = arith.addf %acc, %x : f32\n  scf.yield %1 : f32\n}",
        "%0:2 = scf.for %i = %lb to %ub step %step iter_args(%a = %x, %b = %x) -> (f32, f32) {\n"
        "  scf.yield %b, %a : f32, f32\n}",
        "%c0_i32 = arith.constant 0 : i32\n"
        "scf.for %i = %c0_i32 to %c0_i32 step %c0_i32  : i32 {\n}",
        "%c0_i32 = arith.constant 0 : i32\n"
        "scf.for unsigned %i = %c0_i32 to %c0_i32 step %c0_i32  : i32 {\n} {note = 1 : i32}",
        # if: without else, with else, with results, attributes
        "scf.if %c {\n  memref.store %x, %m[%lb] : memref<?xf32>\n}",
        "scf.if %c {\n} else {\n  memref.store %x, %m[%lb] : memref<?xf32>\n} {hint}",
        "%0:2 = scf.if %c -> (f32, index) {\n  scf.yield %x, %lb : f32, index\n} else {\n"
        "  scf.yield %x, %ub : f32, index\n}",
        # while: with and without values, attributes after 'attributes'
        "%0:2 = scf.while (%a = %x, %k = %lb) : (f32, index) -> (f32, index) {\n"
        "  %1 = arith.cmpi slt, %k, %ub : index\n  scf.condition(%1) %a, %k : f32, index\n"
        "} do {\n^bb0(%a: f32, %k: index):\n  scf.yield %a, %k : f32, index\n}",
        "scf.while : () -> () {\n  scf.condition(%c)\n} do {\n  scf.yield\n} attributes {w}",
        # parallel: with and without reductions
        "scf.parallel (%i, %j) = (%lb, %lb) to (%ub, %ub) step (%step, %step) {\n"
        "  memref.store %x, %m[%j] : memref<?xf32>\n  scf.reduce \n} {mapping = 1 : i64}",
        "%0 = scf.parallel (%i) = (%lb) to (%ub) step (%step) init (%x) -> f32 {\n"
        "  scf.reduce(%x : f32) {\n  ^bb0(%a: f32, %b: f32):\n    %1 = arith.addf %a, %b : f32\n"
        "    scf.reduce.return %1 : f32\n  }\n}",
        # execute_region
        "%0 = scf.execute_region -> f32 no_inline {\n  scf.yield %x : f32\n} {e}",
    ],
)
def test_syntax_round_trips(body):
    assert_round_trip(in_function(SIGNATURE, body + "\nreturn"))


def test_the_implied_yield_is_added_by_the_parser_and_left_out_by_the_printer():
    module = parse(in_function(SIGNATURE, "scf.for %i = %lb to %ub step %step {\n}\nreturn"))
    loop = first_op_named(module, "scf.for")
    assert [op.name for op in loop.body.ops] == ["scf.yield"]
    assert "scf.yield" not in print_ir(module)
    assert '"scf.yield"() : () -> ()' in print_ir(module, generic=True)
    cond = parse(in_function(SIGNATURE, "scf.if %c {\n} else {\n}\nreturn"))
    branch = first_op_named(cond, "scf.if")
    assert [op.name for op in branch.else_block.ops] == ["scf.yield"]


def test_an_if_without_else_has_an_empty_else_region():
    module = parse(in_function(SIGNATURE, "scf.if %c {\n}\nreturn"))
    branch = first_op_named(module, "scf.if")
    assert branch.else_block is None and len(branch.else_region.blocks) == 0
    assert "}, {\n    }) : (i1) -> ()" in print_ir(module, generic=True)


def test_generic_form_of_parallel_has_operand_segments():
    module = parse(
        in_function(
            SIGNATURE,
            "scf.parallel (%i) = (%lb) to (%ub) step (%step) {\n  scf.reduce \n}\nreturn",
        )
    )
    loop = first_op_named(module, "scf.parallel")
    assert loop.attributes["operandSegmentSizes"] == DenseArrayAttr(i32, [1, 1, 1, 0])
    assert "operandSegmentSizes = array<i32: 1, 1, 1, 0>" in print_ir(module, generic=True)
    assert loop.lower_bounds == (loop.operands[0],) and loop.init_vals == ()


def _function(*arg_types, results=()):
    function = func.FuncOp.build("f", FunctionType(arg_types, results))
    return function, Builder.at_end(function.entry_block)


def test_builders_make_the_same_ir_as_the_parser():
    function, b = _function(index, index, f32, results=[f32])
    n, step, x = function.arguments
    zero = b.insert(arith.ConstantOp.build(0, index)).result
    loop = b.insert(scf.ForOp.build(zero, n, step, [x]))
    with b.at(b.insertion_point.at_end(loop.body)):
        total = b.insert(arith.AddFOp.build(loop.region_iter_args[0], x)).result
        b.insert(scf.YieldOp.build([total]))
    plain = b.insert(scf.ForOp.build(zero, n, step))
    assert [op.name for op in plain.body.ops] == ["scf.yield"]
    b.insert(func.ReturnOp.build([loop.result]))
    built = ModuleOp.build([function])
    built.verify()
    parsed = parse(
        in_function(
            "(%n: index, %s: index, %x: f32) -> f32",
            """
            %c0 = arith.constant 0 : index
            %0 = scf.for %i = %c0 to %n step %s iter_args(%acc = %x) -> (f32) {
              %1 = arith.addf %acc, %x : f32
              scf.yield %1 : f32
            }
            scf.for %i = %c0 to %n step %s {
            }
            return %0 : f32
            """,
        )
    )
    assert ir_equal(built, parsed)


def test_if_while_parallel_builders():
    c, x, n = Block([i1, f32, index]).arguments
    branch = scf.IfOp.build(c)
    assert branch.else_block is None and branch.then_block.last_op.name == "scf.yield"
    valued = scf.IfOp.build(c, [f32])
    assert valued.else_block is not None and len(valued.then_block) == 0
    loop = scf.WhileOp.build([x], [index])
    assert [a.type for a in loop.before_block.arguments] == [f32]
    assert [a.type for a in loop.after_block.arguments] == [index]
    par = scf.ParallelOp.build([n, n], [n, n], [n, n], [x])
    assert par.steps == (n, n) and par.init_vals == (x,) and par.result.type == f32
    reduce = scf.ReduceOp.build([x])
    assert [a.type for a in reduce.regions[0].blocks[0].arguments] == [f32, f32]
    region = scf.ExecuteRegionOp.build([f32], no_inline=True)
    assert "no_inline" in region.attributes


VERIFY_CASES = [
    (
        "%c0_i32 = arith.constant 0 : i32\nscf.for %i = %lb to %ub step %step {\n}\n"
        '"scf.for"(%lb, %ub, %c0_i32) ({\n^bb0(%i: index):\n  scf.yield\n})'
        " : (index, index, i32) -> ()",
        "expected lower bound, upper bound and step of one integer or index type, got index, "
        "index, i32",
    ),
    (
        '%0 = "scf.for"(%lb, %ub, %step, %x) ({\n^bb0(%i: index, %a: f32):\n  scf.yield\n})'
        " : (index, index, index, f32) -> f32",
        "expected 'scf.yield' to pass (f32) (the iter_args' types), got ()",
    ),
    (
        '%0 = "scf.for"(%lb, %ub, %step, %x) ({\n^bb0(%i: index, %a: f32):\n'
        "  scf.yield %a : f32\n}) : (index, index, index, f32) -> index",
        "expected result types (f32) (the iter_args' types), got (index)",
    ),
    (
        '"scf.for"(%lb, %ub, %step) ({\n^bb0(%i: index, %j: index):\n  scf.yield\n})'
        " : (index, index, index) -> ()",
        "expected body arguments (index) (induction variable and iter_args), got (index, index)",
    ),
    (
        '"scf.if"(%lb) ({\n  scf.yield\n}, {\n}) : (index) -> ()',
        "expected an i1 condition, got index",
    ),
    (
        '%0 = "scf.if"(%c) ({\n  scf.yield %x : f32\n}, {\n}) : (i1) -> f32',
        "expected an 'else' region, since the op has results (f32)",
    ),
    (
        "%0 = scf.if %c -> (f32) {\n  scf.yield %x : f32\n} else {\n  scf.yield %lb : index\n}",
        "expected 'scf.yield' to pass (f32) (the results), got (index)",
    ),
    (
        "%0 = scf.while (%a = %x) : (f32) -> f32 {\n  scf.condition(%c) %a : f32\n} do {\n"
        "^bb0(%b: index):\n  scf.yield %x : f32\n}",
        "expected 'after' arguments (f32) (what 'scf.condition' forwards), got (index)",
    ),
    (
        "%0 = scf.while (%a = %x) : (f32) -> f32 {\n  scf.condition(%c) %a : f32\n} do {\n"
        "^bb0(%b: f32):\n  scf.yield %lb : index\n}",
        "expected 'scf.yield' to pass (f32) (the 'before' arguments), got (index)",
    ),
    (
        "scf.execute_region {\n  scf.condition(%c)\n}",
        "'scf.condition' at line 4: expected to be inside 'scf.while', got 'scf.execute_region'",
    ),
    (
        "scf.execute_region {\n  scf.reduce \n}",
        "expected to be inside 'scf.parallel', got 'scf.execute_region'",
    ),
    (
        "%c0 = arith.constant 0 : index\n"
        "scf.parallel (%i) = (%lb) to (%ub) step (%c0) {\n  scf.reduce \n}",
        "expected constant steps to be positive, got 0",
    ),
    (
        "%0 = scf.parallel (%i) = (%lb) to (%ub) step (%step) init (%x) -> f32 {\n"
        "  scf.reduce(%lb : index) {\n  ^bb0(%a: index, %b: index):\n"
        "    scf.reduce.return %a : index\n  }\n}",
        "expected 'scf.reduce' to pass (f32) (the inits), got (index)",
    ),
    (
        "scf.execute_region {\n  scf.yield %x : f32\n}",
        "expected 'scf.yield' to pass () (the results), got (f32)",
    ),
]


@pytest.mark.parametrize(("body", "message"), VERIFY_CASES)
def test_verifier_messages(body, message):
    assert_verify_error(in_function(SIGNATURE, body + "\nreturn"), message)


def test_yield_outside_scf_is_rejected():
    assert_verify_error(
        in_function(SIGNATURE, "scf.yield"),
        "'scf.yield' at line 3: expected to be inside scf.for, scf.if, scf.while, "
        "scf.execute_region, scf.index_switch, got 'func.func'",
    )


def test_custom_syntax_errors_point_at_the_text():
    with pytest.raises(Exception, match="expected 'to'"):
        parse(in_function(SIGNATURE, "scf.for %i = %lb %ub step %step {\n}\nreturn"))
    with pytest.raises(Exception, match="expected 2 values after 'to'"):
        parse(
            in_function(
                SIGNATURE,
                "scf.parallel (%i, %j) = (%lb, %lb) to (%ub) step (%step, %step) {\n}\nreturn",
            )
        )

"""The affine ops: bounds and subscripts with SSA names, builders, verifier, symbol rules."""

from __future__ import annotations

import pytest

from tinycomp.affine import AffineMap, IntegerSet, d, parse_affine_map, s
from tinycomp.dialects import affine, func
from tinycomp.dialects.affine.operands import is_valid_dim, is_valid_symbol
from tinycomp.ir import (
    AffineMapAttr,
    Block,
    Builder,
    DenseArrayAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    ParseError,
    f32,
    i32,
    index,
    ir_equal,
    parse,
    print_ir,
)

from .roundtrip import assert_round_trip, assert_verify_error, first_op_named, in_function

SIGNATURE = "(%A: memref<16x16xf32>, %n: index, %m: index, %x: f32)"


def _module(body: str, aliases: str = "") -> str:
    return aliases + in_function(SIGNATURE, body + "\nreturn")


@pytest.mark.parametrize(
    ("aliases", "body"),
    [
        ("", "affine.for %i = 0 to 16 {\n}"),
        ("", "affine.for %i = -2 to %n step 4 {\n} {unroll}"),
        ("", "affine.for %i = %n to %m {\n}"),
        (
            "#map = affine_map<(d0) -> (d0 + 1)>\n#map1 = affine_map<()[s0] -> (s0 * 2)>\n",
            "affine.for %i = 0 to 8 {\n  affine.for %j = #map(%i) to #map1()[%n] {\n  }\n}",
        ),
        (
            "#map = affine_map<(d0)[s0] -> (d0, s0)>\n#map1 = affine_map<(d0)[s0] -> "
            "(d0 + 4, s0 - 1, 12)>\n",
            "affine.for %i = 0 to 8 {\n  affine.for %j = max #map(%i)[%n] to min "
            "#map1(%i)[%m] step 2 {\n  }\n}",
        ),
        (
            "",
            "%0 = affine.for %i = 0 to 16 iter_args(%acc = %x) -> (f32) {\n"
            "  %1 = affine.load %A[%i, %i] : memref<16x16xf32>\n"
            "  %2 = arith.addf %acc, %1 : f32\n  affine.yield %2 : f32\n}",
        ),
        (
            "",
            "affine.for %i = 0 to 16 {\n  affine.for %j = 0 to 16 {\n"
            "    %0 = affine.load %A[%i * 2 + %j floordiv 3, %j mod 4 - %i ceildiv 2] : "
            "memref<16x16xf32>\n"
            "    affine.store %0, %A[%j, symbol(%n) + 3] {nontemporal} : memref<16x16xf32>\n"
            "  }\n}",
        ),
        (
            "#set = affine_set<(d0)[s0] : (d0 - 10 >= 0, -d0 + s0 >= 0, d0 mod 2 == 0)>\n",
            "affine.if #set(%n)[%m] {\n} else {\n"
            "  affine.store %x, %A[0, 0] : memref<16x16xf32>\n}",
        ),
        (
            "#set = affine_set<() : (0 == 0)>\n",
            "%0:2 = affine.if #set() -> (f32, index) {\n  affine.yield %x, %n : f32, index\n}"
            " else {\n  affine.yield %x, %m : f32, index\n} {hint}",
        ),
        (
            "#map = affine_map<(d0)[s0] -> (d0 * 4 + s0)>\n"
            "#map1 = affine_map<(d0, d1) -> (d0, d1 - 8, 32)>\n",
            "%0 = affine.apply #map(%n)[%m]\n%1 = affine.min #map1(%0, %m)\n"
            "%2 = affine.max #map1(%1, %0) {why}",
        ),
    ],
)
def test_syntax_round_trips(aliases, body):
    assert_round_trip(_module(body, aliases))


def test_for_stores_its_bounds_like_mlir():
    module = parse(
        _module(
            "affine.for %i = 0 to 16 {\n  affine.for %j = max affine_map<(d0)[s0] -> (d0, s0)>"
            "(%i)[%n] to %m step 3 {\n  }\n}"
        )
    )
    inner = [op for op in module.walk() if op.name == "affine.for"][1]
    assert inner.attributes["lowerBoundMap"] == AffineMapAttr(
        parse_affine_map("(d0)[s0] -> (d0, s0)")
    )
    assert inner.attributes["upperBoundMap"] == AffineMapAttr(parse_affine_map("()[s0] -> (s0)"))
    assert inner.attributes["step"] == IntegerAttr(3, index)
    assert inner.attributes["operandSegmentSizes"] == DenseArrayAttr(i32, [2, 1, 0])
    assert inner.step == 3 and len(inner.lower_bound_operands) == 2
    generic = print_ir(module, generic=True)
    assert "lowerBoundMap = #map2, operandSegmentSizes = array<i32: 2, 1, 0>, step = 3 : index" in (
        generic
    )


def test_subscripts_number_operands_in_order_of_first_use():
    module = parse(
        _module(
            "affine.for %i = 0 to 4 {\n  affine.for %j = 0 to 4 {\n"
            "    %0 = affine.load %A[%j + symbol(%m), %i + %j * 2 + symbol(%n)] : "
            "memref<16x16xf32>\n  }\n}"
        )
    )
    load = first_op_named(module, "affine.load")
    assert str(load.map) == "(d0, d1)[s0, s1] -> (d0 + s0, d1 + d0 * 2 + s1)"
    loops = [op for op in module.walk() if op.name == "affine.for"]
    names = [loops[1].induction_var, loops[0].induction_var]
    assert list(load.map_operands[:2]) == names
    function = first_op_named(module, "func.func")
    assert list(load.map_operands[2:]) == [function.arguments[2], function.arguments[1]]


def test_a_value_keeps_its_first_role_in_subscripts():
    module = parse(
        _module("%0 = affine.load %A[%n * 2 + symbol(%n), symbol(%m) + %m] : memref<16x16xf32>")
    )
    load = first_op_named(module, "affine.load")
    assert str(load.map) == "(d0)[s0] -> (d0 * 2 + d0, s0 + s0)"
    assert len(load.map_operands) == 2


def test_subscript_errors_are_parse_errors():
    with pytest.raises(ParseError, match="invalid affine subscripts"):
        parse(_module("%0 = affine.load %A[%n * %m, 0] : memref<16x16xf32>"))
    with pytest.raises(ParseError, match="expected 1 dimension and 0 symbol operands"):
        parse(_module("%0 = affine.apply affine_map<(d0) -> (d0)>(%n, %m)"))
    with pytest.raises(ParseError, match="requires 'min' prefix"):
        parse(_module("affine.for %i = 0 to affine_map<()[s0] -> (s0, 4)>()[%n] {\n}"))
    with pytest.raises(ParseError, match="expected a positive step, got 0"):
        parse(_module("affine.for %i = 0 to 4 step 0 {\n}"))


def test_builders_make_the_same_ir_as_the_parser():
    memref_type = MemRefType((16, 16), f32)
    function = func.FuncOp.build("f", FunctionType([memref_type, index, index, f32], []))
    A, n, m, x = function.arguments
    b = Builder.at_end(function.entry_block)
    outer = b.insert(affine.AffineForOp.build(0, n, step=2))
    with b.at(b.insertion_point.before(outer.body.terminator)):
        i = outer.induction_var
        inner = b.insert(affine.AffineForOp.build((AffineMap(1, 0, (d(0),)), [i]), 16, inits=[x]))
    with b.at(b.insertion_point.at_end(inner.body)):
        j = inner.induction_var
        subscripts = parse_affine_map("(d0, d1)[s0] -> (d0 + s0, d1)")
        load = b.insert(affine.AffineLoadOp.build(A, subscripts, [i, j, m]))
        b.insert(affine.AffineYieldOp.build([load.result]))
    condition = IntegerSet(1, 0, (d(0) - 4,), (False,))
    branch = b.insert(affine.AffineIfOp.build(condition, [n]))
    with b.at(b.insertion_point.before(branch.then_block.terminator)):
        b.insert(affine.AffineStoreOp.build(x, A, AffineMap(0, 1, (s(0), 0)), [m]))
    b.insert(affine.AffineApplyOp.build(AffineMap(1, 0, (d(0) * 4,)), [n]))
    b.insert(func.ReturnOp.build())
    built = ModuleOp.build([function])
    built.verify()
    parsed = parse(
        _module(
            "affine.for %i = 0 to %n step 2 {\n"
            "  %0 = affine.for %j = affine_map<(d0) -> (d0)>(%i) to 16 "
            "iter_args(%a = %x) -> (f32) {\n"
            "    %1 = affine.load %A[%i + symbol(%m), %j] : memref<16x16xf32>\n"
            "    affine.yield %1 : f32\n  }\n}\n"
            "affine.if affine_set<(d0) : (d0 - 4 >= 0)>(%n) {\n"
            "  affine.store %x, %A[symbol(%m), 0] : memref<16x16xf32>\n}\n"
            "%2 = affine.apply affine_map<(d0) -> (d0 * 4)>(%n)"
        )
    )
    assert ir_equal(built, parsed)


def test_min_max_apply_builders():
    i, n = Block([index, index]).arguments
    two = parse_affine_map("(d0)[s0] -> (32, s0 - d0)")
    assert affine.AffineMinOp.build(two, [i, n]).map == two
    assert affine.AffineMaxOp.build(two, [i, n]).result.type == index


VERIFY_CASES = [
    (
        "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
        "scf.for %k = %c0 to %n step %c1 {\n  %0 = affine.load %A[%k, 0] : memref<16x16xf32>\n}",
        "operand #0 of the subscript map cannot be used as a dimension",
    ),
    (
        "affine.for %i = 0 to 4 {\n  affine.for %j = 0 to %i {\n  }\n}",
        "operand #0 of the 'upperBoundMap' cannot be used as a symbol",
    ),
    (
        "affine.for %i = 0 to 4 {\n  %k = arith.addi %i, %i : index\n"
        "  affine.store %x, %A[%k, 0] : memref<16x16xf32>\n}",
        "cannot be used as a dimension",
    ),
    (
        '%0 = "affine.load"(%A, %n) <{map = affine_map<(d0) -> (d0)>}> : '
        "(memref<16x16xf32>, index) -> f32",
        "expected 2 subscripts (the rank of memref<16x16xf32>), got a map with 1 results",
    ),
    (
        '%0 = "affine.load"(%A, %n) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : '
        "(memref<16x16xf32>, index) -> f32",
        "expected 2 map operands for (d0, d1) -> (d0, d1), got 1",
    ),
    (
        '"affine.store"(%n, %A, %n, %n) <{map = affine_map<(d0, d1) -> (d0, d1)>}> : '
        "(index, memref<16x16xf32>, index, index) -> ()",
        "expected a value of type f32 (the element type), got index",
    ),
    (
        '%0 = "affine.apply"(%n) <{map = affine_map<(d0) -> (d0, d0)>}> : (index) -> index',
        "expected a map with one result, got (d0) -> (d0, d0)",
    ),
    (
        '"affine.for"() <{lowerBoundMap = affine_map<() -> (0)>, operandSegmentSizes = '
        "array<i32: 0, 0, 0>, step = -1 : index, upperBoundMap = affine_map<() -> (4)>}> ({\n"
        "^bb0(%i: index):\n  affine.yield\n}) : () -> ()",
        "expected a positive 'step' of index type, got -1 : index",
    ),
    (
        '"affine.for"(%n) <{lowerBoundMap = affine_map<() -> (0)>, operandSegmentSizes = '
        "array<i32: 0, 1, 0>, step = 1 : index, upperBoundMap = affine_map<() -> (4)>}> ({\n"
        "^bb0(%i: index):\n  affine.yield\n}) : (index) -> ()",
        "expected 0 operands for 'upperBoundMap' () -> (4) (its dimensions and symbols), got 1",
    ),
    (
        "%0 = affine.for %i = 0 to 4 iter_args(%a = %x) -> (f32) {\n  affine.yield %n : index\n}",
        "expected 'affine.yield' to pass (f32) (the iter_args' types), got (index)",
    ),
    (
        '%0 = "affine.if"(%n) <{condition = affine_set<(d0) : (d0 >= 0)>}> ({\n'
        "  affine.yield %x : f32\n}, {\n}) : (index) -> f32",
        "expected an 'else' region, since the op has results (f32)",
    ),
    (
        "scf.execute_region {\n  affine.yield\n}",
        "expected to be inside affine.for, affine.if, affine.parallel, got 'scf.execute_region'",
    ),
]


@pytest.mark.parametrize(("body", "message"), VERIFY_CASES)
def test_verifier_messages(body, message):
    assert_verify_error(_module(body), message)


def test_which_values_are_dimensions_and_symbols():
    module = parse(
        _module(
            "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"
            "affine.for %i = 0 to 4 {\n"
            "  %a = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)\n"
            "  %b = affine.apply affine_map<()[s0] -> (s0 + 1)>()[%n]\n"
            "  %c = affine.min affine_map<(d0) -> (d0, 4)>(%i)\n"
            "  %d = memref.dim %A, %i : memref<16x16xf32>\n"
            "  %e = arith.addi %n, %n : index\n"
            "  %k = arith.constant 7 : index\n"
            "}\n"
            "scf.for %j = %c0 to %n step %c1 {\n}"
        )
    )
    loop = first_op_named(module, "affine.for")
    a, b, c, dim, e, k = (op.result for op in loop.body.ops[:-1])
    i = loop.induction_var
    j = first_op_named(module, "scf.for").induction_var
    n = first_op_named(module, "func.func").arguments[1]
    assert [is_valid_symbol(v) for v in (n, i, a, b, c, dim, e, k, j)] == [
        True, False, False, True, False, True, False, True, False,
    ]  # fmt: skip
    assert [is_valid_dim(v) for v in (n, i, a, b, c, dim, e, k, j)] == [
        True, True, True, True, False, True, False, True, False,
    ]  # fmt: skip

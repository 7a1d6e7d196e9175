"""The verifier: one test per rule, each checking the message a student would read."""

from __future__ import annotations

import pytest

from tinycomp.dialects import arith, func
from tinycomp.ir import (
    Block,
    Builder,
    FunctionType,
    ModuleOp,
    Operation,
    VerifyError,
    f32,
    i32,
    parse,
    verify,
)


def verify_error(text: str) -> VerifyError:
    """Parse without verifying, then verify, expecting a ``VerifyError``."""
    module = parse(text, verify=False)
    with pytest.raises(VerifyError) as caught:
        verify(module)
    return caught.value


RULES = {
    # 1a. counts declared by the op class
    "operand count": (
        'func.func @f(%a: f32) {\n  %0 = "arith.addf"(%a) : (f32) -> f32\n  return\n}',
        "'arith.addf' at line 2: expected 2 operands, got 1",
    ),
    "successor count": (
        'func.func @f() {\n  "cf.br"() : () -> ()\n}',
        "'cf.br' at line 2: expected 1 successor, got 0",
    ),
    # 1b. successors
    "successor not last": (
        'func.func @f() {\n  "cf.br"()[^bb1] : () -> ()\n  return\n^bb1:\n  return\n}',
        "'cf.br' at line 2: a terminator must be the last operation of its block",
    ),
    "successor in another region": (
        '"t.outer"() ({\n  "t.br"()[^bb1] : () -> ()\n}, {\n^bb1:\n  "t.end"() : () -> ()\n})'
        " : () -> ()",
        "'t.br' at line 2: reference",  # the parser catches it: see test below
    ),
    "branch to entry": (
        "func.func @f() {\n^bb0:\n  cf.br ^bb0\n}",
        "successor #0 is the entry block, which may not have predecessors",
    ),
    "successor operand count": (
        'func.func @f(%a: f32) {\n  "cf.br"()[^bb1] : () -> ()\n^bb1(%x: f32):\n  return\n}',
        "'cf.br' at line 2: expected 1 operands for successor #0 (its block arguments), got 0",
    ),
    "successor operand type": (
        "func.func @f(%a: i32) {\n  cf.br ^bb1(%a : i32)\n^bb1(%x: f32):\n  return\n}",
        "'cf.br' at line 2: expected type f32 for block argument #0 of successor #0, got i32",
    ),
    # 1c. terminators
    "empty block": (
        '"func.func"() <{function_type = () -> (), sym_name = "f"}> ({\n^bb0:\n}) : () -> ()',
        "'func.func' at line 1: empty block #0 in a region: expected at least a terminator",
    ),
    "missing terminator": (
        "func.func @f(%a: f32) {\n  %0 = arith.addf %a, %a : f32\n}",
        "'arith.addf' at line 2: expected a terminator at the end of block #0 of 'func.func', "
        "found 'arith.addf'",
    ),
    "terminator in the middle": (
        "func.func @f() {\n  return\n  return\n}",
        "'func.return' at line 2: a terminator must be the last operation of its block",
    ),
    # 1d. op invariants
    "operand types": (
        'func.func @f(%a: f32, %b: f16) {\n  %0 = "arith.addf"(%a, %b) : (f32, f16) -> f32\n'
        "  return\n}",
        "'arith.addf' at line 2: expected operand and result types to match, got f32 and f16",
    ),
    "float op on integers": (
        "func.func @f(%a: i32) {\n  %0 = arith.addf %a, %a : i32\n  return\n}",
        "expected a float or a vector/tensor of floats, got i32",
    ),
    "compare predicate": (
        'func.func @f(%a: i32) {\n  %0 = "arith.cmpi"(%a, %a) {predicate = 12 : i64} : '
        "(i32, i32) -> i1\n  return\n}",
        "expected a 'predicate' integer attribute in 0..9, got 12 : i64",
    ),
    "compare result": (
        'func.func @f(%a: vector<4xi32>) {\n  %0 = "arith.cmpi"(%a, %a) {predicate = 0 : i64} : '
        "(vector<4xi32>, vector<4xi32>) -> i1\n  return\n}",
        "expected result type vector<4xi1>, got i1",
    ),
    "select condition": (
        'func.func @f(%c: i32, %a: f32) {\n  %0 = "arith.select"(%c, %a, %a) : (i32, f32, f32)'
        " -> f32\n  return\n}",
        "'arith.select' at line 2: expected condition type i1, got i32",
    ),
    "widening cast": (
        "func.func @f(%a: f32) {\n  %0 = arith.extf %a : f32 to f16\n  return\n}",
        "'arith.extf' at line 2: expected a result type wider than f32, got f16",
    ),
    "cast shape": (
        "func.func @f(%a: vector<4xi32>) {\n  %0 = arith.sitofp %a : vector<4xi32> to f32\n"
        "  return\n}",
        "expected operand and result of the same shape, got vector<4xi32> and f32",
    ),
    "index cast": (
        "func.func @f(%a: i32) {\n  %0 = arith.index_cast %a : i32 to i64\n  return\n}",
        "expected exactly one side to be index, got i32 and i64",
    ),
    "constant type": (
        'func.func @f() {\n  %0 = "arith.constant"() {value = 1 : i32} : () -> i64\n  return\n}',
        "'arith.constant' at line 2: expected result type i32 (the value's), got i64",
    ),
    "function arguments": (
        '"func.func"() <{function_type = (i32) -> (), sym_name = "f"}> ({\n^bb0(%a: f32):\n'
        '  "func.return"() : () -> ()\n}) : () -> ()',
        "expected entry block arguments (i32) to match the function type, got (f32)",
    ),
    "public declaration": (
        '"func.func"() <{function_type = () -> (), sym_name = "f"}> ({\n}) : () -> ()',
        "'func.func' at line 1: symbol declaration cannot have public visibility",
    ),
    "return count": (
        "func.func @f(%a: f32) -> f32 {\n  return\n}",
        "'func.return' at line 2: has 0 operands, but enclosing function (@f) returns 1",
    ),
    "return type": (
        "func.func @f(%a: f32) -> i32 {\n  return %a : f32\n}",
        "type of return operand 0 (f32) doesn't match function result type (i32) in function @f",
    ),
    "return outside a function": (
        '"t.wrapper"() ({\n  "func.return"() : () -> ()\n}) : () -> ()',
        "'func.return' at line 2: expected to be inside 'func.func', got 't.wrapper'",
    ),
    # 2. dominance
    "use before definition in a block": (
        'func.func @f() {\n  "t.use"(%0) : (f32) -> ()\n  %0 = "t.def"() : () -> f32\n  return\n}',
        "'t.use' at line 2: operand #0 does not dominate this use: it is defined by 't.def' "
        "at line 3",
    ),
    "definition in a block that does not dominate": (
        "func.func @f(%c: i1) {\n  cf.cond_br %c, ^bb1, ^bb2\n^bb1:\n"
        '  %0 = "t.def"() : () -> f32\n  cf.br ^bb2\n^bb2:\n  "t.use"(%0) : (f32) -> ()\n'
        "  return\n}",
        "'t.use' at line 7: operand #0 does not dominate this use: it is defined by 't.def' "
        "at line 4",
    ),
    "nested region uses a later value": (
        'func.func @f() {\n  "t.region"() ({\n    "t.use"(%0) : (f32) -> ()\n  }) : () -> ()\n'
        '  %0 = "t.def"() : () -> f32\n  return\n}',
        "'t.use' at line 3: operand #0 does not dominate this use",
    ),
    "isolated from above": (
        'func.func @outer() {\n  %0 = "t.def"() : () -> f32\n  "t.holder"() ({\n'
        '    func.func @inner() {\n      "t.use"(%0) : (f32) -> ()\n      return\n    }\n'
        "  }) : () -> ()\n  return\n}",
        "'t.use' at line 5: operand #0 is defined by 't.def' at line 2, outside the "
        "isolated-from-above 'func.func' at line 4",
    ),
    # 3. symbols
    "undefined callee": (
        "func.func @f() {\n  call @missing() : () -> ()\n  return\n}",
        "'func.call' at line 2: '@missing' does not reference a valid function",
    ),
    "call operand type": (
        "func.func private @g(f32)\nfunc.func @f(%a: i32) {\n  call @g(%a) : (i32) -> ()\n"
        "  return\n}",
        "'func.call' at line 3: expected operand #0 of type f32, got i32",
    ),
    "call results": (
        "func.func private @g() -> f32\nfunc.func @f() {\n  call @g() : () -> ()\n  return\n}",
        "expected results (f32) of @g, got ()",
    ),
    "symbol redefinition": (
        "func.func private @g()\nfunc.func private @g()",
        "'func.func' at line 2: redefinition of symbol '@g'",
    ),
}


@pytest.mark.parametrize("rule", [r for r in RULES if r != "successor in another region"])
def test_rule(rule):
    text, message = RULES[rule]
    error = verify_error(text)
    assert message in error.message, error.message
    assert error.op is not None
    printed_op = str(error).splitlines()[1]
    assert printed_op.startswith("  ") and '"' in printed_op  # the op, in generic form


def test_successor_in_another_region_is_caught():
    region_block = Block()
    other = Block()
    branch = Operation.create("t.br", successors=[other])
    region_block.append(branch)
    module = ModuleOp.build()
    holder = Operation.create("t.outer", regions=[_region(region_block), _region(other)])
    other.append(Operation.create("t.end"))
    module.body.append(holder)
    with pytest.raises(VerifyError, match="'t.br': successor #0 is not a block of the same region"):
        verify(module)


def _region(block):
    from tinycomp.ir import Region

    return Region([block])


def test_attribute_values_must_be_attributes():
    module = parse("func.func @f() {\n  return\n}")
    module.body.first_op.attributes["oops"] = 3
    with pytest.raises(VerifyError, match="expected attribute 'oops' to be an Attribute, got 3"):
        verify(module)


def test_using_a_value_of_an_erased_op():
    function = func.FuncOp.build("f", FunctionType([], [f32]))
    builder = Builder.at_end(function.entry_block)
    constant = builder.insert(arith.ConstantOp.build(1.0, f32))
    builder.insert(func.ReturnOp.build([constant.result]))
    constant.detach()
    with pytest.raises(VerifyError, match="operand #0 is not defined in the IR"):
        verify(ModuleOp.build([function]))


def test_unreachable_blocks_have_no_dominance_requirement():
    module = parse(
        "func.func @f() {\n  return\n^bb1:\n  %0 = arith.addi %1, %1 : i32\n  cf.br ^bb2\n"
        "^bb2:\n  %1 = arith.constant 1 : i32\n  cf.br ^bb1\n}"
    )
    assert module.body.first_op.name == "func.func"


def test_graph_regions_allow_any_order():
    module = parse('"t.use"(%0) : (i32) -> ()\n%0 = "t.def"() : () -> i32')
    verify(module)


def test_unregistered_ops_may_end_blocks_and_hold_unterminated_regions():
    text = (
        'func.func @f() {\n  "t.region"() ({\n    "t.op"() : () -> ()\n  }) : () -> ()\n'
        '  "t.exit"() : () -> ()\n}'
    )
    verify(parse(text))


def test_error_without_location_has_no_line():
    function = func.FuncOp.build("f", FunctionType([i32], []))
    a = function.arguments[0]
    builder = Builder.at_end(function.entry_block)
    builder.insert(arith.AddFOp.build(a, a))
    builder.insert(func.ReturnOp.build())
    with pytest.raises(VerifyError) as caught:
        verify(ModuleOp.build([function]))
    assert caught.value.message.startswith("'arith.addf': expected a float")


def test_parse_verifies_by_default():
    with pytest.raises(VerifyError, match="has 0 operands"):
        parse("func.func @f() -> f32 {\n  return\n}")


def test_use_of_a_value_from_a_sibling_region_says_the_region_does_not_enclose_it():
    module = parse(
        """func.func @f(%n: index) -> index {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = arith.addi %i, %i : index
  }
  return %c0 : index
}"""
    )
    loop = next(op for op in module.walk() if op.name == "scf.for")
    inner = loop.regions[0].blocks[0].first_op.result
    ret = next(op for op in module.walk() if op.name == "func.return")
    ret.set_operand(0, inner)
    with pytest.raises(VerifyError, match="in a region that does not enclose this op"):
        module.verify()

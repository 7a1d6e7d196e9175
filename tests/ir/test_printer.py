"""The printer: MLIR's naming scheme, generic form, default dialects, locations."""

from __future__ import annotations

from tinycomp.dialects import arith, func
from tinycomp.ir import (
    Block,
    Builder,
    FunctionType,
    Location,
    ModuleOp,
    Operation,
    f32,
    i32,
    index,
    parse,
    print_ir,
)
from tinycomp.ir.printer import print_op_summary


def single_function(*ops_text: str, args: str = "%arg0: f32") -> str:
    body = "\n".join(f"    {line}" for line in ops_text)
    return f"module {{\n  func.func @f({args}) {{\n{body}\n  }}\n}}"


def test_name_hints_are_deduplicated_like_mlir_names():
    function = func.FuncOp.build("f", FunctionType([f32], []))
    (x,) = function.arguments
    b = Builder.at_end(function.entry_block)
    for _ in range(3):
        b.insert(arith.NegFOp.build(x)).result.name_hint = "sum"
    b.insert(arith.NegFOp.build(x)).result.name_hint = "my sum!"
    b.insert(func.ReturnOp.build())
    assert print_ir(ModuleOp.build([function])) == single_function(
        "%sum = arith.negf %arg0 : f32",
        "%sum_0 = arith.negf %arg0 : f32",
        "%sum_1 = arith.negf %arg0 : f32",
        "%my_sum_ = arith.negf %arg0 : f32",
        "return",
    )


def test_constants_get_mlir_names():
    function = func.FuncOp.build("f", FunctionType([], []))
    b = Builder.at_end(function.entry_block)
    for value, value_type in [(0, index), (0, index), (-3, i32), (True, None), (2.0, f32)]:
        b.insert(arith.ConstantOp.build(value, value_type))
    b.insert(func.ReturnOp.build())
    assert print_ir(ModuleOp.build([function])) == single_function(
        "%c0 = arith.constant 0 : index",
        "%c0_0 = arith.constant 0 : index",
        "%c-3_i32 = arith.constant -3 : i32",
        "%true = arith.constant true",
        "%cst = arith.constant 2.000000e+00 : f32",
        "return",
        args="",
    )


def test_generic_form_uses_numbers_and_full_names():
    module = parse(single_function("%c1 = arith.constant 1 : index", "return"))
    assert print_ir(module, generic=True) == (
        '"builtin.module"() ({\n'
        '  "func.func"() <{function_type = (f32) -> (), sym_name = "f"}> ({\n'
        "  ^bb0(%arg0: f32):\n"
        '    %0 = "arith.constant"() <{value = 1 : index}> : () -> index\n'
        '    "func.return"() : () -> ()\n'
        "  }) : () -> ()\n"
        "}) : () -> ()"
    )


def test_default_dialect_prefix_is_dropped_only_inside_its_op():
    module = parse(
        'func.func @f() {\n  "t.wrap"() ({\n    func.return\n  }) : () -> ()\n  func.return\n}',
        verify=False,
    )
    text = print_ir(module)
    assert "    return\n" in text
    assert '"func.return"() : () -> ()' in text  # inside t.wrap: invalid there, so generic


def test_invalid_ops_print_in_generic_form():
    block = Block([f32, i32])
    x, n = block.arguments
    bad = arith.AddFOp([x, n], [f32])
    assert (
        print_ir(bad)
        == '%0 = "arith.addf"(<<UNKNOWN SSA VALUE>>, <<UNKNOWN SSA VALUE>>) : (f32, i32) -> f32'
    )


def test_printing_one_op_uses_the_numbering_of_its_function():
    module = parse(
        single_function("%0 = arith.negf %arg0 : f32", "%1 = arith.negf %0 : f32", "return")
    )
    second = module.body.first_op.entry_block.ops[1]
    assert str(second) == "%1 = arith.negf %0 : f32"
    assert print_op_summary(module.body.first_op) == (
        '"func.func"() <{function_type = (f32) -> (), sym_name = "f"}> ({...}) : () -> ()'
    )


def test_locations_are_printed_only_when_asked():
    op = Operation.create("t.op", location=Location("a b.py", 3, 7))
    assert print_ir(op) == '"t.op"() : () -> ()'
    assert print_ir(op, locations=True) == '"t.op"() : () -> () loc("a b.py":3:7)'


def test_parser_records_op_positions():
    module = parse('\n  "t.op"() : () -> ()', filename="input.mlir")
    assert module.body.first_op.location == Location("input.mlir", 2, 3)


def test_affine_maps_get_aliases_in_first_use_order():
    text = (
        '"t.a"() {m = affine_map<(d0) -> (d0 + 1)>} : () -> ()\n'
        '"t.b"() {m = affine_map<(d0) -> (d0)>, n = affine_set<(d0) : (d0 >= 0)>} : () -> ()\n'
        '"t.c"() {m = affine_map<(d0) -> (d0 + 1)>, s = "affine_map<(d0) -> (d0)>"} : () -> ()'
    )
    assert print_ir(parse(text)) == (
        "#map = affine_map<(d0) -> (d0 + 1)>\n"
        "#map1 = affine_map<(d0) -> (d0)>\n"
        "#set = affine_set<(d0) : (d0 >= 0)>\n"
        "module {\n"
        '  "t.a"() {m = #map} : () -> ()\n'
        '  "t.b"() {m = #map1, n = #set} : () -> ()\n'
        '  "t.c"() {m = #map, s = "affine_map<(d0) -> (d0)>"} : () -> ()\n'
        "}"
    )
    assert "#map" not in print_ir(parse(text), aliases=False)


def test_aliases_and_locations_defined_at_the_bottom_parse():
    text = (
        "#map = affine_map<(d0) -> (d0)>\n"
        'module {\n  "t.a"() {m = #map} : () -> () loc(#loc1)\n} loc(#loc)\n'
        '#loc = loc("x.mlir":1:1)\n#loc1 = loc("x.mlir":2:3)'
    )
    module = parse(text)
    assert module.body.first_op.location == Location("x.mlir", 2, 3)
    assert module.location == Location("x.mlir", 1, 1)


def test_block_names_and_predecessor_comments():
    text = (
        "module {\n  func.func @f(%arg0: i1) {\n    cf.cond_br %arg0, ^bb1, ^bb2\n"
        "  ^bb1:  // pred: ^bb0\n    cf.br ^bb2\n  ^bb2:  // 2 preds: ^bb0, ^bb1\n    return\n"
        "  ^bb3:  // no predecessors\n    return\n  }\n}"
    )
    assert print_ir(parse(text)) == text

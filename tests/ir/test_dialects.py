"""The builtin, func, arith and cf op classes: builders, accessors, registry hygiene."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.dialects import arith, cf, func
from tinycomp.ir import (
    Block,
    BoolAttr,
    DenseElementsAttr,
    Dialect,
    FloatAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    Operation,
    RankedTensorType,
    VectorType,
    bf16,
    builtin,
    f32,
    i1,
    i32,
    index,
    lookup_op_class,
    parse,
    print_ir,
    register_dialect,
)
from tinycomp.ir.registry import registered_dialects


def test_constant_builder_accepts_python_numpy_and_attributes():
    assert arith.ConstantOp.build(3, i32).value == IntegerAttr(3, i32)
    assert arith.ConstantOp.build(0.5, bf16).value == FloatAttr(0.5, bf16)
    assert arith.ConstantOp.build(True).value == BoolAttr(True)
    assert arith.ConstantOp.build(1, i1).result.type == i1
    tensor = RankedTensorType((2,), f32)
    dense = arith.ConstantOp.build(np.array([1.0, 2.0]), tensor)
    assert isinstance(dense.value, DenseElementsAttr) and dense.result.type == tensor
    assert arith.ConstantOp.build(IntegerAttr(7, index)).result.type == index
    with pytest.raises(ValueError, match="expected a type"):
        arith.ConstantOp.build(1.0)


def test_binary_builders_and_flags():
    a, b = Block([i32, i32]).arguments
    add = arith.AddIOp.build(a, b, overflow="nuw,nsw")
    assert (add.lhs, add.rhs) == (a, b)
    assert str(add.attributes["overflowFlags"]) == "#arith.overflow<nsw, nuw>"
    with pytest.raises(ValueError, match="'arith.divsi' takes no overflow flags"):
        arith.DivSIOp.build(a, b, overflow="nsw")
    x = Block([f32]).arguments[0]
    mul = arith.MulFOp.build(x, x, fastmath="nnan,ninf,reassoc,nsz,arcp,contract,afn")
    assert str(mul.attributes["fastmath"]) == "#arith.fastmath<fast>"
    assert arith.NegFOp.build(x).operand_value is x


def test_comparisons_and_select():
    x, y = Block([VectorType((4,), f32)] * 2).arguments
    cmp = arith.CmpFOp.build("ult", x, y, fastmath="fast")
    assert cmp.predicate == "ult" and cmp.result.type == VectorType((4,), i1)
    select = arith.SelectOp.build(cmp.result, x, y)
    assert (select.condition, select.true_value, select.false_value) == (cmp.result, x, y)
    with pytest.raises(ValueError, match="expected one of eq, ne"):
        arith.CmpIOp.build("olt", x, y)
    with pytest.raises(ValueError, match="takes no fastmath"):
        arith.CmpIOp.build("eq", x, y, fastmath="fast")


def test_cast_builder_keeps_the_shape():
    (v,) = Block([VectorType((4,), i32)]).arguments
    assert arith.SIToFPOp.build(v, f32).result.type == VectorType((4,), f32)
    assert arith.IndexCastOp.build(v, VectorType((4,), index)).source is v


def test_func_builders():
    decl = func.FuncOp.build(
        "ext", FunctionType([f32], [f32]), visibility="private", declaration=True
    )
    assert decl.is_declaration and decl.visibility == "private" and decl.sym_name == "ext"
    main = func.FuncOp.build("main", FunctionType([f32], [f32]))
    (x,) = main.arguments
    call = func.CallOp.build(decl, [x])
    assert call.callee == "ext" and call.result.type == f32
    main.entry_block.append(call)
    main.entry_block.append(func.ReturnOp.build([call.result]))
    module = ModuleOp.build([decl, main], name="m")
    module.verify()
    assert module.sym_name == "m"
    assert "%0 = call @ext(%arg0) : (f32) -> f32" in print_ir(module)
    with pytest.raises(ValueError, match="expected result_types"):
        func.CallOp.build("ext", [x])


def test_unrealized_conversion_cast():
    (x,) = Block([i32]).arguments
    cast = builtin.UnrealizedConversionCastOp.build([x], [f32, index])
    assert cast.result_types == (f32, index)
    # Printed on its own (no enclosing op), builtin ops lose their prefix, as in MLIR.
    expected = "%0:2 = unrealized_conversion_cast <<UNKNOWN SSA VALUE>> : i32 to f32, index"
    assert print_ir(cast) == expected


def test_cond_br_checks_its_segment_sizes():
    module = parse(
        'func.func @f(%c: i1) {\n  "cf.cond_br"(%c)[^bb1, ^bb1] : (i1) -> ()\n^bb1:\n  return\n}',
        verify=False,
    )
    with pytest.raises(Exception, match="operandSegmentSizes"):
        module.verify()
    assert cf.CondBranchOp.build(Block([i1]).arguments[0], Block(), [], Block()).condition


CORE_DIALECTS = [builtin.BUILTIN, func.FUNC, arith.ARITH, cf.CF]
REGISTERED = [op for dialect in CORE_DIALECTS for op in dialect.ops]


@pytest.mark.parametrize("op_class", REGISTERED, ids=lambda c: c.name)
def test_every_registered_op_is_documented_and_consistent(op_class):
    assert lookup_op_class(op_class.name) is op_class
    short_name = op_class.name.split(".", 1)[1]
    assert op_class.__doc__ and f"{short_name} " in op_class.__doc__  # an IR example
    overrides_print = op_class.print_custom is not Operation.print_custom
    overrides_parse = op_class.parse_custom.__func__ is not Operation.parse_custom.__func__
    assert op_class.has_custom_syntax == overrides_print == overrides_parse
    assert callable(getattr(op_class, "build", None))


def test_core_dialects_are_registered():
    assert set(registered_dialects()) >= {"builtin", "func", "arith", "cf"}


def test_registering_a_second_class_for_a_name_fails():
    class Impostor(Operation):
        """Not really ``arith.addf``."""

        name = "arith.addf"

    with pytest.raises(ValueError, match="already registered"):
        register_dialect(Dialect("arith", [Impostor]))
    with pytest.raises(ValueError, match="does not belong to dialect"):
        register_dialect(Dialect("other", [arith.AddFOp]))


def test_unknown_custom_op_message_suggests_the_generic_form():
    with pytest.raises(Exception, match='use the generic form "nope.for"'):
        parse("func.func @f() {\n  nope.for\n}")

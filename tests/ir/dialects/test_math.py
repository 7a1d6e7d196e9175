"""The math dialect: every op prints and parses as MLIR writes it; builders; verifier."""

from __future__ import annotations

import pytest

from tinycomp.dialects import math
from tinycomp.dialects.arith.binary import FloatBinaryOp, FloatUnaryOp
from tinycomp.ir import Block, OpaqueAttr, VectorType, f32, i32, ir_equal, parse, print_ir

from .roundtrip import assert_round_trip, assert_verify_error, first_op_named, in_function


def _snippet(op_class) -> tuple[str, str]:
    """A function signature and one use of ``op_class``, as the printer writes them."""
    name = op_class.name
    if issubclass(op_class, FloatUnaryOp):
        return "(%x: f32) -> f32", f"%0 = {name} %x : f32\nreturn %0 : f32"
    if issubclass(op_class, FloatBinaryOp):
        return "(%x: f32, %y: f32) -> f32", f"%0 = {name} %x, %y : f32\nreturn %0 : f32"
    if op_class is math.FmaOp:
        return "(%x: f32, %y: f32) -> f32", f"%0 = {name} %x, %y, %x : f32\nreturn %0 : f32"
    if op_class is math.IPowIOp:
        return "(%i: i32) -> i32", f"%0 = {name} %i, %i : i32\nreturn %0 : i32"
    return "(%i: i32) -> i32", f"%0 = {name} %i : i32\nreturn %0 : i32"


@pytest.mark.parametrize("op_class", math.MATH_OPS, ids=lambda c: c.name)
def test_every_op_round_trips(op_class):
    module = assert_round_trip(in_function(*_snippet(op_class)))
    assert type(first_op_named(module, op_class.name)) is op_class


def test_fastmath_flags_print_in_mlir_order_and_none_is_left_out():
    text = in_function(
        "(%x: vector<4xf32>) -> vector<4xf32>",
        """
        %0 = math.exp %x fastmath<ninf, nnan> : vector<4xf32>
        %1 = math.tanh %0 fastmath<none> : vector<4xf32>
        %2 = math.sqrt %1 fastmath<nnan,ninf,reassoc,nsz,arcp,contract,afn> : vector<4xf32>
        return %2 : vector<4xf32>
        """,
    )
    printed = print_ir(parse(text))
    assert "math.exp %x fastmath<nnan,ninf> : vector<4xf32>" in printed
    assert "math.tanh %0 : vector<4xf32>" in printed
    assert "math.sqrt %1 fastmath<fast> : vector<4xf32>" in printed
    generic = print_ir(parse(text), generic=True)
    assert '"math.exp"(%x) <{fastmath = #arith.fastmath<nnan,ninf>}>' in generic


def test_an_explicit_none_flag_equals_no_flag():
    none = "<{fastmath = #arith.fastmath<none>}>"
    body = '%0 = "math.exp"(%x) FLAGS : (f32) -> f32\nreturn'
    with_none = parse(in_function("(%x: f32)", body.replace("FLAGS", none)))
    without = parse(in_function("(%x: f32)", body.replace("FLAGS ", "")))
    assert first_op_named(with_none, "math.exp").attributes["fastmath"] == OpaqueAttr(
        "#arith.fastmath<none>"
    )
    assert "fastmath" not in first_op_named(without, "math.exp").attributes
    assert ir_equal(with_none, without)  # the documented default counts as present
    assert print_ir(with_none) == print_ir(without)


def test_builders_infer_result_types_and_flags():
    x, y, z = Block([f32, f32, f32]).arguments
    exp = math.ExpOp.build(x, fastmath="fast")
    assert exp.result.type == f32
    assert exp.attributes["fastmath"] == OpaqueAttr("#arith.fastmath<fast>")
    assert math.ExpOp.build(x).attributes == {}
    fma = math.FmaOp.build(x, y, z, fastmath="contract")
    assert fma.operands == (x, y, z) and fma.result.type == f32
    (v,) = Block([VectorType((8,), i32)]).arguments
    assert math.CtPopOp.build(v).result.type == VectorType((8,), i32)
    assert math.IPowIOp.build(v, v).result.type == VectorType((8,), i32)
    assert math.PowFOp.build(x, y).lhs is x


def test_ops_built_with_the_builder_equal_parsed_ones():
    from tinycomp.dialects import func
    from tinycomp.ir import Builder, FunctionType, ModuleOp

    function = func.FuncOp.build("f", FunctionType([f32, f32], [f32]))
    b = Builder.at_end(function.entry_block)
    x, y = function.arguments
    e = b.insert(math.ErfOp.build(x)).result
    r = b.insert(math.FmaOp.build(e, y, x, fastmath="afn")).result
    b.insert(func.ReturnOp.build([r]))
    built = ModuleOp.build([function])
    parsed = parse(
        in_function(
            "(%a: f32, %b: f32) -> f32",
            """
            %e = math.erf %a : f32
            %r = math.fma %e, %b, %a fastmath<afn> : f32
            return %r : f32
            """,
        )
    )
    assert ir_equal(built, parsed)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (
            '%0 = "math.absf"(%i) : (i32) -> i32',
            "'math.absf' at line 3: expected a float or a vector/tensor of floats, got i32",
        ),
        (
            '%0 = "math.absi"(%x) : (f32) -> f32',
            "expected an integer, index or a vector/tensor of them, got f32",
        ),
        (
            '%0 = "math.fma"(%x, %x, %h) : (f32, f32, f16) -> f32',
            "expected operand and result types to match, got f32 and f16",
        ),
        (
            '%0 = "math.powf"(%x) : (f32) -> f32',
            "expected 2 operands, got 1",
        ),
    ],
)
def test_verifier_messages(body, message):
    assert_verify_error(in_function("(%x: f32, %h: f16, %i: i32)", body + "\nreturn"), message)


def test_custom_form_needs_the_right_operand_count():
    with pytest.raises(Exception, match="expected 3 operands"):
        parse(in_function("(%x: f32)", "%0 = math.fma %x, %x : f32\nreturn"))


def test_half_precision_types():
    assert_round_trip(
        in_function(
            "(%x: f16, %t: tensor<2x?xbf16>) -> (f16, tensor<2x?xbf16>)",
            """
            %0 = math.cos %x : f16
            %1 = math.rsqrt %t fastmath<afn> : tensor<2x?xbf16>
            return %0, %1 : f16, tensor<2x?xbf16>
            """,
        )
    )

"""Constant folding computes exactly what the program would: checked against numpy."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tinycomp.dialects.arith import CmpIOp, ConstantOp
from tinycomp.ir import (
    Block,
    Builder,
    DenseElementsAttr,
    FloatAttr,
    IntegerAttr,
    Operation,
    VectorType,
    bf16,
    f16,
    f32,
    i1,
    i8,
    i16,
    i32,
    i64,
    index,
    parse,
    to_numpy_dtype,
)
from tinycomp.rewrite import FOLDERS, apply_patterns_greedily, fold_op

RNG = np.random.default_rng(20240601)


def build_on_constants(op_name: str, values: list, value_type, result_type=None) -> Operation:
    """``op_name`` applied to constants holding ``values`` (all of ``value_type``)."""
    builder = Builder.at_end(Block())
    constants = [builder.insert(ConstantOp.build(v, value_type)).result for v in values]
    return builder.insert(Operation.create(op_name, constants, [result_type or value_type]))


def folded_number(op: Operation):
    (attr,) = fold_op(op)
    return attr.value


def bits_of(number, dtype) -> int:
    return int(np.asarray(number, dtype=dtype).view(f"u{np.dtype(dtype).itemsize}"))


@pytest.mark.parametrize("int_type", [i8, i16, i32, i64])
@pytest.mark.parametrize(
    "op_name, numpy_op",
    [("arith.addi", np.add), ("arith.subi", np.subtract), ("arith.muli", np.multiply)],
)
def test_integer_folds_wrap_around_like_numpy(int_type, op_name, numpy_op):
    dtype = to_numpy_dtype(int_type)
    info = np.iinfo(dtype)
    for _ in range(20):
        a, b = (int(v) for v in RNG.integers(info.min, info.max, size=2, endpoint=True))
        with np.errstate(over="ignore"):
            expected = int(numpy_op(dtype.type(a), dtype.type(b)))
        assert folded_number(build_on_constants(op_name, [a, b], int_type)) == expected


@pytest.mark.parametrize("float_type", [f16, bf16, f32])
@pytest.mark.parametrize(
    "op_name, numpy_op",
    [
        ("arith.addf", np.add),
        ("arith.subf", np.subtract),
        ("arith.mulf", np.multiply),
        ("arith.divf", np.divide),
    ],
)
def test_float_folds_round_to_the_type_like_numpy(float_type, op_name, numpy_op):
    dtype = to_numpy_dtype(float_type)
    for _ in range(20):
        a, b = (float(dtype.type(v)) for v in RNG.normal(0.0, 100.0, size=2))
        expected = numpy_op(dtype.type(a), dtype.type(b))
        folded = folded_number(build_on_constants(op_name, [a, b], float_type))
        assert bits_of(folded, dtype) == bits_of(expected, dtype), (a, b)


def test_comparisons_and_casts_fold_to_exact_types():
    for _ in range(20):
        a, b = (int(v) for v in RNG.integers(-(2**31), 2**31 - 1, size=2))
        builder = Builder.at_end(Block())
        ca = builder.insert(ConstantOp.build(a, i32)).result
        cb = builder.insert(ConstantOp.build(b, i32)).result
        signed = builder.insert(CmpIOp.build("slt", ca, cb))
        unsigned = builder.insert(CmpIOp.build("ult", ca, cb))
        assert folded_number(signed) == (a < b)
        assert folded_number(unsigned) == (np.uint32(a % 2**32) < np.uint32(b % 2**32))
        as_float = build_on_constants("arith.sitofp", [a], i32, f32)
        assert folded_number(as_float) == float(np.float32(a))
        as_index = build_on_constants("arith.index_cast", [a], i32, index)
        assert folded_number(as_index) == a
    value = float(RNG.normal())
    narrowed = build_on_constants("arith.truncf", [value], f32, bf16)
    assert folded_number(narrowed) == float(ml_dtypes.bfloat16(np.float32(value)))


def test_vector_constants_fold_elementwise():
    vector = VectorType((4,), i32)
    a = RNG.integers(-1000, 1000, size=4)
    b = RNG.integers(-1000, 1000, size=4)
    op = build_on_constants("arith.muli", [a, b], vector)
    (attr,) = fold_op(op)
    assert isinstance(attr, DenseElementsAttr)
    np.testing.assert_array_equal(attr.values, (a * b).astype(np.int32))


def test_undefined_cases_are_not_folded():
    assert fold_op(build_on_constants("arith.divsi", [7, 0], i32)) is None
    assert fold_op(build_on_constants("arith.remui", [7, 0], i32)) is None


def test_ops_without_constant_operands_or_folders_are_left_alone():
    builder = Builder.at_end(Block([i32]))
    x = builder.insertion_point.block.arguments[0]
    c = builder.insert(ConstantOp.build(1, i32)).result
    assert fold_op(builder.insert(Operation.create("arith.addi", [x, c], [i32]))) is None
    assert fold_op(builder.insert(Operation.create("test.op", [c], [i32]))) is None
    assert fold_op(builder.insert(ConstantOp.build(3, i32))) is None


def test_math_ops_fold_through_the_interpreter_rules():
    import tinycomp.dialects.math  # noqa: F401  (registers math)

    value = float(np.float32(abs(RNG.normal()) * 10))
    folded = folded_number(build_on_constants("math.sqrt", [value], f32))
    assert folded == float(np.sqrt(np.float32(value)))


def test_a_folder_can_be_added_to_the_table_for_any_op(monkeypatch):
    def fold_identity(op):
        """test.identity(x) -> x"""
        return [op.operands[0]]

    monkeypatch.setitem(FOLDERS, "test.identity", fold_identity)
    module = parse("""
func.func @f(%x: i32) -> i32 {
  %y = "test.identity"(%x) : (i32) -> i32
  return %y : i32
}""")
    result = apply_patterns_greedily(module, [])
    assert result.rewrites == {("folding", "test.identity"): 1}
    assert "test.identity" not in str(module)


def test_a_folder_returning_the_op_itself_is_ignored(monkeypatch):
    monkeypatch.setitem(FOLDERS, "test.self", lambda op: [op.results[0]])
    module = parse('func.func @f() -> i32 { %y = "test.self"() : () -> i32  return %y : i32 }')
    assert not apply_patterns_greedily(module, []).changed


@pytest.mark.parametrize("attr", [IntegerAttr(-5, i8), FloatAttr(0.1, f16)])
def test_attr_value_round_trip(attr):
    from tinycomp.rewrite.constant_eval import attr_to_value, value_to_attr

    assert value_to_attr(attr_to_value(attr), attr.type) == attr


def test_bool_results_are_bool_attrs():
    from tinycomp.rewrite.constant_eval import value_to_attr

    assert str(value_to_attr(np.bool_(True), i1)) == "true"

"""Attributes: MLIR spelling, normalization, equality, and parse round trips."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.ir import (
    ArrayAttr,
    BoolAttr,
    DenseArrayAttr,
    DenseElementsAttr,
    DictionaryAttr,
    FloatAttr,
    IntegerAttr,
    OpaqueAttr,
    RankedTensorType,
    StridedLayoutAttr,
    StringAttr,
    SymbolRefAttr,
    TypeAttr,
    UnitAttr,
    VectorType,
    bf16,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    i64,
    index,
    parse_attribute,
)
from tinycomp.ir.attributes import quote_string
from tinycomp.ir.float_format import format_float
from tinycomp.ir.lexer import decode_string

from .strategies import attributes

SPELLINGS = [
    (IntegerAttr(4, i32), "4 : i32"),
    (IntegerAttr(4, index), "4 : index"),
    (IntegerAttr(-1), "-1 : i64"),
    (FloatAttr(1.0, f32), "1.000000e+00 : f32"),
    (FloatAttr(0.1, f64), "1.000000e-01 : f64"),
    (FloatAttr(float("inf"), f16), "0x7C00 : f16"),
    (BoolAttr(True), "true"),
    (StringAttr('a"b\n'), '"a\\22b\\0A"'),
    (UnitAttr(), "unit"),
    (ArrayAttr([IntegerAttr(1, i8), StringAttr("x")]), '[1 : i8, "x"]'),
    (
        DictionaryAttr({"z": UnitAttr(), "a": BoolAttr(False), "has space": UnitAttr()}),
        '{a = false, "has space", z}',
    ),
    (TypeAttr(VectorType((4,), f32)), "vector<4xf32>"),
    (SymbolRefAttr("main"), "@main"),
    (SymbolRefAttr("m", ("f",)), "@m::@f"),
    (SymbolRefAttr("my f"), '@"my f"'),
    (
        DenseElementsAttr(RankedTensorType((1, 2), f32), [[1.0, 2.0]]),
        "dense<[[1.000000e+00, 2.000000e+00]]> : tensor<1x2xf32>",
    ),
    (DenseElementsAttr(RankedTensorType((4,), f32), 0.0), "dense<0.000000e+00> : tensor<4xf32>"),
    (
        DenseElementsAttr(RankedTensorType((2,), i1), [True, False]),
        "dense<[true, false]> : tensor<2xi1>",
    ),
    (DenseElementsAttr(RankedTensorType((0,), i32), []), "dense<> : tensor<0xi32>"),
    (DenseArrayAttr(i64, [1, 2]), "array<i64: 1, 2>"),
    (DenseArrayAttr(i32, []), "array<i32>"),
    (DenseArrayAttr(i1, [True]), "array<i1: true>"),
    (StridedLayoutAttr((8, 1)), "strided<[8, 1]>"),
    (StridedLayoutAttr((None, 1), None), "strided<[?, 1], offset: ?>"),
    (OpaqueAttr("#linalg.iterator_type<parallel>"), "#linalg.iterator_type<parallel>"),
]


@pytest.mark.parametrize("value, text", SPELLINGS, ids=[t for _, t in SPELLINGS])
def test_spelling_and_parsing(value, text):
    assert str(value) == text
    assert parse_attribute(text) == value


@settings(deadline=None)
@given(attributes)
def test_random_attributes_round_trip(value):
    assert parse_attribute(str(value)) == value


def test_integers_are_kept_in_their_signed_range():
    assert IntegerAttr(255, i8).value == -1
    assert IntegerAttr(2**64 - 1, index).value == -1
    with pytest.raises(ValueError, match="out of range for i8"):
        IntegerAttr(256, i8)
    with pytest.raises(ValueError, match="BoolAttr"):
        IntegerAttr(1, i1)
    assert parse_attribute("1 : i1") == BoolAttr(True)
    assert parse_attribute("7") == IntegerAttr(7, i64)
    assert BoolAttr(False).type == i1


def test_floats_are_rounded_to_their_type_and_compared_by_bits():
    assert FloatAttr(0.1, f32).value == float(np.float32(0.1))
    assert FloatAttr(0.1, bf16).value == 0.10009765625
    assert FloatAttr(float("nan"), f32) == FloatAttr(float("nan"), f32)
    assert FloatAttr(-0.0, f32) != FloatAttr(0.0, f32)
    assert FloatAttr(1.0, f32) != FloatAttr(1.0, f64)
    assert len({FloatAttr(2.0, f16), FloatAttr(2.0, f16)}) == 1
    assert parse_attribute("0x3F800000 : f32") == FloatAttr(1.0, f32)
    assert parse_attribute("2.5") == FloatAttr(2.5, f64)


@pytest.mark.parametrize(
    "value, type_name, text",
    [
        (1.0, "f32", "1.000000e+00"),
        (-0.0, "f64", "-0.000000e+00"),
        (0.30000000000000004, "f64", "0.30000000000000004"),
        (123456789.0, "f64", "0x419D6F3454000000"),
        (3.140625, "bf16", "3.140630e+00"),
        (float("nan"), "f64", "0x7FF8000000000000"),
        (float("-inf"), "bf16", "0xFF80"),
        (1e-10 + 1e-26, "f64", "1.0000000000000002E-10"),
    ],
)
def test_float_digits_follow_mlir(value, type_name, text):
    assert format_float(value, type_name) == text


@settings(deadline=None)
@given(st.floats(allow_nan=False), st.sampled_from([f16, bf16, f32, f64]))
def test_float_text_reads_back_exactly(value, float_type):
    attr = FloatAttr(value, float_type)
    again = parse_attribute(str(attr))
    assert again == attr
    if not math.isinf(attr.value):
        assert "." in str(attr) or str(attr).startswith(("0x", "-0x"))


def test_dense_elements():
    big = DenseElementsAttr(RankedTensorType((101,), i32), np.arange(101))
    assert str(big).startswith('dense<"0x0000000001000000') and parse_attribute(str(big)) == big
    splat = DenseElementsAttr(RankedTensorType((2, 2), f32), [[1.5, 1.5], [1.5, 1.5]])
    assert splat.is_splat and str(splat) == "dense<1.500000e+00> : tensor<2x2xf32>"
    assert splat.values.shape == (2, 2) and not splat.values.flags.writeable
    wrapped = DenseElementsAttr(RankedTensorType((1,), i8), [255])
    assert wrapped.values[0] == -1
    with pytest.raises(ValueError, match="expected values of shape"):
        DenseElementsAttr(RankedTensorType((3,), f32), [1.0, 2.0])
    with pytest.raises(ValueError, match="static shape"):
        DenseElementsAttr(RankedTensorType((None,), f32), [1.0])
    assert parse_attribute('dense<"0x0000803F"> : tensor<3xf32>').is_splat


def test_dictionary_access():
    d = DictionaryAttr({"b": UnitAttr(), "a": IntegerAttr(1)})
    assert [k for k, _ in d.entries] == ["a", "b"]
    assert d["a"] == IntegerAttr(1) and d.get("zz") is None and d.to_dict()["b"] == UnitAttr()


@settings(deadline=None)
@given(st.text())
def test_strings_survive_quoting(text):
    assert decode_string(quote_string(text)) == text

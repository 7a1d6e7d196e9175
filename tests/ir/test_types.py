"""Types: MLIR spelling, validation, and the helpers passes use."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings

from tinycomp.affine import parse_affine_map
from tinycomp.ir import (
    DYNAMIC,
    AffineMapAttr,
    FloatType,
    FunctionType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneType,
    OpaqueAttr,
    OpaqueType,
    RankedTensorType,
    StridedLayoutAttr,
    VectorType,
    bf16,
    bitwidth,
    default_strides,
    element_type,
    f16,
    f32,
    f64,
    i1,
    i8,
    i32,
    index,
    is_float,
    is_index,
    is_integer,
    parse_type,
    rank,
    shape,
    strides_and_offset,
    to_numpy_dtype,
    with_element_type,
)

from .strategies import function_types, types

SPELLINGS = [
    (index, "index"),
    (IntegerType(7), "i7"),
    (bf16, "bf16"),
    (NoneType(), "none"),
    (VectorType((4, 8), f32), "vector<4x8xf32>"),
    (VectorType((), f32), "vector<f32>"),
    (RankedTensorType((DYNAMIC, 3), i1), "tensor<?x3xi1>"),
    (RankedTensorType((), f64), "tensor<f64>"),
    (
        MemRefType((4, 8), f32, StridedLayoutAttr((8, 1), 0), IntegerAttr(1)),
        "memref<4x8xf32, strided<[8, 1]>, 1>",
    ),
    (
        MemRefType((DYNAMIC,), f16, StridedLayoutAttr((1,), DYNAMIC)),
        "memref<?xf16, strided<[1], offset: ?>>",
    ),
    (
        MemRefType((8,), i8, None, OpaqueAttr("#gpu.address_space<workgroup>")),
        "memref<8xi8, #gpu.address_space<workgroup>>",
    ),
    (MemRefType((8,), i8, None, IntegerAttr(2, i32)), "memref<8xi8, 2 : i32>"),
    (FunctionType([f32], [FunctionType([], [])]), "(f32) -> (() -> ())"),
    (OpaqueType("!llvm.ptr"), "!llvm.ptr"),
]


@pytest.mark.parametrize("value, text", SPELLINGS, ids=[t for _, t in SPELLINGS])
def test_spelling_and_parsing(value, text):
    assert str(value) == text
    assert parse_type(text) == value


@settings(deadline=None)
@given(types)
def test_random_types_round_trip(value):
    assert parse_type(str(value)) == value


@settings(deadline=None)
@given(function_types)
def test_random_function_types_round_trip(value):
    assert parse_type(str(value)) == value


def test_dynamic_is_none():
    assert DYNAMIC is None
    assert RankedTensorType([4, None], f32).shape == (4, None)
    assert not RankedTensorType((4, DYNAMIC), f32).has_static_shape
    with pytest.raises(ValueError, match="expected a static shape"):
        _ = RankedTensorType((DYNAMIC,), f32).num_elements


def test_invalid_types_are_rejected():
    with pytest.raises(ValueError, match="positive integer width"):
        IntegerType(0)
    with pytest.raises(ValueError, match="expected one of f16, bf16, f32, f64"):
        FloatType("f8")
    with pytest.raises(ValueError, match="dimension sizes >= 0"):
        RankedTensorType((-1,), f32)
    with pytest.raises(ValueError, match="expected dimension sizes"):
        VectorType((DYNAMIC,), f32)


def test_memref_normalizes_like_mlir():
    identity = AffineMapAttr(parse_affine_map("(d0, d1) -> (d0, d1)"))
    assert MemRefType((4, 4), f32, identity, IntegerAttr(0)) == MemRefType((4, 4), f32)
    transposed = AffineMapAttr(parse_affine_map("(d0, d1) -> (d1, d0)"))
    assert (
        str(MemRefType((4, 4), f32, transposed))
        == "memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>"
    )


def test_queries():
    t = VectorType((2, 3), i32)
    assert (element_type(t), shape(t), rank(t)) == (i32, (2, 3), 2)
    assert (element_type(f32), shape(f32), rank(f32)) == (f32, (), 0)
    assert is_float(bf16) and not is_float(t) and is_integer(i1) and not is_integer(index)
    assert is_index(index) and bitwidth(i1) == 1 and bitwidth(f64) == 64
    with pytest.raises(TypeError, match="expected a scalar"):
        bitwidth(t)
    assert t.num_elements == 6 and t.has_static_shape


def test_numpy_dtypes():
    assert to_numpy_dtype(bf16) == np.dtype(ml_dtypes.bfloat16)
    assert to_numpy_dtype(RankedTensorType((2,), i1)) == np.dtype(bool)
    assert to_numpy_dtype(index) == np.dtype(np.int64)
    assert to_numpy_dtype(f16) == np.dtype(np.float16)
    with pytest.raises(TypeError, match="expected i1, i8"):
        to_numpy_dtype(IntegerType(7))


def test_strides():
    assert default_strides((2, 3, 4)) == (12, 4, 1)
    assert default_strides((DYNAMIC, 3, 4)) == (12, 4, 1)
    assert default_strides((2, DYNAMIC, 4)) == (DYNAMIC, 4, 1)
    assert strides_and_offset(MemRefType((2, 3), f32)) == ((3, 1), 0)
    layout = StridedLayoutAttr((DYNAMIC, 1), 5)
    assert strides_and_offset(MemRefType((2, 3), f32, layout)) == ((DYNAMIC, 1), 5)
    with pytest.raises(ValueError, match="identity or strided layout"):
        strides_and_offset(
            MemRefType((2, 3), f32, AffineMapAttr(parse_affine_map("(d0, d1) -> (d1, d0)")))
        )


def test_with_element_type():
    memref = MemRefType((4,), f32, None, IntegerAttr(3))
    assert with_element_type(memref, f16) == MemRefType((4,), f16, None, IntegerAttr(3))
    assert with_element_type(f32, i1) == i1

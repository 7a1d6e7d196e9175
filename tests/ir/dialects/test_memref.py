"""The memref dialect: syntax, builders, verifier, and view layouts checked against numpy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects import memref
from tinycomp.dialects.memref.index_list import DYNAMIC_INDEX
from tinycomp.dialects.memref.layout import collapsed_type, expanded_type, subview_type
from tinycomp.ir import (
    DYNAMIC,
    Block,
    DenseElementsAttr,
    IntegerAttr,
    MemRefType,
    OpaqueAttr,
    ParseError,
    RankedTensorType,
    StridedLayoutAttr,
    f32,
    i8,
    index,
    parse,
    print_ir,
    strides_and_offset,
)

from .roundtrip import assert_round_trip, assert_verify_error, first_op_named, in_function

SIGNATURE = "(%A: memref<8x8xf32>, %D: memref<?xf32>, %i: index, %n: index, %x: f32)"


@pytest.mark.parametrize(
    "body",
    [
        "%alloc = memref.alloc(%n, %i) {alignment = 16 : i64} : memref<?x4x?xf32, 1>",
        "%alloca = memref.alloca() : memref<4xf32, #gpu.address_space<private>>",
        "memref.dealloc %D : memref<?xf32>",
        "%0 = memref.load %A[%i, %n] {nontemporal = true} : memref<8x8xf32>",
        "memref.store %x, %D[%i] {alignment = 4 : i64} : memref<?xf32>",
        "memref.copy %A, %A : memref<8x8xf32> to memref<8x8xf32>",
        "%dim = memref.dim {why} %D, %i : memref<?xf32>",
        "%0 = memref.rank %A : memref<8x8xf32>",
        "%subview = memref.subview %A[%i, 2] [4, %n] [1, 2] : memref<8x8xf32> to "
        "memref<4x?xf32, strided<[8, 2], offset: ?>>",
        "%cast = memref.cast %D : memref<?xf32> to memref<8xf32>",
        "%reinterpret_cast = memref.reinterpret_cast %D to offset: [%i], sizes: [2, 4], "
        "strides: [4, 1] : memref<?xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>",
        "%collapse_shape = memref.collapse_shape %A [[0, 1]] : memref<8x8xf32> into memref<64xf32>",
        "%expand_shape = memref.expand_shape %D [[0, 1]] output_shape [%n, 2] : memref<?xf32> "
        "into memref<?x2xf32>",
    ],
)
def test_syntax_round_trips(body):
    assert_round_trip(in_function(SIGNATURE, body + "\nreturn"))


def test_view_and_globals_round_trip():
    text = (
        "#map = affine_map<(d0)[s0] -> (d0 * 2 + s0)>\n"
        "module {\n"
        '  memref.global "private" constant @lut : memref<2x2xf32> = dense<[[1.000000e+00, '
        "2.000000e+00], [3.000000e+00, 4.000000e+00]]>\n"
        "  memref.global @buf : memref<4xi8, 3> = uninitialized\n"
        '  memref.global "private" @decl : memref<f32> {alignment = 8 : i64}\n'
        "  func.func @f(%bytes: memref<64xi8>, %i: index, %n: index) {\n"
        "    %0 = memref.get_global @lut : memref<2x2xf32>\n"
        "    %view = memref.view %bytes[%i][%n] : memref<64xi8> to memref<?x2xf32>\n"
        "    %alloc = memref.alloc(%n)[%i] : memref<?xf32, #map>\n"
        "    return\n"
        "  }\n"
        "}"
    )
    module = assert_round_trip(text)
    lut = first_op_named(module, "memref.global")
    assert lut.is_constant and lut.memref_type == MemRefType((2, 2), f32)
    assert lut.initial_value == DenseElementsAttr(RankedTensorType((2, 2), f32), [[1, 2], [3, 4]])


def test_generic_form_has_mlir_attribute_names():
    module = parse(
        in_function(
            SIGNATURE,
            "%s = memref.subview %A[%i, 2] [4, 4] [1, 1] : memref<8x8xf32> to "
            "memref<4x4xf32, strided<[8, 1], offset: ?>>\n"
            "%e = memref.expand_shape %D [[0, 1]] output_shape [%n, 2] : memref<?xf32> into "
            "memref<?x2xf32>\nreturn",
        )
    )
    generic = print_ir(module, generic=True)
    assert (
        "<{operandSegmentSizes = array<i32: 1, 1, 0, 0>, static_offsets = array<i64: "
        f"{DYNAMIC_INDEX}, 2>, static_sizes = array<i64: 4, 4>, static_strides = "
        "array<i64: 1, 1>}>" in generic
    )
    assert f"static_output_shape = array<i64: {DYNAMIC_INDEX}, 2>" in generic
    subview = first_op_named(module, "memref.subview")
    assert subview.static_list(0) == (DYNAMIC, 2)


def test_builders_infer_view_types():
    A, D, i = Block([MemRefType((8, 8), f32), MemRefType((DYNAMIC,), f32), index]).arguments
    view = memref.SubViewOp.build(A, [i, 2], [4, 4], [1, 1])
    assert view.result.type == MemRefType((4, 4), f32, StridedLayoutAttr((8, 1), DYNAMIC), None)
    view.verify_op()
    flat = memref.CollapseShapeOp.build(A, [[0, 1]])
    assert flat.result.type == MemRefType((64,), f32)
    grid = memref.ExpandShapeOp.build(D, [[0, 1]], [i, 4])
    assert grid.result.type == MemRefType((DYNAMIC, 4), f32) and grid.output_shape == (i,)
    alloc = memref.AllocOp.build(MemRefType((DYNAMIC,), f32, None, IntegerAttr(3)), [i], [], 64)
    assert alloc.dynamic_sizes == (i,) and alloc.symbol_operands == ()
    assert alloc.attributes["alignment"] == IntegerAttr(64)
    load = memref.LoadOp.build(A, [i, i])
    store = memref.StoreOp.build(load.result, A, [i, i])
    assert load.result.type == f32 and store.indices == (i, i)
    table = memref.GlobalOp.build("t", MemRefType((2,), f32), constant=True, visibility="private")
    assert memref.GetGlobalOp.build(table).result.type == MemRefType((2,), f32)


def test_memory_spaces_print_and_parse():
    space = OpaqueAttr("#gpu.address_space<workgroup>")
    text = in_function(
        "(%S: memref<4x4xf32, #gpu.address_space<workgroup>>, %T: memref<16xf32, 3>)",
        "%collapse_shape = memref.collapse_shape %S [[0, 1]] : memref<4x4xf32, "
        "#gpu.address_space<workgroup>> into memref<16xf32, #gpu.address_space<workgroup>>\n"
        "return",
    )
    module = assert_round_trip(text)
    op = first_op_named(module, "memref.collapse_shape")
    assert op.result.type.memory_space == space
    assert op.source.type.memory_space == space


VERIFY_CASES = [
    ('%0 = "memref.load"(%A, %i) : (memref<8x8xf32>, index) -> f32',
     "expected 2 indices (the rank of memref<8x8xf32>), got 1"),
    ('%0 = "memref.load"(%A, %i, %i) : (memref<8x8xf32>, index, index) -> i32',
     "expected result type f32 (the element type), got i32"),
    ('%0 = "memref.load"(%x) : (f32) -> f32', "expected the first operand to be a memref, got f32"),
    ('"memref.store"(%i, %D, %i) : (index, memref<?xf32>, index) -> ()',
     "expected a value of type f32 (the element type), got index"),
    ('"memref.store"(%x, %D, %x) : (f32, memref<?xf32>, f32) -> ()',
     "expected index #0 to be an index, got f32"),
    ('%0 = "memref.alloc"() <{operandSegmentSizes = array<i32: 0, 0>}> : () -> memref<?xf32>',
     "expected 1 dynamic size operands (one per '?' in memref<?xf32>), got 0"),
    ('%0 = "memref.alloc"(%i) <{operandSegmentSizes = array<i32: 1, 1>}> : (index) -> '
     "memref<4xf32>",
     "expected 'operandSegmentSizes' to add up to the 1 operands"),
    ("%0 = memref.subview %A[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to memref<4x4xf32>",
     "expected result type memref<4x4xf32, strided<[8, 1]>> or a rank-reduced version of it "
     "(mismatch of result layout), got memref<4x4xf32>"),
    ("%0 = memref.subview %A[0, 0] [4, %n] [1, 1] : memref<8x8xf32> to "
     "memref<4x4xf32, strided<[8, 1]>>", "(mismatch of result sizes)"),
    ("%0 = memref.subview %A[6, 0] [2, 4] [2, 1] : memref<8x8xf32> to "
     "memref<2x4xf32, strided<[16, 1], offset: 48>>",
     "slice along dimension 0 runs out-of-bounds: 8 >= 8"),
    ("%0 = memref.subview %A[0, 8] [1, 0] [1, 1] : memref<8x8xf32> to "
     "memref<1x0xf32, strided<[8, 1], offset: 8>>", "offset 1 is out-of-bounds: 8 >= 8"),
    ("%0 = memref.subview %A[0, 0] [4, 4] [1, 1] : memref<8x8xf32> to "
     "memref<4x4xf32, strided<[8, 1]>, 3>",
     "expected the memory space of the source (memref<8x8xf32>)"),
    ('%0 = "memref.subview"(%A) <{operandSegmentSizes = array<i32: 1, 0, 0, 0>, static_offsets ='
     " array<i64: 0>, static_sizes = array<i64: 4, 4>, static_strides = array<i64: 1, 1>}> : "
     "(memref<8x8xf32>) -> memref<4x4xf32, strided<[8, 1]>>",
     "expected 2 offsets (one per dimension), got 1"),
    ("%0 = memref.subview %A[1, 0] [1, 8] [1, 1] : memref<8x8xf32> to "
     "memref<8xf32, strided<[1], offset: 8>>", None),
    ("%0 = memref.collapse_shape %A [[0, 1]] : memref<8x8xf32> into memref<?xf32>",
     "collapsed dim (0) must be dynamic if and only if reassociation group is dynamic"),
    ("%0 = memref.expand_shape %D [[0, 1]] output_shape [%n, 3] : memref<?xf32> into "
     "memref<?x2xf32>", "expected output size 2 at position 1 (from memref<?x2xf32>), got 3"),
    ("%0 = memref.cast %A : memref<8x8xf32> to memref<8x4xf32>",
     "expected cast-compatible types, got memref<8x8xf32> and memref<8x4xf32>"),
    ("%c2 = arith.constant 2 : index\n%0 = memref.dim %A, %c2 : memref<8x8xf32>",
     "expected a dimension in [0, 2) for memref<8x8xf32>, got 2"),
    ("%0 = memref.reinterpret_cast %D to offset: [0], sizes: [4], strides: [2] : memref<?xf32> "
     "to memref<4xf32, strided<[1]>>", "expected stride 2 in dimension 0"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "message"), VERIFY_CASES)
def test_verifier_messages(body, message):
    text = in_function(SIGNATURE, body + "\nreturn")
    if message is None:  # a valid rank-reduced subview, for contrast
        parse(text)
    else:
        assert_verify_error(text, message)


def test_collapsing_non_contiguous_dimensions_is_rejected():
    text = in_function(
        "(%S: memref<4x8xf32, strided<[16, 1]>>)",
        "%0 = memref.collapse_shape %S [[0, 1]] : memref<4x8xf32, strided<[16, 1]>> into "
        "memref<32xf32, strided<[1]>>\nreturn",
    )
    assert_verify_error(text, "expected dimensions collapsed together to be contiguous")


def test_globals_and_get_global_are_checked():
    wrong_type = "module {\n  memref.global @g : memref<2xf32> = dense<[1, 2]> : tensor<2xi32>\n}"
    with pytest.raises(ParseError):
        parse(wrong_type)  # the data of a global is written without its type
    mismatch = (
        'module {\n  "memref.global"() <{initial_value = dense<1> : tensor<2xi32>, sym_name = "g",'
        " type = memref<2xf32>}> : () -> ()\n}"
    )
    assert_verify_error(
        mismatch, "expected an initial value of type tensor<2xf32>, got tensor<2xi32>"
    )
    missing = in_function(
        "() -> memref<2xf32>",
        "%0 = memref.get_global @nope : memref<2xf32>\nreturn %0 : memref<2xf32>",
    )
    assert_verify_error(missing, "'@nope' does not reference a valid global memref")
    other_type = (
        "module {\n  memref.global @g : memref<2xf32> = uninitialized\n"
        "  func.func @f() {\n    %0 = memref.get_global @g : memref<3xf32>\n    return\n  }\n}"
    )
    assert_verify_error(other_type, "expected the type of @g (memref<2xf32>), got memref<3xf32>")


def test_view_requires_a_byte_buffer():
    text = in_function(
        "(%B: memref<64xf32>, %i: index)",
        "%0 = memref.view %B[%i][] : memref<64xf32> to memref<4xf32>\nreturn",
    )
    assert_verify_error(text, "expected a 1-d i8 source with an identity layout")
    assert MemRefType((64,), i8).element_type == i8


# -- layouts against numpy ------------------------------------------------------------------
def _positions(memref_type: MemRefType) -> np.ndarray:
    """For every element of a static memref, its position in the underlying buffer."""
    strides, offset = strides_and_offset(memref_type)
    grids = np.indices(memref_type.shape)
    return offset + sum(g * s for g, s in zip(grids, strides, strict=True))


@st.composite
def strided_sources(draw):
    """A static shape, and a numpy view of a bigger buffer with that shape (maybe strided
    and offset), with its memref type."""
    rank = draw(st.integers(1, 3))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    steps = tuple(draw(st.integers(1, 2)) for _ in range(rank))
    starts = tuple(draw(st.integers(0, 2)) for _ in range(rank))
    base_shape = tuple(st_ + sz * sp for st_, sz, sp in zip(starts, shape, steps, strict=True))
    base = np.arange(int(np.prod(base_shape))).reshape(base_shape)
    view = base[tuple(slice(a, a + n * s, s) for a, n, s in zip(starts, shape, steps, strict=True))]
    item = base.itemsize
    strides = tuple(s // item for s in view.strides)
    offset = int(view.reshape(-1)[0]) if view.size else 0
    plain = strides == tuple(int(np.prod(shape[k + 1 :])) for k in range(rank)) and offset == 0
    layout = None if plain else StridedLayoutAttr(strides, offset)
    return view, MemRefType(shape, f32, layout)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_subview_layout_finds_the_elements_numpy_slices(data):
    array, source = data.draw(strided_sources())
    offsets, sizes, strides = [], [], []
    for size in source.shape:
        offset = data.draw(st.integers(0, size - 1))
        stride = data.draw(st.integers(1, 3))
        count = data.draw(st.integers(1, (size - 1 - offset) // stride + 1))
        offsets.append(offset)
        sizes.append(count)
        strides.append(stride)
    result = subview_type(source, offsets, sizes, strides)
    window = array[
        tuple(slice(o, o + n * s, s) for o, n, s in zip(offsets, sizes, strides, strict=True))
    ]
    np.testing.assert_array_equal(_positions(result), window)
    (value,) = Block([source]).arguments
    memref.SubViewOp.build(value, offsets, sizes, strides).verify_op()


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_collapse_and_expand_layouts_match_numpy_reshape(data):
    shape = tuple(data.draw(st.lists(st.integers(1, 4), min_size=1, max_size=4)))
    base = np.arange(int(np.prod(shape)) * 2).reshape(*shape[:-1], shape[-1] * 2)
    array = base[..., : shape[-1]]  # rows keep their stride: the last group is not merged
    strides = tuple(s // base.itemsize for s in array.strides)
    source = MemRefType(shape, f32, StridedLayoutAttr(strides, 0))
    cut = data.draw(st.integers(0, len(shape) - 1))
    groups = [list(range(cut + 1)), *([k] for k in range(cut + 1, len(shape)))]
    if cut == len(shape) - 1 and len(shape) > 1 and shape[-1] > 1:
        groups = [list(range(cut)), [cut]]  # never merge the padded last dimension
    merged = tuple(int(np.prod([shape[d] for d in g])) for g in groups)
    collapsed = collapsed_type(source, merged, groups)
    assert collapsed is not None
    np.testing.assert_array_equal(_positions(collapsed), array.reshape(merged))
    expanded = expanded_type(collapsed, shape, groups)
    np.testing.assert_array_equal(_positions(expanded), array)

"""Hypothesis strategies for IR: types, attributes, and whole random functions.

``functions()`` builds a random ``func.func`` with the Builder, the way a frontend would:
arguments of a few scalar, vector and tensor types, then a sequence of arith ops whose
operands are drawn from the values of matching type built so far, optional control
flow (a ``cf.cond_br`` diamond passing values as block arguments) and a return. Some
values get name hints from a small vocabulary, so names collide and get deduplicated.
"""

from __future__ import annotations

import math

import numpy as np
from hypothesis import strategies as st

from tinycomp.affine import parse_affine_map, parse_integer_set
from tinycomp.dialects import arith, cf, func
from tinycomp.ir import (
    DYNAMIC,
    AffineMapAttr,
    ArrayAttr,
    Block,
    BoolAttr,
    Builder,
    DenseArrayAttr,
    DenseElementsAttr,
    DictionaryAttr,
    FloatAttr,
    FloatType,
    FunctionType,
    IntegerAttr,
    IntegerSetAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
    OpaqueAttr,
    Operation,
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
    i16,
    i32,
    i64,
    index,
)

SCALAR_TYPES = [index, i1, i8, i16, i32, i64, f16, bf16, f32, f64]
FLOAT_TYPES = [f16, bf16, f32, f64]
INT_TYPES = [i8, i16, i32, i64, index]

scalar_types = st.sampled_from(SCALAR_TYPES)
dims = st.one_of(st.integers(0, 6), st.just(DYNAMIC))


@st.composite
def shaped_types(draw) -> object:
    """A vector, tensor or memref of a scalar type."""
    element = draw(scalar_types)
    kind = draw(st.sampled_from(["vector", "tensor", "memref"]))
    if kind == "vector":
        return VectorType(draw(st.lists(st.integers(1, 5), max_size=3)), element)
    shape = draw(st.lists(dims, max_size=3))
    if kind == "tensor":
        return RankedTensorType(shape, element)
    layout = draw(st.one_of(st.none(), strided_layouts(len(shape))))
    space = draw(
        st.sampled_from(
            [None, IntegerAttr(1), IntegerAttr(3), OpaqueAttr("#gpu.address_space<workgroup>")]
        )
    )
    return MemRefType(shape, element, layout, space)


def strided_layouts(rank: int) -> st.SearchStrategy[StridedLayoutAttr]:
    """``strided<[...], offset: ...>`` with static or dynamic entries."""
    entry = st.one_of(st.integers(0, 64), st.just(DYNAMIC))
    return st.builds(StridedLayoutAttr, st.lists(entry, min_size=rank, max_size=rank), entry)


types = st.one_of(scalar_types, shaped_types())
function_types = st.builds(FunctionType, st.lists(types, max_size=3), st.lists(types, max_size=2))


def integer_attrs() -> st.SearchStrategy[IntegerAttr]:
    """Integers in the range of their type."""

    @st.composite
    def build(draw):
        kind = draw(st.sampled_from([i8, i16, i32, i64, index, IntegerType(7)]))
        width = 64 if kind == index else kind.width
        return IntegerAttr(draw(st.integers(-(2 ** (width - 1)), 2**width - 1)), kind)

    return build()


def float_attrs() -> st.SearchStrategy[FloatAttr]:
    """Any float (NaN and infinities included) rounded to a random float type."""
    return st.builds(
        FloatAttr, st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(FLOAT_TYPES)
    )


AFFINE_MAPS = [
    "(d0) -> (d0)", "(d0, d1) -> (d1, d0)", "(d0, d1)[s0] -> (d0 * 4 + s0, d1 mod 8)",
    "() -> (0)", "(d0, d1, d2) -> (d0, d2)", "(d0)[s0, s1] -> (d0 floordiv s0, d0 ceildiv 4)",
]  # fmt: skip
INTEGER_SETS = ["(d0) : (d0 >= 0)", "(d0, d1)[s0] : (d0 - s0 >= 0, d1 == 0)"]


@st.composite
def dense_attrs(draw) -> DenseElementsAttr:
    """Dense tensor/vector constants, small or above the 100-element hex threshold."""
    element = draw(scalar_types)
    shape = draw(st.sampled_from([(), (3,), (2, 2), (0,), (101,), (1, 1)]))
    attr_type = RankedTensorType(shape, element)
    count = math.prod(shape)
    if isinstance(element, FloatType):
        values = draw(st.lists(st.floats(-1e4, 1e4, width=16), min_size=count, max_size=count))
    elif element == i1:
        values = draw(st.lists(st.booleans(), min_size=count, max_size=count))
    else:
        values = draw(st.lists(st.integers(-100, 100), min_size=count, max_size=count))
    splat = draw(st.booleans()) and count > 0
    return DenseElementsAttr(attr_type, values[0] if splat else np.array(values).reshape(shape))


leaf_attrs = st.one_of(
    integer_attrs(),
    float_attrs(),
    st.builds(BoolAttr, st.booleans()),
    st.builds(StringAttr, st.text(max_size=8)),
    st.just(UnitAttr()),
    st.builds(TypeAttr, st.one_of(types, function_types)),
    st.builds(
        SymbolRefAttr,
        st.sampled_from(["f", "main", "my func"]),
        st.lists(st.sampled_from(["g", "h"]), max_size=2),
    ),
    st.builds(lambda text: AffineMapAttr(parse_affine_map(text)), st.sampled_from(AFFINE_MAPS)),
    st.builds(lambda text: IntegerSetAttr(parse_integer_set(text)), st.sampled_from(INTEGER_SETS)),
    dense_attrs(),
    st.builds(DenseArrayAttr, st.just(i64), st.lists(st.integers(-(2**63), 2**63 - 1), max_size=4)),
    st.builds(DenseArrayAttr, st.just(f32), st.lists(st.floats(-1e6, 1e6, width=32), max_size=3)),
    st.builds(DenseArrayAttr, st.just(i1), st.lists(st.booleans(), max_size=3)),
    strided_layouts(2),
    st.sampled_from(
        [OpaqueAttr("#linalg.iterator_type<parallel>"), OpaqueAttr("#gpu.address_space<workgroup>")]
    ),
)
attr_names = st.sampled_from(["a", "b", "value", "tc.flag", "x.y_z", "with space", "0digit"])
attributes = st.recursive(
    leaf_attrs,
    lambda children: st.one_of(
        st.builds(ArrayAttr, st.lists(children, max_size=3)),
        st.builds(DictionaryAttr, st.dictionaries(attr_names, children, max_size=3)),
    ),
    max_leaves=6,
)
attribute_dicts = st.dictionaries(attr_names, attributes, max_size=3)

# -- random functions ---------------------------------------------------------------------
VALUE_TYPES = [f32, f16, i32, index, i1, VectorType((4,), f32), RankedTensorType((2, DYNAMIC), i32)]
HINTS = ["x", "sum", "acc", "sum_0", "c0", "tmp", "0", "my value"]
"""Name hints; printer-made names like ``arg0`` are left out: the parser drops those."""
FLOAT_BINARY = [
    arith.AddFOp,
    arith.SubFOp,
    arith.MulFOp,
    arith.DivFOp,
    arith.MaximumFOp,
    arith.MinNumFOp,
]
INT_BINARY = [
    arith.AddIOp,
    arith.MulIOp,
    arith.DivSIOp,
    arith.FloorDivSIOp,
    arith.MaxSIOp,
    arith.XOrIOp,
    arith.ShRUIOp,
]


@st.composite
def functions(draw, with_control_flow: bool = True) -> ModuleOp:
    """A module with one random func/arith function (see the module docstring)."""
    arg_types = draw(st.lists(st.sampled_from(VALUE_TYPES), min_size=1, max_size=4))
    result_count = draw(st.integers(0, 2))
    result_types = [draw(st.sampled_from(VALUE_TYPES)) for _ in range(result_count)]
    function = func.FuncOp.build("random", FunctionType(arg_types, result_types))
    builder = Builder.at_end(function.entry_block)
    pool = list(function.arguments)
    for _ in range(draw(st.integers(0, 12))):
        _add_random_op(draw, builder, pool)
    if with_control_flow and draw(st.booleans()):
        _add_diamond(draw, function, builder, pool)
    returned = [_value_of(draw, builder, pool, t) for t in result_types]
    builder.insert(func.ReturnOp.build(returned))
    for value in pool:
        if draw(st.integers(0, 3)) == 0:
            value.name_hint = draw(st.sampled_from(HINTS))
    return ModuleOp.build([function])


def _value_of(draw, builder: Builder, pool: list, value_type) -> object:
    """A value of ``value_type`` from the pool, or a new constant."""
    candidates = [v for v in pool if v.type == value_type]
    if candidates and draw(st.booleans()):
        return draw(st.sampled_from(candidates))
    element = value_type.element_type if hasattr(value_type, "element_type") else value_type
    if isinstance(value_type, RankedTensorType) and not value_type.has_static_shape:
        candidates = [v for v in pool if v.type == value_type]
        if candidates:
            return draw(st.sampled_from(candidates))
        value_type = RankedTensorType((2, 3), element)
        source = builder.insert(arith.ConstantOp.build(np.zeros((2, 3)), value_type)).result
        return builder.insert(
            Operation.create("test.dynamic", [source], [RankedTensorType((2, DYNAMIC), element)])
        ).result
    if isinstance(element, FloatType):
        number = draw(st.floats(-100, 100, width=16))
    elif element == i1:
        number = draw(st.booleans())
    else:
        number = draw(st.integers(-5, 5))
    if value_type is element:
        constant = arith.ConstantOp.build(number, value_type)
    else:
        constant = arith.ConstantOp.build(np.full(value_type.shape, number), value_type)
    value = builder.insert(constant).result
    pool.append(value)
    return value


def _add_random_op(draw, builder: Builder, pool: list) -> None:
    value_type = draw(st.sampled_from(VALUE_TYPES))
    element = value_type.element_type if hasattr(value_type, "element_type") else value_type
    lhs = _value_of(draw, builder, pool, value_type)
    rhs = _value_of(draw, builder, pool, value_type)
    if isinstance(element, FloatType):
        choice = draw(st.integers(0, 3))
        if choice == 0:
            op = arith.CmpFOp.build(draw(st.sampled_from(arith.CMPF_PREDICATES)), lhs, rhs)
        elif choice == 1:
            op = arith.NegFOp.build(
                lhs, fastmath=draw(st.sampled_from([None, "fast", "nnan,ninf"]))
            )
        else:
            op_class = draw(st.sampled_from(FLOAT_BINARY))
            op = op_class.build(
                lhs, rhs, fastmath=draw(st.sampled_from([None, "contract", "fast"]))
            )
    elif element == i1 and draw(st.booleans()):
        condition = _value_of(draw, builder, pool, i1)
        op = arith.SelectOp.build(condition, lhs, rhs)
    else:
        choice = draw(st.integers(0, 2))
        if choice == 0:
            op = arith.CmpIOp.build(draw(st.sampled_from(arith.CMPI_PREDICATES)), lhs, rhs)
        elif choice == 1 and value_type == i32:
            op = arith.SIToFPOp.build(lhs, f32)
        else:
            op_class = draw(st.sampled_from(INT_BINARY))
            flags = draw(st.sampled_from([None, "nsw"])) if op_class.flag_attribute else None
            op = op_class.build(lhs, rhs, overflow=flags)
    pool.append(builder.insert(op).result)
    if draw(st.integers(0, 5)) == 0:
        attrs = draw(attribute_dicts)
        builder.insert(Operation.create("test.side_effect", [pool[-1]], [], attrs))


def _add_diamond(draw, function, builder: Builder, pool: list) -> None:
    """Branch on an i1 to two blocks that pass a value to a join block."""
    value_type = draw(st.sampled_from([f32, i32, index]))
    condition = _value_of(draw, builder, pool, i1)
    then_block, else_block, join = Block(), Block(), Block([value_type])
    for block in (then_block, else_block, join):
        function.body.append_block(block)
    builder.insert(cf.CondBranchOp.build(condition, then_block, [], else_block, []))
    for block in (then_block, else_block):
        branch_builder = Builder.at_end(block)
        local_pool = list(pool)
        for _ in range(draw(st.integers(0, 3))):
            _add_random_op(draw, branch_builder, local_pool)
        value = _value_of(draw, branch_builder, local_pool, value_type)
        branch_builder.insert(cf.BranchOp.build(join, [value]))
    builder.insertion_point = Builder.at_end(join).insertion_point
    pool.append(join.arguments[0])

"""The maps, loop sizes and payloads of linalg ops mean what numpy computes.

A slow reference runs an op's loop nest literally: for every point of the iteration
space (``static_loop_sizes``) it reads each operand element through its indexing map,
evaluates the payload block (a few arith ops, interpreted here), and writes the
yielded values through the output maps. On random inputs (fixed seeds) the result must
match numpy's matmul, convolution, transpose, broadcast, reduction and map; and the
``generalize()``d op must compute the same.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects import arith, func
from tinycomp.dialects.linalg import (
    BatchMatmulOp,
    BroadcastOp,
    Conv2DNhwcHwcfOp,
    FillOp,
    MapOp,
    MatmulOp,
    ReduceOp,
    StructuredOp,
    TransposeOp,
)
from tinycomp.ir import FunctionType, RankedTensorType, f16, f32, i8, i32, parse
from tinycomp.ir.type_helpers import to_numpy_dtype

_BINARY = {
    "arith.addf": np.add, "arith.addi": np.add, "arith.mulf": np.multiply,
    "arith.muli": np.multiply, "arith.subf": np.subtract, "arith.maximumf": np.maximum,
}  # fmt: skip
_CASTS = ("arith.extf", "arith.truncf", "arith.extsi", "arith.sitofp", "arith.trunci")


def evaluate_payload(op: StructuredOp, elements: list) -> list:
    """Interpret the payload block on one element per operand (numpy scalars)."""
    values = dict(zip(op.body.arguments, elements, strict=True))
    for payload_op in op.body:
        operands = [values[v] for v in payload_op.operands]
        if payload_op.name == "linalg.yield":
            return operands
        dtype = to_numpy_dtype(payload_op.result.type) if payload_op.results else None
        if payload_op.name in _BINARY:
            values[payload_op.result] = dtype.type(_BINARY[payload_op.name](*operands))
        elif payload_op.name in _CASTS:
            values[payload_op.result] = dtype.type(operands[0])
        elif payload_op.name == "arith.extui":
            unsigned = np.dtype(f"u{operands[0].dtype.itemsize}")
            values[payload_op.result] = dtype.type(operands[0].astype(unsigned))
        else:
            raise NotImplementedError(payload_op.name)
    raise AssertionError("the payload has no linalg.yield")


def run_loop_nest(op: StructuredOp, arrays: list[np.ndarray]) -> list[np.ndarray]:
    """The outputs after running ``op`` on ``arrays`` (one per operand) the slow way."""
    maps = op.indexing_maps()
    outputs = [np.array(a) for a in arrays[op.num_inputs :]]
    sizes = op.loop_sizes_from_shapes([a.shape for a in arrays])
    for point in np.ndindex(*sizes):
        positions = [m.evaluate(point) for m in maps]
        elements = [arrays[i][positions[i]] for i in range(op.num_inputs)]
        for j, output in enumerate(outputs):
            elements.append(output[positions[op.num_inputs + j]])
        for j, value in enumerate(evaluate_payload(op, elements)):
            outputs[j][positions[op.num_inputs + j]] = value
    return outputs


def tensor_arguments(*types):
    """Block arguments of the given types, inside a function (so ops verify)."""
    return func.FuncOp.build("f", FunctionType(list(types), [])).arguments


def random_array(rng: np.random.Generator, shape, dtype) -> np.ndarray:
    """Random data: integers in [-9, 9] for integer types, normals for floats."""
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 10, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def check(op: StructuredOp, arrays: list[np.ndarray], expected: np.ndarray, rtol: float = 1e-5):
    """``op`` and ``op.generalize()`` both compute ``expected`` from ``arrays``."""
    for candidate in (op, op.generalize()):
        (result,) = run_loop_nest(candidate, arrays)
        np.testing.assert_allclose(result, expected, rtol=rtol, atol=1e-5)


def test_matmul():
    rng = np.random.default_rng(0)
    a, b, c = (RankedTensorType(s, f32) for s in ((3, 5), (5, 4), (3, 4)))
    op = MatmulOp.build(*tensor_arguments(a, b, c))
    arrays = [random_array(rng, t.shape, np.float32) for t in (a, b, c)]
    check(op, arrays, arrays[2] + arrays[0] @ arrays[1])


def test_matmul_with_a_transposed_operand():
    rng = np.random.default_rng(1)
    text = """func.func @f(%at: tensor<5x3xf32>, %b: tensor<5x4xf32>, %c: tensor<3x4xf32>) {
      %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>,
          affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
          ins(%at, %b : tensor<5x3xf32>, tensor<5x4xf32>) outs(%c : tensor<3x4xf32>)
          -> tensor<3x4xf32>
      return
    }"""
    op = next(o for o in parse(text).walk() if isinstance(o, MatmulOp))
    arrays = [random_array(rng, s, np.float32) for s in ((5, 3), (5, 4), (3, 4))]
    check(op, arrays, arrays[2] + arrays[0].T @ arrays[1])


@pytest.mark.parametrize("unsigned", [False, True], ids=["signed", "unsigned"])
def test_int8_matmul_accumulates_in_int32(unsigned):
    rng = np.random.default_rng(2)
    a, b, c = (
        RankedTensorType((3, 6), i8),
        RankedTensorType((6, 2), i8),
        RankedTensorType((3, 2), i32),
    )
    op = MatmulOp.build(*tensor_arguments(a, b, c), unsigned=unsigned)
    arrays = [random_array(rng, t.shape, to_numpy_dtype(t)) for t in (a, b, c)]
    widen = (lambda x: x.astype(np.uint8).astype(np.int32)) if unsigned else np.int32
    expected = arrays[2] + widen(arrays[0]) @ widen(arrays[1])
    check(op, arrays, expected)


def test_batch_matmul_in_f16_accumulating_in_f32():
    rng = np.random.default_rng(3)
    a, b, c = (RankedTensorType((2, 3, 4), f16), RankedTensorType((2, 4, 5), f16),
               RankedTensorType((2, 3, 5), f32))  # fmt: skip
    op = BatchMatmulOp.build(*tensor_arguments(a, b, c))
    arrays = [random_array(rng, t.shape, to_numpy_dtype(t)) for t in (a, b, c)]
    expected = arrays[2] + np.matmul(arrays[0].astype(np.float32), arrays[1].astype(np.float32))
    check(op, arrays, expected, rtol=1e-4)


def conv_reference(image, kernel, out, strides, dilations):
    """NHWC x HWCF convolution with numpy slicing, added to ``out``."""
    result = out.astype(np.float64)
    (sh, sw), (dh, dw) = strides, dilations
    _, oh, ow, _ = out.shape
    for kh in range(kernel.shape[0]):
        for kw in range(kernel.shape[1]):
            rows = slice(kh * dh, kh * dh + (oh - 1) * sh + 1, sh)
            cols = slice(kw * dw, kw * dw + (ow - 1) * sw + 1, sw)
            result += np.einsum("nhwc,cf->nhwf", image[:, rows, cols, :], kernel[kh, kw])
    return result


@pytest.mark.parametrize(
    "strides, dilations", [((1, 1), (1, 1)), ((2, 1), (1, 2)), ((2, 2), (2, 1))]
)
def test_conv_2d_nhwc_hwcf(strides, dilations):
    rng = np.random.default_rng(4)
    image, kernel = RankedTensorType((2, 7, 8, 2), f32), RankedTensorType((3, 2, 2, 3), f32)
    oh = (7 - (3 - 1) * dilations[0] - 1) // strides[0] + 1
    ow = (8 - (2 - 1) * dilations[1] - 1) // strides[1] + 1
    out = RankedTensorType((2, oh, ow, 3), f32)
    op = Conv2DNhwcHwcfOp.build(*tensor_arguments(image, kernel, out), strides, dilations)
    op.verify_op()
    arrays = [random_array(rng, t.shape, np.float32) for t in (image, kernel, out)]
    check(op, arrays, conv_reference(*arrays, strides, dilations), rtol=1e-4)


def test_fill():
    rng = np.random.default_rng(5)
    value, out = tensor_arguments(f32, RankedTensorType((3, 4), f32))
    op = FillOp.build(value, out)
    scalar = np.float32(rng.standard_normal())
    check(op, [np.array(scalar), random_array(rng, (3, 4), np.float32)], np.full((3, 4), scalar))


@settings(max_examples=20, deadline=None)
@given(st.permutations(range(3)), st.lists(st.integers(1, 4), min_size=3, max_size=3))
def test_transpose_is_numpy_transpose(permutation, shape):
    rng = np.random.default_rng(6)
    out_shape = tuple(shape[p] for p in permutation)
    x, init = tensor_arguments(RankedTensorType(shape, f32), RankedTensorType(out_shape, f32))
    op = TransposeOp.build(x, init, permutation)
    assert op.static_loop_sizes() == out_shape
    array = random_array(rng, shape, np.float32)
    check(op, [array, np.zeros(out_shape, np.float32)], np.transpose(array, permutation))


@settings(max_examples=20, deadline=None)
@given(st.sets(st.integers(0, 2), max_size=2), st.lists(st.integers(1, 3), min_size=3, max_size=3))
def test_broadcast_and_reduce_are_numpy(dimensions, shape):
    rng = np.random.default_rng(7)
    dims = sorted(dimensions)
    small = tuple(s for i, s in enumerate(shape) if i not in dims)
    big_type, small_type = RankedTensorType(shape, f32), RankedTensorType(small, f32)
    big, small_value, big_init = tensor_arguments(big_type, small_type, big_type)
    broadcast = BroadcastOp.build(small_value, big_init, dims)
    source = random_array(rng, small, np.float32)
    expected = np.broadcast_to(np.expand_dims(source, dims), shape)
    check(broadcast, [source, np.zeros(shape, np.float32)], expected)
    reduce = ReduceOp.build(
        [big], [small_value], dims, lambda b, args: [b.insert(arith.AddFOp.build(*args)).result]
    )
    assert reduce.reduction_dims() == dims
    array, init = random_array(rng, shape, np.float32), random_array(rng, small, np.float32)
    check(reduce, [array, init], init + array.sum(axis=tuple(dims)), rtol=1e-4)


def test_map():
    rng = np.random.default_rng(8)
    t = RankedTensorType((4, 5), f32)
    a, b, init = tensor_arguments(t, t, t)
    op = MapOp.build(
        [a, b], init, lambda bld, args: [bld.insert(arith.SubFOp.build(*args[:2])).result]
    )
    arrays = [random_array(rng, (4, 5), np.float32) for _ in range(3)]
    check(op, arrays, arrays[0] - arrays[1])

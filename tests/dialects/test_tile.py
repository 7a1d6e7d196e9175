"""The tile dialect: ``tile.load`` and ``tile.store`` parse, print, verify (each error
names the op, what was expected and what was found), declare their memory effects, and
run on the interpreter as a numpy gather and a masked scatter."""

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp import interpret, parse
from tinycomp.dialects.tile import LoadOp, StoreOp
from tinycomp.interp import InterpreterError
from tinycomp.ir.effects import memory_effects
from tinycomp.ir.equality import first_difference
from tinycomp.ir.errors import VerifyError

RNG = np.random.default_rng(3)

GATHER_SCATTER = """
func.func @main(%x: memref<?xf32>, %y: memref<?xf32>, %o: tensor<2x3xi32>,
                %m: tensor<2x3xi1>, %other: f32) {
  %t = "tile.load"(%x, %o, %m, %other)
      : (memref<?xf32>, tensor<2x3xi32>, tensor<2x3xi1>, f32) -> tensor<2x3xf32>
  "tile.store"(%y, %o, %t, %m)
      : (memref<?xf32>, tensor<2x3xi32>, tensor<2x3xf32>, tensor<2x3xi1>) -> ()
  return
}"""


def _module(load_operands: str, load_types: str, result: str) -> str:
    return f"""
func.func @f(%x: memref<?xf32>, %x2: memref<4x4xf32>, %o: tensor<4xi32>, %fo: tensor<4xf32>,
             %m: tensor<4xi1>, %m8: tensor<8xi1>, %c: f32, %h: f16) {{
  %t = "tile.load"({load_operands}) : ({load_types}) -> {result}
  return
}}"""


@pytest.mark.parametrize(
    "operands, types, result, expected",
    [
        (
            "%x2, %o",
            "memref<4x4xf32>, tensor<4xi32>",
            "tensor<4xf32>",
            "expected a 1-D memref as the buffer (operand #0), got memref<4x4xf32>",
        ),
        (
            "%x, %fo",
            "memref<?xf32>, tensor<4xf32>",
            "tensor<4xf32>",
            "expected a tensor of integer offsets (operand #1), got tensor<4xf32>",
        ),
        (
            "%x, %o",
            "memref<?xf32>, tensor<4xi32>",
            "tensor<4xf16>",
            "expected the result to be tensor<4xf32> (the offsets' shape, the buffer's element "
            "type), got tensor<4xf16>",
        ),
        (
            "%x, %o, %m8, %c",
            "memref<?xf32>, tensor<4xi32>, tensor<8xi1>, f32",
            "tensor<4xf32>",
            "expected the mask to be tensor<4xi1> (the offsets' shape), got tensor<8xi1>",
        ),
        (
            "%x, %o, %m, %h",
            "memref<?xf32>, tensor<4xi32>, tensor<4xi1>, f16",
            "tensor<4xf32>",
            "expected 'other' to be f32 or tensor<4xf32>, got f16",
        ),
        (
            "%x, %o, %m",
            "memref<?xf32>, tensor<4xi32>, tensor<4xi1>",
            "tensor<4xf32>",
            "expected operands (buffer, offsets) or (buffer, offsets, mask, other), got 3",
        ),
    ],
)
def test_load_verifier(operands, types, result, expected):
    with pytest.raises(VerifyError) as info:
        parse(_module(operands, types, result))
    assert "'tile.load'" in str(info.value) and expected in str(info.value)


def test_store_verifier_names_the_value_type():
    text = """
func.func @f(%x: memref<?xf16>, %o: tensor<4xi32>, %v: tensor<4xf32>) {
  "tile.store"(%x, %o, %v) : (memref<?xf16>, tensor<4xi32>, tensor<4xf32>) -> ()
  return
}"""
    with pytest.raises(VerifyError) as info:
        parse(text)
    message = str(info.value)
    assert "'tile.store'" in message
    assert "expected the value to be tensor<4xf16>" in message and "got tensor<4xf32>" in message


def test_ops_are_registered_and_round_trip():
    module = parse(GATHER_SCATTER)
    load, store = module.body.first_op.entry_block.ops[:2]
    assert isinstance(load, LoadOp) and isinstance(store, StoreOp)
    assert load.mask is not None and store.mask is load.mask
    assert first_difference(module, parse(str(module))) is None


def test_declared_effects():
    module = parse(GATHER_SCATTER)
    load, store = module.body.first_op.entry_block.ops[:2]
    assert [(e.kind, e.value) for e in memory_effects(load)] == [("read", load.operands[0])]
    assert [(e.kind, e.value) for e in memory_effects(store)] == [("write", store.operands[0])]


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_the_generic_form():
    run_mlir_opt(str(parse(GATHER_SCATTER)), "--verify-each")


def test_gather_and_masked_scatter_match_numpy():
    x = RNG.standard_normal(9).astype(np.float32)
    y = RNG.standard_normal(9).astype(np.float32)
    offsets = RNG.permutation(9)[:6].reshape(2, 3).astype(np.int32)
    mask = RNG.random((2, 3)) < 0.6
    mask[0, 0] = True
    expected = y.copy()
    gathered = np.where(mask, x[offsets], np.float32(-7.0))
    expected[offsets[mask]] = gathered[mask]
    interpret(GATHER_SCATTER, x, y, offsets, mask, -7.0)
    np.testing.assert_array_equal(y, expected)


def test_masked_off_lanes_may_point_anywhere_but_active_ones_may_not():
    x, y = np.ones(4, np.float32), np.zeros(4, np.float32)
    offsets = np.array([[0, 1, 99], [2, -5, 3]], np.int32)
    mask = np.array([[True, True, False], [True, False, True]])
    interpret(GATHER_SCATTER, x, y, offsets, mask, 0.0)
    np.testing.assert_array_equal(y, np.ones(4, np.float32))
    mask[1, 1] = True
    with pytest.raises(InterpreterError) as info:
        interpret(GATHER_SCATTER, x, y, offsets, mask, 0.0)
    message = str(info.value)
    assert "'tile.load'" in message and "lane [1, 1]" in message
    assert "offset -5" in message and "%x of 4 elements" in message

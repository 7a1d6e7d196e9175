"""Side effects, commutativity and constant matching, as the passes see them."""

from __future__ import annotations

import tinycomp.dialects.linalg  # noqa: F401  (registers linalg)
import tinycomp.dialects.memref  # noqa: F401  (registers memref)
import tinycomp.dialects.scf  # noqa: F401  (registers scf)
import tinycomp.dialects.tensor  # noqa: F401  (registers tensor)
from tinycomp.ir import parse
from tinycomp.rewrite import (
    constant_scalar,
    is_constant_float,
    is_constant_int,
    is_pure,
    is_registered,
    is_trivially_dead,
)

from .helpers import function_ops


def first_op_named(name: str, text: str):
    return next(op for op in parse(text).walk() if op.name == name)


def test_pure_registered_ops_and_unknown_ops():
    _, (add, unknown, _) = function_ops("""
func.func @f(%x: i32) {
  %a = arith.addi %x, %x : i32
  %u = "test.unknown"(%x) : (i32) -> i32
  return
}""")
    assert is_pure(add) and is_trivially_dead(add)
    assert is_registered(add) and not is_registered(unknown)
    assert not is_pure(unknown) and not is_trivially_dead(unknown)


def test_structured_ops_have_the_effects_of_their_bodies():
    pure_loop = first_op_named(
        "scf.for",
        """
func.func @f(%lb: index, %ub: index, %s: f32) -> f32 {
  %r = scf.for %i = %lb to %ub step %ub iter_args(%a = %s) -> (f32) {
    %n = arith.addf %a, %a : f32
    scf.yield %n : f32
  }
  return %s : f32
}""",
    )
    assert is_pure(pure_loop) and is_trivially_dead(pure_loop)
    storing_loop = first_op_named(
        "scf.for",
        """
func.func @f(%lb: index, %ub: index, %m: memref<4xf32>, %v: f32) {
  scf.for %i = %lb to %ub step %ub {
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}""",
    )
    assert not is_pure(storing_loop) and not is_trivially_dead(storing_loop)


def test_linalg_is_pure_on_tensors_only():
    on_tensors = first_op_named(
        "linalg.transpose",
        """
func.func @f(%x: tensor<2x3xf32>, %init: tensor<3x2xf32>) {
  %t = linalg.transpose ins(%x : tensor<2x3xf32>) outs(%init : tensor<3x2xf32>) permutation = [1, 0]
  return
}""",
    )
    on_memrefs = first_op_named(
        "linalg.transpose",
        """
func.func @f(%x: memref<2x3xf32>, %init: memref<3x2xf32>) {
  linalg.transpose ins(%x : memref<2x3xf32>) outs(%init : memref<3x2xf32>) permutation = [1, 0]
  return
}""",
    )
    assert is_pure(on_tensors) and not is_pure(on_memrefs)


def test_an_unused_allocation_is_dead_but_not_pure():
    alloc = first_op_named(
        "memref.alloc",
        """
func.func @f() {
  %m = memref.alloc() : memref<4xf32>
  return
}""",
    )
    assert is_trivially_dead(alloc) and not is_pure(alloc)


def test_constant_matchers_look_through_splats_and_respect_signed_zero():
    _, ops = function_ops("""
func.func @f() {
  %z = arith.constant 0.0 : f32
  %nz = arith.constant -0.0 : f32
  %nan = arith.constant 0x7FC00000 : f32
  %v = arith.constant dense<[1, 2]> : vector<2xi32>
  %s = arith.constant dense<3> : vector<2xi32>
  %t = arith.constant true
  return
}""")
    z, nz, nan, v, s, t = (op.result for op in ops[:6])
    assert is_constant_float(z, 0.0) and not is_constant_float(z, -0.0)
    assert is_constant_float(nz, -0.0) and not is_constant_float(nz, 0.0)
    assert not is_constant_float(nan, float("nan"))
    assert constant_scalar(v) is None and constant_scalar(s) == 3
    assert is_constant_int(t, 1) and not is_constant_int(z, 0)

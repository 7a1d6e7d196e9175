"""Canonicalization patterns on the cases the golden files do not show: what must NOT
be rewritten, vectors, and the corners of the structured-op patterns."""

from __future__ import annotations

import pytest

from tinycomp.ir import parse, verify
from tinycomp.passes import CanonicalizePass, canonicalization_patterns
from tinycomp.passes.canonicalize import compose_permutations

from . import helpers  # noqa: F401  (registers the dialects)


def canonicalized(text: str) -> str:
    module = parse(text)
    CanonicalizePass().run(module)
    verify(module)
    return str(module.body.first_op)


def test_every_pattern_states_its_algebra_and_root():
    for pattern in canonicalization_patterns():
        assert "->" in pattern.algebra, pattern.name
        assert pattern.root is None or "." in pattern.root


@pytest.mark.parametrize(
    "body, kept",
    [
        ("%r = arith.addf %x, %zero : f32", "arith.addf"),  # -0.0 + 0.0 is +0.0
        ("%r = arith.mulf %x, %zero : f32", "arith.mulf"),  # NaN * 0 is NaN
        ("%r = arith.subf %x, %x : f32", "arith.subf"),  # inf - inf is NaN
        ("%r = arith.subf %x, %negzero : f32", "arith.subf"),  # x - (-0.0) is x + 0.0
        ("%r = arith.mulf %x, %zero fastmath<nsz> : f32", "arith.mulf"),  # needs nnan too
    ],
)
def test_float_rewrites_that_would_change_results_are_not_made(body, kept):
    text = f"""
func.func @f(%x: f32) -> f32 {{
  %zero = arith.constant 0.0 : f32
  %negzero = arith.constant -0.0 : f32
  {body}
  return %r : f32
}}"""
    assert kept in canonicalized(text)


def test_vector_identities_and_absorbing_zero():
    text = """
func.func @f(%v: vector<4xi32>) -> (vector<4xi32>, vector<4xi32>) {
  %ones = arith.constant dense<1> : vector<4xi32>
  %zeros = arith.constant dense<0> : vector<4xi32>
  %a = arith.muli %v, %ones : vector<4xi32>
  %b = arith.muli %v, %zeros : vector<4xi32>
  return %a, %b : vector<4xi32>, vector<4xi32>
}"""
    result = canonicalized(text)
    assert "arith.muli" not in result
    assert "return %v, %zeros" in result


def test_a_non_splat_vector_is_not_an_identity():
    text = """
func.func @f(%v: vector<2xi32>) -> vector<2xi32> {
  %c = arith.constant dense<[1, 0]> : vector<2xi32>
  %a = arith.addi %v, %c : vector<2xi32>
  return %a : vector<2xi32>
}"""
    assert "arith.addi" in canonicalized(text)


def test_cmpi_of_equal_vectors_gives_a_splat():
    text = """
func.func @f(%v: vector<4xi32>) -> vector<4xi1> {
  %r = arith.cmpi uge, %v, %v : vector<4xi32>
  return %r : vector<4xi1>
}"""
    assert "arith.constant dense<true> : vector<4xi1>" in canonicalized(text)


def test_select_with_a_splat_condition():
    text = """
func.func @f(%a: vector<2xf32>, %b: vector<2xf32>) -> vector<2xf32> {
  %c = arith.constant dense<false> : vector<2xi1>
  %r = arith.select %c, %a, %b : vector<2xi1>, vector<2xf32>
  return %r : vector<2xf32>
}"""
    assert "return %b" in canonicalized(text)


def test_composing_permutations():
    assert compose_permutations((1, 0), (1, 0)) == (0, 1)
    assert compose_permutations((1, 2, 0), (1, 2, 0)) == (2, 0, 1)


def test_transposes_on_memrefs_are_left_alone():
    text = """
func.func @f(%x: memref<2x3xf32>, %t: memref<3x2xf32>, %y: memref<2x3xf32>) {
  linalg.transpose ins(%x : memref<2x3xf32>) outs(%t : memref<3x2xf32>) permutation = [1, 0]
  linalg.transpose ins(%t : memref<3x2xf32>) outs(%y : memref<2x3xf32>) permutation = [1, 0]
  return
}"""
    assert canonicalized(text).count("linalg.transpose") == 2


def test_slices_with_dynamic_or_partial_extents_are_kept():
    text = """
func.func @f(%x: tensor<4xf32>, %o: index) -> (tensor<4xf32>, tensor<2xf32>) {
  %a = tensor.extract_slice %x[%o] [4] [1] : tensor<4xf32> to tensor<4xf32>
  %b = tensor.extract_slice %x[0] [2] [2] : tensor<4xf32> to tensor<2xf32>
  return %a, %b : tensor<4xf32>, tensor<2xf32>
}"""
    assert canonicalized(text).count("tensor.extract_slice") == 2


def test_a_loop_that_runs_is_kept_and_unsigned_bounds_are_respected():
    text = """
func.func @f(%s: i32) -> (i32, i32) {
  %lb = arith.constant 0 : i32
  %ub = arith.constant -1 : i32
  %step = arith.constant 1 : i32
  %signed = scf.for %i = %lb to %ub step %step iter_args(%a = %s) -> (i32) : i32 {
    %n = arith.addi %a, %i : i32
    scf.yield %n : i32
  }
  %unsigned = scf.for unsigned %i = %lb to %ub step %step iter_args(%a = %s) -> (i32) : i32 {
    %n = arith.addi %a, %i : i32
    scf.yield %n : i32
  }
  return %signed, %unsigned : i32, i32
}"""
    result = canonicalized(text)
    assert result.count("scf.for") == 1 and "scf.for unsigned" in result


def test_scf_if_without_else():
    text = """
func.func @f(%m: memref<4xf32>, %v: f32, %i: index) {
  %true = arith.constant true
  %false = arith.constant false
  scf.if %true {
    memref.store %v, %m[%i] : memref<4xf32>
  }
  scf.if %false {
    memref.store %v, %m[%i] : memref<4xf32>
  }
  return
}"""
    result = canonicalized(text)
    assert "scf.if" not in result and result.count("memref.store") == 1


def test_buffers_that_escape_or_are_read_are_kept():
    text = """
func.func @f(%v: f32, %i: index, %out: memref<memref<4xf32>>) {
  %escapes = memref.alloc() : memref<4xf32>
  memref.store %v, %escapes[%i] : memref<4xf32>
  func.call @consume(%escapes) : (memref<4xf32>) -> ()
  %stored_as_value = memref.alloc() : memref<4xf32>
  memref.store %stored_as_value, %out[] : memref<memref<4xf32>>
  return
}
func.func private @consume(memref<4xf32>)"""
    assert canonicalized(text).count("memref.alloc") == 2


def test_no_constant_replaces_a_tensor_of_unknown_shape():
    text = """
func.func @f(%t: tensor<?xi32>) -> (tensor<?xi32>, tensor<?xi1>) {
  %d = arith.subi %t, %t : tensor<?xi32>
  %c = arith.cmpi eq, %t, %t : tensor<?xi32>
  return %d, %c : tensor<?xi32>, tensor<?xi1>
}"""
    result = canonicalized(text)
    assert "arith.subi" in result and "arith.cmpi" in result

"""The atomic ops ``memref.atomic_rmw``, ``memref.generic_atomic_rmw`` and
``memref.atomic_yield``, and ``vector.from_elements``: syntax as mlir-opt prints it,
builders, verifier errors (the same texts mlir-opt rejects) and declared facts."""

from __future__ import annotations

import pytest

from tinycomp.dialects import arith, memref, vector
from tinycomp.dialects.memref.atomic import ATOMIC_KINDS
from tinycomp.ir import Block, MemRefType, ParseError, f32, i32, index, ir_equal, parse, print_ir
from tinycomp.ir.builder import Builder
from tinycomp.ir.effects import is_pure, may_read, may_write, memory_effects
from tinycomp.ir.types import VectorType

from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output
from .roundtrip import assert_round_trip, assert_verify_error, first_op_named

SIGNATURE = "(%arg0: memref<?xf32>, %arg1: memref<?x?xi32>, %arg2: index, %arg3: f32, %arg4: i32)"
BODY = """\
%0 = memref.atomic_rmw addf %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32
%1 = memref.atomic_rmw maximumf %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32
%2 = memref.atomic_rmw maxs %arg4, %arg1[%arg2, %arg2] : (i32, memref<?x?xi32>) -> i32
%3 = memref.atomic_rmw assign %arg4, %arg1[%arg2, %arg2] : (i32, memref<?x?xi32>) -> i32
%4 = memref.generic_atomic_rmw %arg1[%arg2, %arg2] : memref<?x?xi32> {
^bb0(%arg5: i32):
  %6 = arith.cmpi eq, %arg5, %arg4 : i32
  %7 = arith.select %6, %2, %arg5 : i32
  memref.atomic_yield %7 : i32
}
%5 = vector.from_elements %0, %1, %arg3, %arg3 : vector<4xf32>"""


def function(body: str, signature: str = SIGNATURE) -> str:
    lines = "\n".join("    " + line for line in body.strip().splitlines())
    return f"module {{\n  func.func @f{signature} {{\n{lines}\n    return\n  }}\n}}"


def test_the_ops_round_trip_in_mlir_syntax():
    module = assert_round_trip(function(BODY))
    add = first_op_named(module, "memref.atomic_rmw")
    assert isinstance(add, memref.AtomicRMWOp) and add.kind == "addf"
    assert add.attributes["kind"].value == 0
    cas = first_op_named(module, "memref.generic_atomic_rmw")
    assert isinstance(cas, memref.GenericAtomicRMWOp)
    assert cas.current_value.type == i32 and len(cas.indices) == 2
    assert [op.name for op in cas.body.ops][-1] == "memref.atomic_yield"
    vec = first_op_named(module, "vector.from_elements")
    assert isinstance(vec, vector.FromElementsOp) and len(vec.elements) == 4


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_prints_them_the_same_and_agrees_on_the_kind_numbers():
    text = function(BODY)
    assert strip_mlir_opt_output(run_mlir_opt(text, "--verify-each")) == text
    module = parse(text)
    run_mlir_opt(print_ir(module, generic=True), "--verify-each")
    assert ir_equal(module, parse(run_mlir_opt(text, "--mlir-print-op-generic")))
    for kind in ATOMIC_KINDS:  # the stored number is MLIR's arith::AtomicRMWKind
        element = "f32" if kind in memref.atomic.FLOAT_ATOMIC_KINDS else "i32"
        line = (
            f"%0 = memref.atomic_rmw {kind} %v, %m[%i] : ({element}, memref<?x{element}>) "
            f"-> {element}"
        )
        body = function(line, f"(%m: memref<?x{element}>, %i: index, %v: {element})")
        generic = run_mlir_opt(body, "--mlir-print-op-generic")
        assert f"kind = {ATOMIC_KINDS.index(kind)} : i64" in generic, (kind, generic)
        assert ir_equal(parse(body), parse(generic)), kind


def test_builders():
    value, buffer, position, counter = Block(
        [f32, MemRefType((None,), f32), index, MemRefType((4, 4), i32)]
    ).arguments
    add = memref.AtomicRMWOp.build("addf", value, buffer, [position])
    assert add.kind == "addf" and add.result.type == f32 and add.indices == (position,)
    add.verify_op()
    cas = memref.GenericAtomicRMWOp.build(counter, [position, position])
    builder = Builder.at_end(cas.body)
    one = builder.insert(arith.ConstantOp.build(1, i32)).result
    new = builder.insert(arith.AddIOp.build(cas.current_value, one)).result
    builder.insert(memref.AtomicYieldOp.build(new))
    cas.verify_op()
    assert cas.result.type == i32 and cas.memref is counter
    lanes = vector.FromElementsOp.build([value, value, value])
    assert lanes.result.type == VectorType((3,), f32)
    grid = vector.FromElementsOp.build([value] * 4, VectorType((2, 2), f32))
    grid.verify_op()
    with pytest.raises(ValueError, match="expected an atomic kind .* got 'add'"):
        memref.AtomicRMWOp.build("add", value, buffer, [position])
    with pytest.raises(ValueError, match="expected at least one element"):
        vector.FromElementsOp.build([])


def test_declared_effects_name_the_buffer():
    module = parse(function(BODY))
    f = module.body.first_op
    floats, ints = f.arguments[0], f.arguments[1]
    add = first_op_named(module, "memref.atomic_rmw")
    assert {(e.kind, e.value) for e in memory_effects(add)} == {("read", floats), ("write", floats)}
    assert may_read(add, floats) and may_write(add, floats)
    cas = first_op_named(module, "memref.generic_atomic_rmw")
    assert {(e.kind, e.value) for e in memory_effects(cas)} == {("read", ints), ("write", ints)}
    assert not cas.has_recursive_effects
    assert memref.AtomicYieldOp.is_terminator and memref.AtomicYieldOp.is_pure
    assert is_pure(first_op_named(module, "vector.from_elements"))


BAD_BODIES = [
    ("%0 = memref.atomic_rmw addf %arg4, %arg1[%arg2, %arg2] : (i32, memref<?x?xi32>) -> i32",
     "expected a float type for kind 'addf', got i32"),
    ("%0 = memref.atomic_rmw maxs %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32",
     "expected an integer type for kind 'maxs', got f32"),
    ("%0 = memref.atomic_rmw assign %arg4, %arg0[%arg2] : (i32, memref<?xf32>) -> i32",
     "expected the value and the result to have the element type f32, got i32 -> i32"),
    ("%0 = memref.atomic_rmw addi %arg4, %arg1[%arg2] : (i32, memref<?x?xi32>) -> i32",
     "expected 2 indices (the rank of memref<?x?xi32>), got 1"),
    ('%0 = "memref.atomic_rmw"(%arg3, %arg0, %arg2) <{kind = 42 : i64}> '
     ": (f32, memref<?xf32>, index) -> f32", "expected 'kind' to be an i64 in [0, 16)"),
    ("%0 = memref.generic_atomic_rmw %arg0[%arg2] : memref<?xf32> {\n"
     "^bb0(%arg5: f32):\n  memref.store %arg5, %arg0[%arg2] : memref<?xf32>\n"
     "  memref.atomic_yield %arg5 : f32\n}",
     "expected only side-effect-free ops in the body, got 'memref.store'"),
    ("%0 = memref.generic_atomic_rmw %arg0[%arg2] : memref<?xf32> {\n"
     "^bb0(%arg5: i32):\n  memref.atomic_yield %arg3 : f32\n}",
     "expected the body to take one f32 argument (the current value), got (i32)"),
    ("%0 = memref.generic_atomic_rmw %arg0[%arg2] : memref<?xf32> {\n"
     "^bb0(%arg5: f32):\n  memref.atomic_yield %arg4 : i32\n}",
     "expected to yield the element type f32, got i32"),
    ("%0 = vector.from_elements %arg3, %arg3 : vector<4xf32>",
     "expected 4 elements (one per lane of vector<4xf32>), got 2"),
    ('%0 = "vector.from_elements"(%arg3, %arg4) : (f32, i32) -> vector<2xf32>',
     "expected element #1 to be f32, got i32"),
]  # fmt: skip
"""Bodies that both tinycomp and mlir-opt reject, and tinycomp's message."""


@pytest.mark.parametrize(("body", "message"), BAD_BODIES)
def test_verifier_errors_name_what_is_wrong(body, message):
    assert_verify_error(function(body), message)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("body", "message"), BAD_BODIES)
def test_mlir_opt_rejects_them_too(body, message):
    with pytest.raises(MlirOptError):
        run_mlir_opt(function(body), "--verify-each")


def test_a_yield_outside_the_atomic_region_is_an_error():
    body = "scf.execute_region {\n  memref.atomic_yield %arg3 : f32\n}"
    assert_verify_error(
        function(body), "expected to be inside memref.generic_atomic_rmw, got 'scf.execute_region'"
    )


def test_an_unknown_kind_in_custom_syntax_is_a_parse_error():
    body = "%0 = memref.atomic_rmw sum %arg3, %arg0[%arg2] : (f32, memref<?xf32>) -> f32"
    with pytest.raises(ParseError, match="expected an atomic kind .*got 'sum'"):
        parse(function(body))

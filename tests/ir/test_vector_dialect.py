"""The vector dialect: MLIR's syntax both ways, builders, verifiers, and real MLIR."""

from __future__ import annotations

import pytest

from ir.mlir_opt import requires_mlir_opt, run_mlir_opt
from tinycomp.dialects import vector
from tinycomp.dialects.vector.reduction import (
    COMBINING_KINDS,
    combiner_op,
    reduction_identity,
)
from tinycomp.ir import (
    Block,
    MemRefType,
    VectorType,
    VerifyError,
    f16,
    f32,
    i1,
    i32,
    index,
    ir_equal,
    parse,
    print_ir,
    verify,
)
from tinycomp.ir.attributes import StridedLayoutAttr
from tinycomp.ir.registry import registered_dialects

SIGNATURE = (
    "func.func @f(%m: memref<4x32xf32>, %i: index, %j: index, %s: f32, %w: vector<8xi32>, "
    "%t: vector<4x8xf32>) -> f32 {"
)
EVERY_OP = (
    "module {\n  "
    + SIGNATURE
    + """
    %v = vector.load %m[%i, %j] : memref<4x32xf32>, vector<8xf32>
    %box = vector.load %m[%i, %j] {nontemporal = true} : memref<4x32xf32>, vector<2x8xf32>
    %b = vector.broadcast %s : f32 to vector<8xf32>
    %rows = vector.broadcast %v : vector<8xf32> to vector<4x8xf32>
    %f = vector.fma %v, %b, %v : vector<8xf32>
    %e = math.exp %f : vector<8xf32>
    %c = arith.cmpf olt, %e, %b : vector<8xf32>
    %sel = arith.select %c, %e, %b : vector<8xi1>, vector<8xf32>
    %sum = vector.reduction <add>, %sel, %s : vector<8xf32> into f32
    %max = vector.reduction <maximumf>, %sel fastmath<nnan> : vector<8xf32> into f32
    %imax = vector.reduction <maxsi>, %w : vector<8xi32> into i32
    %x = vector.extract %sel[3] : f32 from vector<8xf32>
    %y = vector.extract %t[%i, 2] : f32 from vector<4x8xf32>
    %row = vector.extract %t[1] : vector<8xf32> from vector<4x8xf32>
    %z = vector.insert %x, %sel [0] : f32 into vector<8xf32>
    %t2 = vector.insert %row, %t [%j] : vector<8xf32> into vector<4x8xf32>
    vector.store %z, %m[%i, %j] : memref<4x32xf32>, vector<8xf32>
    vector.store %box, %m[%i, %j] : memref<4x32xf32>, vector<2x8xf32>
    return %sum : f32
  }
}"""
)


def test_every_op_prints_back_as_written():
    module = parse(EVERY_OP)
    assert str(module) == EVERY_OP
    assert ir_equal(parse(print_ir(module, generic=True)), module)


def test_the_dialect_is_registered_with_its_ops():
    names = {op.name for op in registered_dialects()["vector"].ops}
    assert names == {
        "vector.load", "vector.store", "vector.broadcast", "vector.fma", "vector.reduction",
        "vector.extract", "vector.insert", "vector.from_elements",
    }  # fmt: skip


def test_builders_make_verified_ops():
    m, i, s, v = Block([MemRefType((4, 32), f32), index, f32, VectorType((8,), f32)]).arguments
    load = vector.LoadOp.build(m, [i, i], 8)
    store = vector.StoreOp.build(v, m, [i, i])
    assert (load.base, load.indices, store.value, store.base) == (m, (i, i), v, m)
    broadcast = vector.BroadcastOp.build(s, VectorType((8,), f32))
    fma = vector.FMAOp.build(v, v, v)
    reduction = vector.ReductionOp.build("maximumf", v, s, fastmath="nnan")
    extract = vector.ExtractOp.build(v, [i])
    insert = vector.InsertOp.build(s, v, [5])
    for op in (load, store, broadcast, fma, reduction, extract, insert):
        op.verify_op()
    assert (reduction.kind, reduction.vector, reduction.acc) == ("maximumf", v, s)
    assert extract.position == [i] and insert.position == [5]
    assert extract.result.type == f32 and insert.result.type == v.type


def test_combining_kinds_name_their_arith_op_and_identity():
    assert combiner_op("add", f16) == "arith.addf" and combiner_op("add", i32) == "arith.addi"
    assert combiner_op("and", f32) is None and combiner_op("minimumf", i32) is None
    for kind, (float_op, int_op) in COMBINING_KINDS.items():
        assert float_op or int_op, kind
    assert reduction_identity("add", f32) == 0.0 and str(reduction_identity("add", f32)) == "-0.0"
    assert reduction_identity("minsi", i32) == 2**31 - 1
    assert reduction_identity("minui", i32) == -1  # all ones
    assert reduction_identity("and", i1) == 1


ERRORS = {
    "element type": (
        "%v = vector.load %m[%i, %i] : memref<4x32xf32>, vector<8xf16>",
        "expected a vector of f32 (the memref's element type), got vector<8xf16>",
    ),
    "index count": (
        "%v = vector.load %m[%i] : memref<4x32xf32>, vector<8xf32>",
        "expected 2 indices (the rank of memref<4x32xf32>), got 1",
    ),
    "rank": (
        "%v = vector.load %n[%i] : memref<32xf32>, vector<2x8xf32>",
        "expected a vector of rank <= 1 (the memref's rank), got vector<2x8xf32>",
    ),
    "unit stride": (
        "%v = vector.load %strided[%i, %i] : memref<4x32xf32, strided<[64, 2]>>, vector<8xf32>",
        "most minor memref dim must have unit stride",
    ),
    "broadcast": (
        "%v = vector.broadcast %w : vector<4xf32> to vector<8xf32>",
        "cannot broadcast to vector<8xf32>: dimension 0 of vector<4xf32> is 4, expected 1 or 8",
    ),
    "fma of integers": (
        "%v = vector.fma %k, %k, %k : vector<8xi32>",
        "expected a vector of floats, got vector<8xi32>",
    ),
    "reduction kind": (
        "%r = vector.reduction <maxnumf>, %k : vector<8xi32> into i32",
        "unsupported reduction type 'i32' for kind 'maxnumf'",
    ),
    "reduction rank": (
        "%r = vector.reduction <add>, %t : vector<4x8xf32> into f32",
        "expected a 1-D vector to reduce, got vector<4x8xf32>",
    ),
    "reduction result": (
        "%r = vector.reduction <add>, %w : vector<4xf32> into f16",
        "expected result type f32, got f16",
    ),
    "extract position": (
        "%r = vector.extract %w[4] : f32 from vector<4xf32>",
        "expected position 0 in [0, 4), got 4",
    ),
    "insert value": (
        "%r = vector.insert %w, %t [1] : vector<4xf32> into vector<4x8xf32>",
        "expected a value of type vector<8xf32>, got vector<4xf32>",
    ),
}
ARGUMENTS = (
    "%m: memref<4x32xf32>, %n: memref<32xf32>, %strided: memref<4x32xf32, strided<[64, 2]>>, "
    "%i: index, %w: vector<4xf32>, %k: vector<8xi32>, %t: vector<4x8xf32>"
)


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_verifier_says_what_was_expected(case):
    line, message = ERRORS[case]
    module = parse(f"func.func @f({ARGUMENTS}) {{\n  {line}\n  return\n}}", verify=False)
    with pytest.raises(VerifyError, match="at line 2") as caught:
        verify(module)
    assert message in str(caught.value)


def test_innermost_stride_one_views_are_accepted():
    layout = StridedLayoutAttr((64, 1), None)
    (view,) = Block([MemRefType((4, 32), f32, layout)]).arguments
    (i,) = Block([index]).arguments
    vector.LoadOp.build(view, [i, i], 16).verify_op()


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_accepts_both_forms_and_agrees_on_structure():
    module = parse(EVERY_OP)
    run_mlir_opt(str(module), "--verify-each")
    generic = run_mlir_opt(print_ir(module, generic=True), "--mlir-print-op-generic")
    assert ir_equal(parse(generic), module)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("case", sorted(set(ERRORS) - {"insert value"}))
def test_mlir_opt_rejects_what_tinycomp_rejects(case):
    # MLIR 22's verifier of vector.insert compares only the ranks of the value and the
    # position, so it accepts "insert value"; tinycomp also checks the shape.
    line, _ = ERRORS[case]
    text = f"func.func @f({ARGUMENTS}) {{\n  {line}\n  return\n}}"
    with pytest.raises(AssertionError, match="error"):
        run_mlir_opt(text)

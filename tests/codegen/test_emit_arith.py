"""arith ops, one by one: the JIT'ed code computes what the interpreter computes.

Each op runs inside a loop over 64 random elements (with NaNs, infinities and signed
zeros mixed in for the float ops), natively and in the reference interpreter, and the
two results must agree bit for bit: +, -, *, / and the conversions are correctly
rounded in both (f16 and bf16 arithmetic goes through f32, which is wide enough that
rounding twice equals rounding once).
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest

from tinycomp.codegen.llvm import emit_llvm
from tinycomp.codegen.llvm.constants import constant_text
from tinycomp.codegen.llvm.types import float_literal, llvm_type
from tinycomp.ir import FloatAttr, VectorType, f16, f32, i1, parse
from tinycomp.ir.dense import DenseElementsAttr

from .helpers import MLIR_DTYPES, run_both

N = 64


def elementwise(op_line: str, in_type: str, out_type: str, operands: int = 2) -> str:
    """``@f(%a, %b, %out)``: ``out[i] = <op_line>`` with ``%x``, ``%y`` the loaded elements."""
    names = ["a", "b", "c"][:operands]
    params = ", ".join(f"%{n}: memref<{N}x{in_type}>" for n in names)
    loads = "\n".join(
        f"    %{v} = memref.load %{n}[%i] : memref<{N}x{in_type}>"
        for v, n in zip(["x", "y", "z"], names, strict=False)
    )
    return f"""func.func @f({params}, %out: memref<{N}x{out_type}> {{bufferize.result}}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.constant {N} : index
  scf.for %i = %c0 to %n step %c1 {{
{loads}
    %r = {op_line}
    memref.store %r, %out[%i] : memref<{N}x{out_type}>
  }}
  return
}}"""


def float_inputs(rng: np.random.Generator, dtype: str, specials: bool = True) -> np.ndarray:
    values = rng.standard_normal(N) * 3
    if specials:
        values[:8] = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0, -1.0, 0.0]
        rng.shuffle(values)
    return values.astype(MLIR_DTYPES[dtype])


def assert_same_bits(native: np.ndarray, reference: np.ndarray) -> None:
    assert native.dtype == reference.dtype
    np.testing.assert_array_equal(native.view(np.uint8), reference.view(np.uint8))


FLOAT_BINARY = [
    "addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf", "minnumf",
]  # fmt: skip


@pytest.mark.parametrize("dtype", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("op", FLOAT_BINARY)
def test_float_binary_ops_match_the_interpreter(op, dtype):
    rng = np.random.default_rng(zlib.crc32(f"{op} {dtype}".encode()))
    a, b = float_inputs(rng, dtype), float_inputs(rng, dtype)
    text = elementwise(f"arith.{op} %x, %y : {dtype}", dtype, dtype)
    native, reference = run_both(text, a, b)
    if op == "remf":  # fmod of an infinity or by zero is NaN either way, bits may differ
        np.testing.assert_array_equal(np.isnan(native), np.isnan(reference))
        keep = ~np.isnan(reference)
        native, reference = native[keep], reference[keep]
    assert_same_bits(native, reference)


def test_negf_flips_the_sign_of_zero():
    x = np.array([0.0, -0.0, 1.5, -np.inf] * (N // 4), dtype=np.float32)
    native, reference = run_both(elementwise("arith.negf %x : f32", "f32", "f32", 1), x)
    assert_same_bits(native, reference)
    assert np.signbit(native[0]) and not np.signbit(native[1])


INT_BINARY = [
    "addi", "subi", "muli", "divsi", "divui", "remsi", "remui", "andi", "ori", "xori",
    "maxsi", "minsi", "maxui", "minui", "floordivsi", "ceildivsi", "ceildivui",
]  # fmt: skip


@pytest.mark.parametrize("width", [32, 64])
@pytest.mark.parametrize("op", INT_BINARY)
def test_integer_binary_ops_match_the_interpreter(op, width):
    rng = np.random.default_rng(zlib.crc32(f"{op} {width}".encode()))
    dtype = np.dtype(f"int{width}")
    a = rng.integers(-1000, 1000, N).astype(dtype)
    b = rng.integers(-50, 50, N).astype(dtype)
    b[b == 0] = 7  # no division by zero
    if op.endswith("ui"):  # unsigned ops on non-negative values (no huge wrap-around)
        a, b = np.abs(a), np.abs(b)
    text = elementwise(f"arith.{op} %x, %y : i{width}", f"i{width}", f"i{width}")
    native, reference = run_both(text, a, b)
    np.testing.assert_array_equal(native, reference)


@pytest.mark.parametrize("op", ["shli", "shrsi", "shrui"])
def test_shifts_match_the_interpreter(op):
    rng = np.random.default_rng(3)
    a = rng.integers(-(2**20), 2**20, N).astype(np.int32)
    b = rng.integers(0, 31, N).astype(np.int32)
    native, reference = run_both(elementwise(f"arith.{op} %x, %y : i32", "i32", "i32"), a, b)
    np.testing.assert_array_equal(native, reference)


CMPF = ["oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult", "ule",
        "une", "uno", "true", "false"]  # fmt: skip


@pytest.mark.parametrize("predicate", CMPF)
def test_cmpf_predicates_treat_nan_as_mlir_says(predicate):
    rng = np.random.default_rng(5)
    a, b = float_inputs(rng, "f16"), float_inputs(rng, "f16")
    b[::5] = a[::5]  # some equal pairs
    text = elementwise(f"arith.cmpf {predicate}, %x, %y : f16", "f16", "i1")
    native, reference = run_both(text, a, b)
    np.testing.assert_array_equal(native, reference)


@pytest.mark.parametrize("predicate", ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule",
                                       "ugt", "uge"])  # fmt: skip
def test_cmpi_predicates(predicate):
    rng = np.random.default_rng(6)
    a, b = rng.integers(-5, 5, N).astype(np.int64), rng.integers(-5, 5, N).astype(np.int64)
    text = elementwise(f"arith.cmpi {predicate}, %x, %y : i64", "i64", "i1")
    native, reference = run_both(text, a, b)
    np.testing.assert_array_equal(native, reference)


def test_select_picks_per_element():
    rng = np.random.default_rng(7)
    a, b = float_inputs(rng, "bf16", specials=False), float_inputs(rng, "bf16", specials=False)
    text = elementwise("arith.select %c, %x, %y : bf16", "bf16", "bf16").replace(
        "    %r = arith.select", "    %c = arith.cmpf olt, %x, %y : bf16\n    %r = arith.select"
    )
    native, reference = run_both(text, a, b)
    assert_same_bits(native, reference)
    np.testing.assert_array_equal(native, np.minimum(a, b))


CASTS = [
    ("extf", "f16", "f32"), ("extf", "bf16", "f32"), ("truncf", "f32", "f16"),
    ("truncf", "f32", "bf16"), ("extsi", "i32", "i64"), ("extui", "i32", "i64"),
    ("trunci", "i64", "i32"), ("sitofp", "i32", "f32"), ("sitofp", "i64", "bf16"),
    ("uitofp", "i32", "f16"), ("fptosi", "f32", "i32"), ("fptoui", "f32", "i64"),
    ("index_cast", "i32", "index"), ("index_cast", "index", "i32"),
    ("index_castui", "i32", "index"), ("bitcast", "f32", "i32"), ("bitcast", "i16", "f16"),
]  # fmt: skip


def cast_inputs(rng: np.random.Generator, op: str, source: str) -> np.ndarray:
    if source in MLIR_DTYPES:
        values = rng.standard_normal(N) * 1000
        if op in ("fptosi", "fptoui"):
            values = np.abs(values)  # in range of the result type
        return values.astype(MLIR_DTYPES[source])
    dtype = np.dtype("int64" if source == "index" else f"int{source[1:]}")
    low = 0 if op in ("extui", "uitofp", "index_castui") else -5000
    return rng.integers(low, 5000, N).astype(dtype)


@pytest.mark.parametrize(("op", "source", "target"), CASTS)
def test_casts_match_the_interpreter(op, source, target):
    rng = np.random.default_rng(8)
    x = cast_inputs(rng, op, source)
    text = elementwise(f"arith.{op} %x : {source} to {target}", source, target, 1)
    native, reference = run_both(text, x)
    assert native.dtype == reference.dtype
    np.testing.assert_array_equal(native.view(np.uint8), reference.view(np.uint8))


def test_constants_are_written_inline_and_exactly():
    module = parse("""func.func @f() -> f32 {
  %a = arith.constant 0.1 : f32
  %b = arith.constant -0.0 : f32
  %r = arith.addf %a, %b : f32
  return %r : f32
}""")
    text = emit_llvm(module).text
    assert "fadd float 0x3FB99999A0000000, 0x8000000000000000" in text
    assert "constant" not in text  # no instruction for the constants


def test_float_literals_of_special_values():
    assert float_literal(float("nan"), "f32") == "0x7FF8000000000000"
    assert float_literal(float("inf"), "bf16") == "0xR7F80"
    assert float_literal(-0.0, "f16") == "0xH8000"
    assert float_literal(65504.0, "f16") == "0xH7BFF"
    assert constant_text(FloatAttr(0.1, f16)) == "0xH2E66"


def test_vector_types_and_constants():
    assert llvm_type(VectorType((4, 8), f32)) == "[4 x <8 x float>]"
    assert llvm_type(i1) == "i1"
    dense = DenseElementsAttr(VectorType((2, 2), f32), [[1.0, 2.0], [3.0, 4.0]])
    assert constant_text(dense) == (
        "[<2 x float> <float 0x3FF0000000000000, float 0x4000000000000000>, "
        "<2 x float> <float 0x4008000000000000, float 0x4010000000000000>]"
    )


def test_fastmath_and_overflow_flags_reach_llvm():
    text = emit_llvm(
        parse("""func.func @f(%a: f32, %b: f32, %i: i32) -> (f32, i32) {
  %s = arith.addf %a, %b fastmath<nnan,contract> : f32
  %j = arith.addi %i, %i overflow<nsw> : i32
  return %s, %j : f32, i32
}""")
    ).text
    assert "%s = fadd nnan contract float %a, %b" in text
    assert "%j = add nsw i32 %i, %i" in text

"""Errors of the code generation layer name the op, its line, and what was expected.

* an op without an emitter names itself and lists the ops that have one;
* LLVM rejecting the emitted IR (a parse error or a verifier failure) is reported with
  the LLVM line and the tinycomp op that wrote it, also for modules built by passes
  (whose ops carry no line until the module is printed);
* an emitter that crashes is reported at the op it was emitting;
* calls with the wrong arguments say which argument and what was expected.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import tinycomp
from tinycomp.codegen import CodegenError
from tinycomp.codegen.cpu import jit
from tinycomp.codegen.llvm import EMITTERS, emit_llvm, register_emitter
from tinycomp.ir import print_ir

BROKEN = """func.func @f(%x: i64) -> i64 {
  %y = "test.broken"(%x) : (i64) -> i64
  return %y : i64
}"""


def test_an_op_without_emitter_names_itself_its_line_and_the_supported_ops():
    text = """func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %e = tensor.empty() : tensor<4xf32>
  return %e : tensor<4xf32>
}"""
    with pytest.raises(CodegenError) as caught:
        emit_llvm(text)
    message = str(caught.value)
    assert message.startswith("'func.func' at line 1 (func.func @f(%x: tensor<4xf32>)")
    assert "got tensor<4xf32> (tensors must be bufferized before code generation)" in message


def test_an_unsupported_op_inside_a_function_body():
    text = """func.func @f(%x: index) -> index {
  %c = arith.constant 2 : index
  %y = "test.unknown"(%x, %c) : (index, index) -> index
  return %y : index
}"""
    with pytest.raises(CodegenError) as caught:
        emit_llvm(text)
    message = str(caught.value)
    assert message.startswith("'test.unknown' at line 3 (%y = \"test.unknown\"(%x, %c)")
    assert "no LLVM emitter for this op" in message
    assert "arith: addf" in message and "scf: execute_region, for, if, while" in message
    assert caught.value.op.name == "test.unknown"


def test_ops_built_by_passes_get_their_line_in_the_printed_module():
    x = np.ones((2, 3), np.float32)
    fused = tinycomp.compile(lambda a: a + a, x, stop_after="fused").module  # linalg on tensors
    with pytest.raises(CodegenError) as caught:
        jit(fused)
    message = str(caught.value)
    line = int(re.match(r"'func.func' at line (\d+) \(func.func @main\(", message).group(1))
    assert print_ir(fused).splitlines()[line - 1].strip().startswith("func.func @main(")
    assert "got tensor<2x3xf32> (tensors must be bufferized" in message


@pytest.fixture
def broken_emitter(monkeypatch):
    """Register an emitter for ``test.broken``; the test decides what it writes."""

    def install(body):
        monkeypatch.setitem(EMITTERS, "test.broken", body)

    return install


def test_a_verifier_failure_shows_the_llvm_line_and_the_tinycomp_op(broken_emitter):
    def emit(em, op):  # uses %b before defining it: "does not dominate all uses"
        em.emit(f"%a = add i64 {em.value(op.operands[0])}, %b")
        em.emit("%b = add i64 %a, 1")
        em.bind(op.results[0], "%b")

    broken_emitter(emit)
    with pytest.raises(CodegenError) as caught:
        jit(BROKEN)
    message = str(caught.value)
    assert message.startswith("LLVM IR verification failed: Instruction does not dominate")
    line = caught.value.llvm_line
    assert re.search(f"at LLVM IR line {line}: (%a = add i64 %x, %b|%b = add i64 %a, 1)", message)
    assert "emitted for 'test.broken' at line 2" in message
    assert caught.value.op.name == "test.broken"


def test_a_parse_error_shows_the_llvm_line_and_the_tinycomp_op(broken_emitter):
    def emit(em, op):
        em.emit(f"%a = fadd i64 {em.value(op.operands[0])}, 1")  # fadd needs floats
        em.bind(op.results[0], "%a")

    broken_emitter(emit)
    with pytest.raises(CodegenError) as caught:
        jit(BROKEN)
    message = str(caught.value)
    assert message.startswith("LLVM IR parsing failed: invalid operand type")
    assert f"LLVM IR line {caught.value.llvm_line}: %a = fadd i64 %x, 1" in message
    assert "emitted for 'test.broken' at line 2" in message


def test_an_emitter_that_crashes_is_reported_at_its_op(broken_emitter):
    def emit(em, op):
        raise KeyError("oops")

    broken_emitter(emit)
    with pytest.raises(CodegenError, match=r"'test.broken' at line 2 .*failed: KeyError: 'oops'"):
        emit_llvm(BROKEN)


def test_registering_a_second_emitter_needs_replace():
    def first(em, op):
        pass

    def second(em, op):
        pass

    register_emitter("test.twice")(first)
    try:
        register_emitter("test.twice")(first)  # the same function again: fine
        with pytest.raises(CodegenError, match="already has an LLVM emitter"):
            register_emitter("test.twice")(second)
        register_emitter("test.twice", replace=True)(second)
        assert EMITTERS["test.twice"] is second
    finally:
        del EMITTERS["test.twice"]


def test_memref_results_must_be_out_params():
    text = """func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
  return %x : memref<4xf32>
}"""
    with pytest.raises(CodegenError, match="'func.func' at line 1 .*returns a memref .*out-params"):
        emit_llvm(text)


CALL = """func.func @f(%x: memref<?x4xf32>, %n: i32, %out: memref<?x4xf32> {bufferize.result}) {
  return
}"""


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ((np.zeros((2, 4), np.float32), 1), r"@f takes 3 arguments"),
        ((np.zeros((2, 4)), 1, np.zeros((2, 4), np.float32)),
         r"argument #0 \(%x: memref<\?x4xf32>\) of @f: expected dtype float32, got float64"),
        ((np.zeros((2, 5), np.float32), 1, np.zeros((2, 4), np.float32)),
         r"argument #0 .*expected size 4 in dimension 1, got shape \(2, 5\)"),
        (([1.0, 2.0], 1, np.zeros((2, 4), np.float32)),
         r"argument #0 .*expected a numpy array, got list"),
        ((np.zeros((2, 4), np.float32), 2**40, np.zeros((2, 4), np.float32)),
         r"argument #1 \(%n: i32\) of @f: 1099511627776 does not fit in i32"),
        ((np.zeros((2, 4), np.float32), 1.5, np.zeros((2, 4), np.float32)),
         r"argument #1 .*expected an integer, got float"),
    ],
)  # fmt: skip
def test_calls_with_wrong_arguments(args, expected):
    function = jit(CALL, opt_level=0)["f"]
    with pytest.raises(CodegenError, match=expected):
        function(*args)


def test_run_needs_output_shapes_for_dynamic_out_params_and_known_names():
    module = jit(CALL, opt_level=0)
    with pytest.raises(CodegenError, match=r"argument #2 .*pass its shape in output_shapes"):
        module["f"].run(np.zeros((2, 4), np.float32), 1)
    with pytest.raises(CodegenError, match=r"no public function @g; the module has @f"):
        module["g"]
    read_only = np.zeros((2, 4), np.float32)
    read_only.flags.writeable = False
    with pytest.raises(CodegenError, match=r"argument #2 .*writable"):
        module["f"](np.zeros((2, 4), np.float32), 1, read_only)


def test_optimization_levels_are_checked():
    with pytest.raises(CodegenError, match="expected an optimization level 0, 1, 2 or 3, got 4"):
        jit(CALL, opt_level=4)


def test_an_out_param_must_not_overlap_another_argument():
    text = """func.func @f(%x: memref<4xf32>, %out: memref<4xf32> {bufferize.result}) {
  memref.copy %x, %out : memref<4xf32> to memref<4xf32>
  return
}"""
    module = jit(text, opt_level=0)
    assert "ptr noalias %out.aligned" in module.llvm_ir
    buffer = np.zeros(4, np.float32)
    with pytest.raises(CodegenError, match=r"argument #1 .*must not share memory with argument #0"):
        module["f"](buffer, buffer)


def test_an_external_function_nobody_defines_is_an_error_not_a_crash():
    text = """func.func private @no_such_function(f32) -> f32
func.func @f(%x: f32) -> f32 {
  %y = call @no_such_function(%x) : (f32) -> f32
  return %y : f32
}"""
    with pytest.raises(CodegenError, match=r"@no_such_function is declared but not defined"):
        jit(text)


UNKNOWN_OP = """func.func @g(%v: f32) -> f32 {
  %w = "test.unknown"(%v) : (f32) -> f32
  return %w : f32
}"""


def test_an_unsupported_op_inside_a_loop_of_a_compiled_program_names_itself():
    # a module built by passes has no source lines: the error path prints and re-parses it
    x = np.ones((3, 4), np.float32)
    program = tinycomp.compile(lambda a: a * 2.0, x, stop_after="loops").module
    multiply = next(op for op in program.walk() if op.name == "arith.mulf")
    replacement = tinycomp.parse(UNKNOWN_OP).body.first_op.entry_block.first_op.clone()
    multiply.parent.insert_before(replacement, multiply)
    replacement.set_operand(0, multiply.operands[0])
    multiply.results[0].replace_all_uses_with(replacement.results[0])
    multiply.erase()
    with pytest.raises(CodegenError) as caught:
        emit_llvm(program)
    message = str(caught.value)
    line = int(re.match(r"'test.unknown' at line (\d+) ", message).group(1))
    assert "test.unknown" in print_ir(program).splitlines()[line - 1]
    assert "no LLVM emitter for this op" in message

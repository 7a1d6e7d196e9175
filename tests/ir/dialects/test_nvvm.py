"""The nvvm warp-synchronous ops: ``nvvm.redux.sync``, ``nvvm.elect.sync``,
``nvvm.vote.sync``; syntax as mlir-opt prints it, builders, verifier errors, facts."""

from __future__ import annotations

import shutil
import subprocess

import pytest

import tinycomp.dialects.gpu as gpu
from tinycomp.dialects import nvvm
from tinycomp.ir import Block, f32, i1, i32, ir_equal, parse, print_ir

from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output
from .roundtrip import assert_round_trip, assert_verify_error, first_op_named

BODY = """\
%0 = nvvm.redux.sync  add %arg1, %arg2 : i32 -> i32
%1 = nvvm.redux.sync  umin %arg1, %arg2 : i32 -> i32
%2 = nvvm.redux.sync  fmin %arg0, %arg2 {nan = true} : f32 -> f32
%3 = nvvm.elect.sync -> i1
%4 = nvvm.elect.sync %arg2 -> i1
%5 = nvvm.vote.sync  ballot %arg2, %arg3 -> i32
%6 = nvvm.vote.sync  all %arg2, %arg3 -> i1"""


def kernel(body: str) -> str:
    lines = "\n".join("      " + line for line in body.strip().splitlines())
    return (
        "module {\n  gpu.module @m {\n"
        "    gpu.func @k(%arg0: f32, %arg1: i32, %arg2: i32, %arg3: i1) kernel {\n"
        f"{lines}\n      gpu.return\n    }}\n  }}\n}}"
    )


def test_the_ops_round_trip_in_mlir_syntax():
    module = assert_round_trip(kernel(BODY))
    redux = first_op_named(module, "nvvm.redux.sync")
    assert isinstance(redux, nvvm.ReduxSyncOp) and redux.kind == "add"
    vote = first_op_named(module, "nvvm.vote.sync")
    assert isinstance(vote, nvvm.VoteSyncOp) and vote.kind == "ballot"


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_prints_them_the_same_and_accepts_the_generic_form():
    text = kernel(BODY)
    assert strip_mlir_opt_output(run_mlir_opt(text, "--verify-each")) == text
    module = parse(text)
    run_mlir_opt(print_ir(module, generic=True), "--verify-each")
    generic = run_mlir_opt(text, "--mlir-print-op-generic")
    assert ir_equal(module, parse(generic))


def test_builders():
    value, mask, pred, fvalue = Block([i32, i32, i1, f32]).arguments
    redux = nvvm.ReduxSyncOp.build("fmax", fvalue, mask, abs=True)
    assert redux.result.type == f32 and redux.attributes["abs"].value is True
    assert nvvm.VoteSyncOp.build("any", mask, pred).result.type == i1
    assert nvvm.ElectSyncOp.build(mask).operands == (mask,)
    for op in (redux, nvvm.VoteSyncOp.build("uni", mask, pred), nvvm.ElectSyncOp.build()):
        op.verify_op()
    assert nvvm.ReduxSyncOp.build("xor", value, mask).kind == "xor"


BAD_BODIES = [
    ("%0 = nvvm.redux.sync  add %arg0, %arg2 : f32 -> f32", "expected i32 for 'add'"),
    ("%0 = nvvm.redux.sync  fmax %arg1, %arg2 : i32 -> i32", "expected f32 for 'fmax'"),
    ("%0 = nvvm.vote.sync  ballot %arg2, %arg3 -> i1", "expected an i32 result for 'ballot'"),
    ("%0 = nvvm.vote.sync  any %arg2, %arg3 -> i32", "expected an i1 result for 'any'"),
    ('%0 = "nvvm.vote.sync"(%arg2, %arg1) <{kind = #nvvm<vote_sync_kind any>}> '
     ": (i32, i32) -> i1", "expected an i1 predicate, got i32"),
    ('%0 = "nvvm.redux.sync"(%arg1, %arg3) <{abs = false, kind = #nvvm<redux_kind add>, '
     'nan = false}> : (i32, i1) -> i32', "expected an i32 lane mask, got i1"),
    ('%0 = "nvvm.vote.sync"(%arg2, %arg3) <{kind = #nvvm<vote_sync_kind some>}> '
     ": (i32, i1) -> i1", "expected 'kind' to be one of any, all, ballot, uni"),
]  # fmt: skip
"""Kernel bodies that both tinycomp and mlir-opt reject, and tinycomp's message."""


@pytest.mark.parametrize(("body", "message"), BAD_BODIES)
def test_verifier_errors_name_what_is_wrong(body, message):
    assert_verify_error(kernel(body), message)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("body", "message"), BAD_BODIES)
def test_mlir_opt_rejects_them_too(body, message):
    with pytest.raises(MlirOptError):
        run_mlir_opt(kernel(body), "--verify-each")


def test_an_unknown_kind_in_custom_syntax_is_a_parse_error():
    from tinycomp.ir import ParseError

    with pytest.raises(ParseError, match="expected a redux kind"):
        parse(kernel("%0 = nvvm.redux.sync  sum %arg1, %arg2 : i32 -> i32"))


def test_all_three_are_convergent_and_not_declared_pure():
    # mlir-opt --test-side-effects reports no memory-effect interface on any of them.
    for op_class in (nvvm.ReduxSyncOp, nvvm.ElectSyncOp, nvvm.VoteSyncOp):
        assert op_class.is_convergent and not op_class.is_pure and not op_class.is_barrier


MLIR_TRANSLATE = shutil.which("mlir-translate-22")
LOWERED = """llvm.func @k(%v: f32, %c: i32, %m: i32, %p: i1) {
  nvvm.barrier0
  %r = nvvm.shfl.sync bfly %m, %v, %c, %c : f32 -> f32
  %x = nvvm.redux.sync add %c, %m : i32 -> i32
  %b = nvvm.vote.sync ballot %m, %p -> i32
  %e = nvvm.elect.sync -> i1
  %t = nvvm.read.ptx.sreg.tid.x : i32
  %l = nvvm.read.ptx.sreg.laneid : i32
  llvm.return
}"""
"""What the gpu ops become on NVIDIA (``--convert-gpu-to-nvvm`` turns gpu.barrier into
nvvm.barrier0, gpu.shuffle xor into nvvm.shfl.sync bfly, the ids into sreg reads)."""
LLVM_INTRINSIC = {
    gpu.BarrierOp: "llvm.nvvm.barrier.cta.sync.aligned.all",
    gpu.ShuffleOp: "llvm.nvvm.shfl.sync.bfly.f32",
    nvvm.ReduxSyncOp: "llvm.nvvm.redux.sync.add",
    nvvm.VoteSyncOp: "llvm.nvvm.vote.ballot.sync",
    nvvm.ElectSyncOp: "llvm.nvvm.elect.sync",
    gpu.ThreadIdOp: "llvm.nvvm.read.ptx.sreg.tid.x",
    gpu.LaneIdOp: "llvm.nvvm.read.ptx.sreg.laneid",
}


@pytest.mark.mlir
@pytest.mark.skipif(MLIR_TRANSLATE is None, reason="mlir-translate-22 is not on PATH")
def test_convergence_agrees_with_the_llvm_intrinsics_the_ops_become():
    llvm_ir = subprocess.run(
        [MLIR_TRANSLATE, "--mlir-to-llvmir"], input=LOWERED, capture_output=True, text=True,
        check=True,
    ).stdout  # fmt: skip
    attributes, lines = {}, llvm_ir.splitlines()
    for before, line in zip(lines, lines[1:], strict=False):
        if line.startswith("declare") and before.startswith("; Function Attrs:"):
            attributes[line.split("@", 1)[1].split("(", 1)[0]] = before
    for op_class, intrinsic in LLVM_INTRINSIC.items():
        llvm_convergent = "convergent" in attributes[intrinsic]
        assert op_class.is_convergent == llvm_convergent, (op_class.name, attributes[intrinsic])
        if not llvm_convergent:
            assert "memory(none)" in attributes[intrinsic] and op_class.is_pure


SHUFFLE_BODY = """\
%0 = nvvm.shfl.sync  bfly %arg2, %arg0, %arg1, %arg1 : f32 -> f32
%1 = nvvm.shfl.sync  up %arg2, %arg0, %arg1, %arg1 : f32 -> f32
%2 = nvvm.shfl.sync  down %arg2, %arg1, %arg1, %arg1 : i32 -> i32
%3 = nvvm.shfl.sync  idx %arg2, %arg0, %arg1, %arg1 : f32 -> f32
%4 = nvvm.shfl.sync  up %arg2, %arg0, %arg1, %arg1 {return_value_and_is_valid} : f32 -> !llvm.struct<(f32, i1)>
nvvm.bar.warp.sync %arg2 : i32"""  # noqa: E501


def test_shfl_sync_and_bar_warp_sync_round_trip():
    module = assert_round_trip(kernel(SHUFFLE_BODY))
    shuffles = [op for op in module.walk() if op.name == "nvvm.shfl.sync"]
    assert [op.kind for op in shuffles] == ["bfly", "up", "down", "idx", "up"]
    assert all(isinstance(op, nvvm.ShflSyncOp) for op in shuffles)
    assert shuffles[2].result.type == i32 and shuffles[0].value.type == f32
    assert isinstance(first_op_named(module, "nvvm.bar.warp.sync"), nvvm.BarWarpSyncOp)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_prints_the_shuffles_the_same():
    text = kernel(SHUFFLE_BODY)
    assert strip_mlir_opt_output(run_mlir_opt(text, "--verify-each")) == text
    module = parse(text)
    run_mlir_opt(print_ir(module, generic=True), "--verify-each")
    assert ir_equal(module, parse(run_mlir_opt(text, "--mlir-print-op-generic")))


def test_shuffle_builders_and_the_clamp_encoding():
    value, lane, mask = Block([f32, i32, i32]).arguments
    shfl = nvvm.ShflSyncOp.build("idx", mask, value, lane, lane)
    shfl.verify_op()
    assert (shfl.kind, shfl.mask, shfl.offset, shfl.result.type) == ("idx", mask, lane, f32)
    nvvm.BarWarpSyncOp.build(mask).verify_op()
    # PTX's c operand: ((32 - width) << 8) | 0x1f, without the 0x1f for 'up'
    assert [nvvm.shuffle_clamp("down", w) for w in (32, 16, 8)] == [0x1F, 0x101F, 0x181F]
    assert [nvvm.shuffle_clamp("up", w) for w in (32, 16, 8)] == [0, 0x1000, 0x1800]
    assert nvvm.shuffle_clamp("bfly", 4) == nvvm.shuffle_clamp("idx", 4) == 0x1C1F
    with pytest.raises(ValueError, match="power of two up to 32, got 12"):
        nvvm.shuffle_clamp("down", 12)
    with pytest.raises(ValueError, match="expected a shuffle kind .* got 'xor'"):
        nvvm.shuffle_clamp("xor")


BAD_SHUFFLES = [
    ("%0 = nvvm.shfl.sync  bfly %arg2, %arg0, %arg1, %arg1 : f32 -> i32",
     "expected a result of the value's type f32, got i32"),
    ('%0 = "nvvm.shfl.sync"(%arg2, %arg0, %arg3, %arg1) <{kind = #nvvm<shfl_kind up>}> '
     ": (i32, f32, i1, i32) -> f32", "expected the offset to be i32, got i1"),
    ('%0 = "nvvm.shfl.sync"(%arg3, %arg0, %arg1, %arg1) <{kind = #nvvm<shfl_kind up>}> '
     ": (i1, f32, i32, i32) -> f32", "expected the mask to be i32, got i1"),
    ('%0 = "nvvm.shfl.sync"(%arg2, %arg0, %arg1, %arg1) <{kind = #nvvm<shfl_kind xor>}> '
     ": (i32, f32, i32, i32) -> f32", "expected 'kind' to be one of bfly, up, down, idx"),
    ('"nvvm.bar.warp.sync"(%arg3) : (i1) -> ()', "expected an i32 lane mask, got i1"),
]  # fmt: skip


@pytest.mark.parametrize(("body", "message"), BAD_SHUFFLES)
def test_shuffle_verifier_errors_name_what_is_wrong(body, message):
    assert_verify_error(kernel(body), message)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("body", "message"), BAD_SHUFFLES)
def test_mlir_opt_rejects_the_bad_shuffles_too(body, message):
    with pytest.raises(MlirOptError):
        run_mlir_opt(kernel(body), "--verify-each")


def test_shuffles_and_warp_barriers_are_convergent_with_unknown_effects():
    # mlir-opt --test-side-effects reports no memory-effect interface on either.
    value, lane, mask = Block([f32, i32, i32]).arguments
    for op in (
        nvvm.ShflSyncOp.build("down", mask, value, lane, lane),
        nvvm.BarWarpSyncOp.build(mask),
    ):
        assert op.is_convergent and not op.is_pure and op.get_effects() is None
    assert nvvm.BarWarpSyncOp.is_barrier and not nvvm.ShflSyncOp.is_barrier

"""The gpu dialect: syntax as mlir-opt prints it, builders, verifier errors, op facts,
and the gpu corpus (``tests/ir/corpus/gpu_*.mlir``) checked against real ``mlir-opt-22``."""

from __future__ import annotations

from pathlib import Path

import pytest

import tinycomp.dialects.gpu as gpu
import tinycomp.dialects.nvvm  # noqa: F401  (the corpus uses nvvm ops)
from tinycomp.dialects.arith import ConstantOp
from tinycomp.ir import (
    FunctionType,
    ModuleOp,
    ParseError,
    f32,
    first_difference,
    i32,
    index,
    op_traits,
    parse,
    print_ir,
)
from tinycomp.ir.effects import has_unknown_effects
from tinycomp.ir.types import MemRefType

from ..helpers import without_comment_lines
from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output
from .roundtrip import assert_round_trip, assert_verify_error, first_op_named

GPU_CORPUS = sorted((Path(__file__).parent.parent / "corpus").glob("gpu_*.mlir"))
LAUNCH_CORPUS = Path(__file__).parent.parent / "corpus" / "gpu_kernels_launch.mlir"
# mlir-opt names the two results of gpu.shuffle separately (%shuffleResult, %valid);
# tinycomp's printer names a multi-result op once (%shuffleResult:2), so files with a
# shuffle are compared structurally only.
EXACT = [p for p in GPU_CORPUS if "gpu.shuffle" not in p.read_text()]


def kernel(body: str, args: str = "%v: f32, %m: i32, %p: i1", header: str = "kernel") -> str:
    lines = "\n".join("      " + line for line in body.strip().splitlines())
    return (
        "module {\n  gpu.module @m {\n"
        f"    gpu.func @k({args}) {header} {{\n{lines}\n      gpu.return\n    }}\n  }}\n}}"
    )


def test_the_id_ops_print_as_mlir_does_and_round_trip():
    text = kernel(
        "%thread_id_x = gpu.thread_id  x\n%block_id_y = gpu.block_id  y upper_bound 8\n"
        "%block_dim_z = gpu.block_dim  z\n%grid_dim_x = gpu.grid_dim  x\n"
        "%0 = gpu.lane_id upper_bound 32\n%1 = gpu.subgroup_id : index"
    )
    module = assert_round_trip(text)
    op = first_op_named(module, "gpu.block_id")
    assert isinstance(op, gpu.BlockIdOp) and op.dimension == "y"
    assert op.attributes["upper_bound"].value == 8


def test_a_wrong_dimension_name_is_a_parse_error_naming_the_choices():
    with pytest.raises(ParseError, match=r"expected a dimension \(x, y, z\), got 'w'"):
        parse(kernel("%0 = gpu.thread_id  w"))


def test_builders_make_what_the_parser_makes():
    func = gpu.GPUFuncOp.build(
        "k", FunctionType([f32], []), kernel=True,
        workgroup=[MemRefType((32,), f32, memory_space=gpu.address_space("workgroup"))],
    )  # fmt: skip
    body = func.entry_block
    tx = body.append(gpu.ThreadIdOp.build("x")).result
    body.append(gpu.BarrierOp.build())
    off = body.append(ConstantOp.build(1, i32)).result
    width = body.append(ConstantOp.build(32, i32)).result
    shuffle = body.append(gpu.ShuffleOp.build("down", func.arguments[0], off, width))
    body.append(gpu.SubgroupReduceOp.build("add", shuffle.results[0], uniform=True))
    body.append(gpu.ReturnOp.build())
    module_op = gpu.GPUModuleOp.build("m")
    module_op.body.append(func)
    module = ModuleOp.build([module_op])
    module.verify()
    text = print_ir(module)
    assert "workgroup(%arg1 : memref<32xf32, #gpu.address_space<workgroup>>) kernel" in text
    assert "gpu.shuffle  down %arg0, %c1_i32, %c32_i32 : f32" in text
    assert first_difference(module, parse(text)) is None
    assert tx.type == index and func.workgroup_attributions == (body.arguments[1],)


def test_launch_func_groups_its_operands():
    module = parse(LAUNCH_CORPUS.read_text())
    launch = first_op_named(module, "gpu.launch_func")
    assert isinstance(launch, gpu.LaunchFuncOp)
    assert [str(v.type) for v in launch.kernel_operands] == [
        "f32", "memref<?xf32>", "memref<?xf32>", "index",
    ]  # fmt: skip
    assert len(launch.grid_size) == len(launch.block_size) == 3
    assert launch.cluster_size == () and launch.dynamic_shared_memory_size is None


def test_address_spaces_in_memref_types():
    module = parse(kernel("", args="%a: memref<4xf32, #gpu.address_space<private>>"))
    (arg,) = first_op_named(module, "gpu.func").arguments
    assert gpu.address_space_of(arg.type) == "private"
    with pytest.raises(ValueError, match="expected an address space"):
        gpu.address_space("shared")


BAD_BODIES = [
    ('%0 = "gpu.thread_id"() <{dimension = #gpu<dim w>}> : () -> index',
     "expected 'dimension' to be one of x, y, z, got #gpu<dim w>"),
    ('%c = arith.constant 1 : i64\n%r:2 = "gpu.shuffle"(%v, %c, %c) '
     "<{mode = #gpu<shuffle_mode xor>}> : (f32, i64, i64) -> (f32, i1)",
     "expected the offset to be i32, got i64"),
    ('%c = arith.constant 1 : i32\n%c64 = arith.constant 1 : i64\n%r:2 = "gpu.shuffle"'
     "(%v, %c, %c64) <{mode = #gpu<shuffle_mode up>}> : (f32, i32, i64) -> (f32, i1)",
     "expected the width to be i32, got i64"),
    ("%0 = gpu.subgroup_reduce  and %v : (f32) -> f32", "expected a kind for f32"),
    ("%i = gpu.lane_id\n%0 = gpu.subgroup_reduce  add %i : (index) -> index",
     "expected an integer or float value (or a vector of them), got index"),
    ("%0 = gpu.subgroup_reduce  add %v cluster(size = 3) : (f32) -> f32",
     "power of two, got 3"),
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


BAD_LAUNCHES = [
    ("@kernels::@saxpy", "@kernels::@nope", "kernel function '@kernels::@nope' is undefined"),
    ("@kernels::@saxpy", "@kernel::@saxpy", "kernel module '@kernel' is undefined"),
    ("@kernels::@saxpy", "@kernels::@helper", "'@kernels::@helper' is not marked"),
    (" attributes {gpu.container_module}", "", "'gpu.container_module' attribute"),
    ("args(%arg0 : f32", "args(%arg3 : index", "got (index, memref<?xf32>"),
]
"""Edits of the launch corpus file that tinycomp and mlir-opt reject: (old, new, message)."""


@pytest.mark.parametrize(("old", "new", "message"), BAD_LAUNCHES)
def test_a_launch_that_does_not_match_its_kernel_is_an_error(old, new, message):
    text = LAUNCH_CORPUS.read_text()
    assert old in text
    assert_verify_error(text.replace(old, new, 1), message)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(("old", "new", "message"), BAD_LAUNCHES)
def test_mlir_opt_rejects_those_launches_too(old, new, message):
    with pytest.raises(MlirOptError):
        run_mlir_opt(LAUNCH_CORPUS.read_text().replace(old, new, 1), "--verify-each")


def test_a_kernel_cannot_return_values():
    assert_verify_error(
        "gpu.module @m {\n  gpu.func @k(%a: f32) -> f32 kernel {\n    gpu.return %a : f32\n  }\n}",
        "expected a kernel function to return nothing",
    )


def test_facts_barrier_shuffle_reduce_are_convergent_and_ids_are_pure():
    assert gpu.BarrierOp.is_convergent and gpu.BarrierOp.is_barrier
    assert gpu.ShuffleOp.is_convergent and gpu.SubgroupReduceOp.is_convergent
    assert not gpu.ShuffleOp.is_barrier and not gpu.SubgroupReduceOp.is_barrier
    for op_class in (gpu.ThreadIdOp, gpu.BlockIdOp, gpu.BlockDimOp, gpu.GridDimOp,
                     gpu.LaneIdOp, gpu.SubgroupIdOp):  # fmt: skip
        assert op_class.is_pure and not op_class.is_convergent, op_class.name
    assert gpu.ShuffleOp.is_pure  # no memory effect, yet convergent: CSE may merge, not sink
    # mlir-opt --test-side-effects: the barrier and the subgroup reduction declare no
    # memory-effect interface, so their effects are unknown (tinycomp: None).
    module = parse(kernel("gpu.barrier\n%0 = gpu.subgroup_reduce  add %v : (f32) -> f32"))
    assert has_unknown_effects(first_op_named(module, "gpu.barrier"))
    assert has_unknown_effects(first_op_named(module, "gpu.subgroup_reduce"))


def test_the_trait_queries_see_the_declarations():
    module = parse(
        kernel("%c = arith.constant true\nscf.if %c {\n  gpu.barrier\n}\n%t = gpu.thread_id  x")
    )
    branch, barrier = first_op_named(module, "scf.if"), first_op_named(module, "gpu.barrier")
    assert op_traits.is_convergent(branch) and op_traits.is_barrier(barrier)
    assert not op_traits.is_convergent(first_op_named(module, "gpu.thread_id"))
    assert not op_traits.is_barrier(branch)


SIDE_EFFECTS = """gpu.module @m {
  gpu.func @k(%v: f32, %c: i32, %p: i1) kernel {
    %t = gpu.thread_id x {effect_test}
    %b = gpu.block_dim y {effect_test}
    %l = gpu.lane_id {effect_test}
    %r, %ok = gpu.shuffle xor %v, %c, %c {effect_test} : f32
    gpu.barrier {effect_test}
    %s = gpu.subgroup_reduce add %v {effect_test} : (f32) -> f32
    %x = nvvm.redux.sync add %c, %c {effect_test} : i32 -> i32
    %e = nvvm.elect.sync {effect_test} -> i1
    %b2 = nvvm.vote.sync ballot %c, %p {effect_test} -> i32
    gpu.return
  }
}"""


@pytest.mark.mlir
@requires_mlir_opt
def test_purity_agrees_with_mlir_test_side_effects():
    import subprocess

    from ..mlir_opt import MLIR_OPT

    run = subprocess.run([MLIR_OPT, "--test-side-effects"], input=SIDE_EFFECTS,
                         capture_output=True, text=True)  # fmt: skip
    no_effects = {
        line.split(" = ", 1)[1].split()[0]
        for line in run.stderr.splitlines()
        if "see current operation" in line and " = " in line
    }
    remarks = run.stderr.count("operation has no memory effects")
    ours = {op.name for op in parse(SIDE_EFFECTS).walk() if "effect_test" in op.attributes
            and op.get_effects() == []}  # fmt: skip
    assert no_effects == ours == {"gpu.thread_id", "gpu.block_dim", "gpu.lane_id", "gpu.shuffle"}
    assert remarks == 4


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("path", EXACT, ids=lambda p: p.stem)
def test_we_print_mlir_opt_output_byte_for_byte(path):
    theirs = strip_mlir_opt_output(run_mlir_opt(path.read_text(), "--verify-each"))
    assert print_ir(parse(theirs)) == theirs


@pytest.mark.parametrize("path", EXACT, ids=lambda p: p.stem)
def test_corpus_file_prints_back_as_written(path):
    text = without_comment_lines(path.read_text())
    assert print_ir(parse(text)) == text.rstrip("\n")

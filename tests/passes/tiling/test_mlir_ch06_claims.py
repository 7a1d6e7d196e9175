"""What chapter 06 says about MLIR's tiling, checked against real ``mlir-opt-22``.

Each test runs one of MLIR's own tiling transforms (the transform dialect's
``structured.tile_using_for``, ``tile_using_forall``, ``tile_reduction_using_for``,
``tile_reduction_using_forall`` and ``fuse``, which call ``scf::tileUsingSCF`` and its
relatives) on the chapter's examples and compares what it builds with what the chapter
says, and with tinycomp's tiling where the chapter says they agree.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.ir import parse
from tinycomp.passes.tiling import TileAndFusePass, tile_linalg_op, tile_reduction_with_partials

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

MATMUL = """func.func @main(%a: tensor<10x8xf32>, %b: tensor<8x16xf32>, %c: tensor<10x16xf32>)
    -> tensor<10x16xf32> {
  %mm = linalg.matmul ins(%a, %b : tensor<10x8xf32>, tensor<8x16xf32>)
                      outs(%c : tensor<10x16xf32>) -> tensor<10x16xf32>
  return %mm : tensor<10x16xf32>
}"""
"""Section 2 and 3's matmul."""

ROW_SUM = """func.func @main(%x: tensor<4x10xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                          affine_map<(d0, d1) -> (d0)>],
                         iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x10xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %sum : tensor<4xf32>
}"""
"""Section 4's row sums."""

SUM = """func.func @main(%x: tensor<10xf32>, %init: tensor<f32>) -> tensor<f32> {
  %sum = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                         iterator_types = ["reduction"]}
      ins(%x : tensor<10xf32>) outs(%init : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<f32>
  return %sum : tensor<f32>
}"""
"""Task 06.2's reduction, ``n = 10``."""

EXP_READ_TWICE = """#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<6x10xf32>) -> tensor<6x10xf32> {
  %cst = arith.constant 0.000000e+00 : f32
  %e0 = tensor.empty() : tensor<6x10xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<6x10xf32>) outs(%e0 : tensor<6x10xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<6x10xf32>
  %e1 = tensor.empty() : tensor<6xf32>
  %zero = linalg.fill ins(%cst : f32) outs(%e1 : tensor<6xf32>) -> tensor<6xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%exp : tensor<6x10xf32>) outs(%zero : tensor<6xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %out : f32
    linalg.yield %v : f32
  } -> tensor<6xf32>
  %div = linalg.generic {indexing_maps = [#id, #row, #id],
                        iterator_types = ["parallel", "parallel"]}
      ins(%exp, %sum : tensor<6x10xf32>, tensor<6xf32>) outs(%e0 : tensor<6x10xf32>) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %v = arith.divf %in, %s : f32
    linalg.yield %v : f32
  } -> tensor<6x10xf32>
  return %div : tensor<6x10xf32>
}"""
"""Section 5's softmax shape: ``exp`` read by a row sum and by the division (row maps
``(d0)`` rather than the keep-dims ``(d0, 0)``, which MLIR's fusion does not tile)."""


def transform(payload: str, *steps: str) -> str:
    """``payload`` and a transform script whose ``%root`` is the payload module."""
    body = "\n    ".join(steps)
    return f"""{payload}
module attributes {{transform.with_named_sequence}} {{
  transform.named_sequence @__transform_main(%root: !transform.any_op {{transform.readonly}}) {{
    {body}
    transform.yield
  }}
}}"""


def match(op: str) -> str:
    return f'%op = transform.structured.match ops{{["{op}"]}} in %root : (!transform.any_op) -> !transform.any_op'  # noqa: E501


def payload_of(output: str) -> str:
    """MLIR's output without the transform module."""
    return output[: output.index("  module attributes {transform.with_named_sequence}")] + "}\n"


def op_names(text: str) -> list[str]:
    """The ops of the function in pre-order, named ops generalized (MLIR keeps
    ``linalg.matmul`` where tinycomp writes ``linalg.generic``), constants left out."""
    module = parse(text)
    names = []
    for op in module.walk():
        if op.name in ("builtin.module", "func.func", "arith.constant") or _in_payload(op):
            continue
        names.append("linalg.generic" if isinstance(op, StructuredOp) else op.name)
    return names


def _in_payload(op) -> bool:
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, StructuredOp):
            return True
        parent = parent.parent_op()
    return False


def slice_types(text: str) -> list[str]:
    return re.findall(r"tensor\.extract_slice .* to (tensor<[^>]*>)", text)


def test_tile_using_for_builds_what_tile_linalg_op_builds():
    """Section 3: one scf.for per tiled loop with iter_args, affine.min for the partial
    tile, extract_slice / insert_slice; tile size 0 leaves k whole (no third loop)."""
    tiling = "%t, %l0, %l1 = transform.structured.tile_using_for %op tile_sizes [4, 8, 0] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op)"  # noqa: E501
    mlir = payload_of(
        run_mlir_opt(
            transform(MATMUL, match("linalg.matmul"), tiling),
            "--transform-interpreter",
            "--canonicalize",
        )  # fmt: skip
    )
    ours = parse(MATMUL)
    tile_linalg_op(ours.body.first_op.entry_block.first_op, [4, 8, 0])
    assert op_names(mlir) == op_names(str(ours))
    assert op_names(mlir).count("scf.for") == 2
    assert "affine_map<(d0) -> (-d0 + 10, 4)>" in mlir
    assert slice_types(mlir) == slice_types(str(ours)) == [
        "tensor<?x8xf32>", "tensor<8x8xf32>", "tensor<?x8xf32>"
    ]  # fmt: skip
    assert "iter_args" in mlir and "tensor.insert_slice" in mlir


def test_tile_reduction_using_for_makes_partials_and_merges_after_the_loop():
    """Section 4: MLIR's tileReductionUsingScf keeps one partial per position of the
    reduction tile (a 4x4 tensor), initialised to 0, a sequential loop, then a merge."""
    tiling = "%fill, %split, %merge, %loop = transform.structured.tile_reduction_using_for %op by tile_sizes = [0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)"  # noqa: E501
    mlir = payload_of(
        run_mlir_opt(
            transform(ROW_SUM, match("linalg.generic"), tiling),
            "--transform-interpreter",
            "--canonicalize",
        )  # fmt: skip
    )
    assert re.search(r"linalg\.fill ins\(%cst : f32\) outs\(%\w+ : tensor<4x4xf32>\)", mlir)
    assert "arith.constant 0.000000e+00 : f32" in mlir
    assert "scf.for" in mlir and "iter_args" in mlir and "scf.forall" not in mlir
    assert mlir.index("linalg.reduce") > mlir.index("scf.yield")  # merged after the loop
    ours = parse(ROW_SUM)
    result = tile_reduction_with_partials(ours.body.first_op.entry_block.first_op, [0, 4])
    assert "tensor<4x4xf32> start at 0.0" in result.notes[0]


def test_split_reduction_is_a_forall_with_parallel_insert_slice():
    """Sections 4 and 6, Task 06.2: MLIR's tileReductionUsingForall gives every tile its
    own partial, written with tensor.parallel_insert_slice at slot i floordiv 4 in an
    scf.forall, and combines the partials after it."""
    tiling = "%fill, %split, %merge, %loop = transform.structured.tile_reduction_using_forall %op by tile_sizes = [4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op, !transform.any_op, !transform.any_op)"  # noqa: E501
    mlir = payload_of(
        run_mlir_opt(
            transform(SUM, match("linalg.generic"), tiling),
            "--transform-interpreter",
            "--canonicalize",
        )  # fmt: skip
    )
    assert re.search(r"scf\.forall .* shared_outs\(.*\) -> \(tensor<3xf32>\)", mlir)
    assert "tensor.parallel_insert_slice" in mlir and "scf.forall.in_parallel" in mlir
    assert "floordiv 4" in mlir
    assert re.search(r"linalg\.fill ins\(%cst : f32\) outs\(%\w+ : tensor<3xf32>\)", mlir)
    assert mlir.index("linalg.reduce") > mlir.index("scf.forall.in_parallel")


def test_forall_carries_the_gpu_mapping():
    """Section 6: MLIR binds tile loops with scf.forall and a mapping attribute."""
    tiling = "%t, %forall = transform.structured.tile_using_forall %op tile_sizes [4, 8, 0] (mapping = [#gpu.block<y>, #gpu.block<x>]) : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"  # noqa: E501
    mlir = payload_of(
        run_mlir_opt(
            transform(MATMUL, match("linalg.matmul"), tiling),
            "--transform-interpreter",
            "--canonicalize",
        )  # fmt: skip
    )
    assert "scf.forall (%arg3, %arg4) in (3, 2)" in mlir
    assert "{mapping = [#gpu.block<y>, #gpu.block<x>]}" in mlir


def test_mlir_warns_when_a_reduction_loop_becomes_a_forall():
    """Section 6: a loop that carries the reduction is not safe to run in parallel."""
    tiling = "%t, %forall = transform.structured.tile_using_forall %op tile_sizes [0, 0, 4] : (!transform.any_op) -> (!transform.any_op, !transform.any_op)"  # noqa: E501
    done = subprocess.run(
        [shutil.which("mlir-opt-22"), "--transform-interpreter"],
        input=transform(MATMUL, match("linalg.matmul"), tiling),
        capture_output=True,
        text=True,
        check=True,
    )
    assert "warning: tiling is not thread safe at axis #2" in done.stderr


@pytest.mark.parametrize("tiles, copies", [((4, 5), 2), ((4, 0), 1)])
def test_tile_and_fuse_recomputes_a_producer_read_through_two_windows(tiles, copies):
    """Section 5: with the columns tiled, the division reads a 4x5 window of exp and the
    row sum whole rows: MLIR's tile-and-fuse fuses one exp per window, as tinycomp does.
    With rows only, both read one window: MLIR fuses a copy per slice, which CSE merges;
    tinycomp fuses one."""
    loops = 1 if tiles[1] == 0 else 2
    handles = ", ".join(["!transform.any_op"] * (loops + 1))
    results = ", ".join(["%t", *(f"%l{n}" for n in range(loops))])
    steps = [
        '%f = transform.structured.match ops{["func.func"]} in %root : (!transform.any_op) -> !transform.any_op',  # noqa: E501
        '%ret = transform.structured.match ops{["func.return"]} in %f : (!transform.any_op) -> !transform.any_op',  # noqa: E501
        "%div = transform.get_producer_of_operand %ret[0] : (!transform.any_op) -> !transform.any_op",  # noqa: E501
        f"{results} = transform.structured.fuse %div tile_sizes [{tiles[0]}, {tiles[1]}] : (!transform.any_op) -> ({handles})",  # noqa: E501
    ]
    mlir = payload_of(
        run_mlir_opt(
            transform(EXP_READ_TWICE, *steps), "--transform-interpreter", "--canonicalize", "--cse"
        )  # fmt: skip
    )
    loop_body = mlir[mlir.index("scf.for") :]
    assert loop_body.count("math.exp") == copies
    assert "math.exp" not in mlir[: mlir.index("scf.for")]  # nothing left outside the loop
    ours = parse(EXP_READ_TWICE)
    tiling = TileAndFusePass(tiles)
    tiling.run(ours)
    ours_body = str(ours)[str(ours).index("scf.for") :]
    assert ours_body.count("math.exp") == copies
    assert ("%exp (x2)" in str(tiling.report)) == (copies == 2)

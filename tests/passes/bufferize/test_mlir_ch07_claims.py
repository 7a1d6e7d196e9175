"""What chapter 07 says about MLIR's bufferization, checked against real ``mlir-opt-22``.

The chapter's programs go through MLIR's own passes (``--one-shot-bufferize`` with its
options, ``--buffer-results-to-out-params``, ``--buffer-deallocation-pipeline``,
``--cse``), and each test checks one sentence of the chapter: where MLIR puts its
deallocations (and so its peak), which attribute is whose, which arguments MLIR may
write, the order of its in-place decisions, and what CSE may merge on memory.
"""

from __future__ import annotations

import re

import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.frontend import TensorSpec, exp, trace
from tinycomp.ir import ir_equal, parse
from tinycomp.passes import CSEPass, DCEPass, PassManager
from tinycomp.passes.bufferize import (
    BufferizationReport,
    OneShotBufferizePass,
    analyze_in_place,
    bufferization_passes,
)

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

ONE_SHOT = (
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map"
)
OUT_PARAMS = "--buffer-results-to-out-params=modify-public-functions hoist-static-allocs"


def shifted_exp(x):
    return exp(x) * 2.0 + 1.0 - x


def section_1() -> str:
    """Section 1's program, traced: four kernels on a 4x4 matrix."""
    return str(trace(shifted_exp, TensorSpec((4, 4))))


T = "tensor<3x3xf32>"
ELEMENTWISE = "#id = affine_map<(i, j) -> (i, j)>\n"


def generic(result: str, ins: list[str], outs: str, payload: str) -> str:
    args = ", ".join([*(f"%i{n}: f32" for n in range(len(ins))), "%o: f32"])
    maps = ", ".join(["#id"] * (len(ins) + 1))
    return (
        f'  {result} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel", '
        f'"parallel"]}} ins({", ".join(ins)} : {", ".join([T] * len(ins))}) outs({outs} : {T}) {{\n'
        f"  ^bb0({args}):\n    {payload}\n    linalg.yield %y : f32\n  }} -> {T}"
    )


SHARED_EMPTY = "\n".join(
    [
        ELEMENTWISE + f"func.func @main(%x: {T}) -> {T} {{",
        f"  %e = tensor.empty() : {T}",
        generic("%a", ["%x"], "%e", "%y = math.exp %i0 : f32"),
        generic("%b", ["%x"], "%e", "%y = math.tanh %i0 : f32"),
        generic("%c", ["%a", "%b"], "%e", "%y = arith.addf %i0, %i1 : f32"),
        f"  return %c : {T}",
        "}",
    ]
)
"""Section 3's shared ``tensor.empty``: three ops write one destination."""

UPDATE_ARGUMENT = "\n".join(
    [
        ELEMENTWISE + "func.func @main(%x: " + T + "{writable}) -> " + T + " {",
        generic("%r", ["%x"], "%x", "%y = arith.addf %i0, %o : f32"),
        f"  return %r : {T}",
        "}",
    ]
)
"""Section 4: ``x += x``, written into the argument."""

EFFECTS = """func.func @main(%A: memref<4xf32>, %B: memref<4xf32>, %i: index, %v: f32)
    -> (f32, f32, f32) {
  %a = memref.load %A[%i] : memref<4xf32>
  %b = memref.load %A[%i] : memref<4xf32>
  memref.store %v, %A[%i] : memref<4xf32>
  %c = memref.load %A[%i] : memref<4xf32>
  %unused = memref.load %A[%i] : memref<4xf32>
  %scratch = memref.alloc() : memref<4xf32>
  linalg.fill ins(%v : f32) outs(%B : memref<4xf32>)
  return %a, %b, %c : f32, f32, f32
}"""
"""Section 5's loads, store, allocation and fill."""


def peak(text: str) -> int:
    report = BufferizationReport()
    report.measure(parse(text), "now")
    return report.peak_bytes["now"]


def test_mlir_frees_at_the_end_of_the_block_tinycomp_after_the_last_use():
    """Section 6: MLIR's deallocation pipeline puts the three deallocs of section 1's
    program after its last kernel, so its peak is all three buffers, 192 bytes; tinycomp
    frees each buffer after its last use, 128 bytes."""
    module = parse(section_1())
    PassManager([OneShotBufferizePass()]).run(module)
    bufferized = str(module).replace(" {bufferize.result}", "")
    freed = run_mlir_opt(bufferized, "--buffer-deallocation-pipeline")
    lines = [line.strip() for line in freed.splitlines()]
    kernels = [n for n, line in enumerate(lines) if line.startswith("linalg.generic")]
    frees = [n for n, line in enumerate(lines) if line.startswith("memref.dealloc")]
    returns = [n for n, line in enumerate(lines) if line == "return"]
    assert len(kernels) == 4 and len(frees) == 3
    assert kernels[-1] < min(frees) and max(frees) < returns[0]  # all at the end of the block
    assert peak(freed) == 192
    ours = parse(section_1())
    passes = bufferization_passes(reuse=False)
    PassManager(passes).run(ours)
    assert passes[0].report.peak_bytes["buffer-deallocation"] == 128


def test_mlir_bufferizes_like_tinycomp_and_marks_no_result_argument():
    """Sections 1 and 4: tensor.empty becomes memref.alloc, the returned buffer becomes
    an out-param (hoist-static-allocs), and MLIR's out-param carries no attribute:
    ``{bufferize.result}`` is tinycomp's own (MLIR keeps it as an unknown attribute)."""
    mlir = run_mlir_opt(section_1(), ONE_SHOT, OUT_PARAMS)
    assert mlir.count("memref.alloc(") == 3 and "memref.copy" not in mlir
    signature = re.search(r"func\.func @main\(([^)]*)\)", mlir).group(1)
    assert signature == "%arg0: memref<4x4xf32>, %arg1: memref<4x4xf32>"
    ours = parse(section_1())
    PassManager([OneShotBufferizePass()]).run(ours)
    assert "{bufferize.result}" in str(ours)
    assert "{bufferize.result}" in run_mlir_opt(str(ours), allow_unregistered=False)


def test_function_arguments_are_writable_unless_marked():
    """Section 4: in MLIR's function-boundary mode an argument is written in place unless
    it is marked ``bufferization.writable = false``; then it is copied first."""
    writable = run_mlir_opt(UPDATE_ARGUMENT.replace("{writable}", ""), ONE_SHOT)
    assert "memref.alloc" not in writable and "memref.copy" not in writable
    marked = UPDATE_ARGUMENT.replace("{writable}", " {bufferization.writable = false}")
    read_only = run_mlir_opt(marked, ONE_SHOT)
    assert read_only.count("memref.alloc(") == 1 and read_only.count("memref.copy") == 1


def in_place_flags(text: str) -> list[list[str]]:
    """``__inplace_operands_attr__`` of each linalg.generic, in program order."""
    found = re.findall(r"linalg\.generic .*?__inplace_operands_attr__ = \[([^\]]*)\]", text)
    return [re.findall(r'"(\w+)"', flags) for flags in found]


def test_bottom_up_is_mlirs_default_order():
    """Section 3: on the shared tensor.empty, MLIR's default heuristic (bottom-up) gives
    %a its own buffer, as tinycomp does; top-down, MLIR's other order, gives %b one."""
    default = run_mlir_opt(SHARED_EMPTY, ONE_SHOT + " test-analysis-only")
    top_down = run_mlir_opt(
        SHARED_EMPTY, ONE_SHOT + " test-analysis-only analysis-heuristic=top-down"
    )
    assert [flags[-1] for flags in in_place_flags(default)] == ["false", "true", "true"]
    assert [flags[-1] for flags in in_place_flags(top_down)] == ["true", "false", "true"]
    ours = analyze_in_place(parse(SHARED_EMPTY).body.first_op).decisions
    assert [d.in_place for d in reversed(ours)] == [False, True, True]


def test_cse_respects_memory_effects_as_tinycomp_does():
    """Section 5: MLIR's CSE merges the two loads with no write between them, keeps the
    load after the store, the store and the fill, and drops the unused load and alloc:
    the same function as tinycomp's CSE and DCE."""
    mlir = run_mlir_opt(EFFECTS, "--cse")
    ours = parse(EFFECTS)
    PassManager([CSEPass(), DCEPass()]).run(ours)
    assert ir_equal(parse(mlir), ours)
    assert mlir.count("memref.load") == 2 and "memref.store" in mlir and "linalg.fill" in mlir
    assert "memref.alloc" not in mlir

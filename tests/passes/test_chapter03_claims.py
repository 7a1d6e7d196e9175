"""What chapter 03 says about MLIR and LLVM, checked against the real tools.

The chapter's claims, one test each (the IR texts come from the notebook itself):

1. ``mlir-opt --canonicalize`` prints the same ``@affine`` as tinycomp's canonicalizer,
   up to value names;
2. MLIR folds ``x * 0.0`` only under ``fastmath<nnan,nsz>``, and ``x * 1.0`` always;
   LLVM does the same with an ``fmul``'s ``nnan nsz`` flags;
3. MLIR's CSE reuses a value computed outside a loop inside its body, not the other way
   round (``@norm``), as tinycomp's ``cse`` does; it also erases the ops it finds dead,
   which tinycomp leaves to ``dce``;
4. ``mlir-opt`` insists on an outer ``builtin.module(...)`` in ``--pass-pipeline``;
5. MLIR has no pass called ``dce``; ``canonicalize`` erases dead ops and ``symbol-dce``
   dead functions; ``--mlir-timing`` prints a time report;
6. ``canonicalize`` turns two transposes into one, in MLIR as in tinycomp;
7. Task 03.4: MLIR's canonicalizer reassociates constants and leaves two ops of ``@f``,
   where tinycomp's ``canonicalize,cse`` leave five.
"""

from __future__ import annotations

import ast
import json
import subprocess
from pathlib import Path

import llvmlite.binding as llvm
import pytest
from ir.mlir_opt import MLIR_OPT, MlirOptError, requires_mlir_opt, run_mlir_opt

from tinycomp.codegen.cpu.optimize import optimize
from tinycomp.codegen.cpu.target import target_machine
from tinycomp.ir import ir_equal, parse
from tinycomp.passes import CanonicalizePass, PassManager

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "03_rewrites_and_passes.ipynb"
FREE = ("builtin.module", "func.func", "func.return", "arith.constant")


def chapter_texts() -> dict[str, str]:
    """The IR texts the chapter's code cells name: ``name = \"\"\"...\"\"\"`` or
    ``name = tinycomp.parse(\"\"\"...\"\"\")``."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    texts: dict[str, str] = {}
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:  # a shell command (!tinycomp grade ...)
            continue
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name)):
                continue
            value = node.value
            if isinstance(value, ast.Call) and value.args:
                value = value.args[0]
            if isinstance(value, ast.Constant) and "func.func @" in str(value.value):
                texts[node.targets[0].id] = value.value
    return texts


TEXTS = chapter_texts()


def counted(module) -> int:
    return sum(1 for op in module.walk() if op.name not in FREE)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_canonicalize_prints_the_same_affine_function():
    mine = parse(TEXTS["messy"])
    CanonicalizePass().run(mine)
    assert ir_equal(parse(run_mlir_opt(TEXTS["messy"], "--canonicalize")), mine)


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_folds_times_zero_only_under_nnan_nsz():
    mine = parse(TEXTS["zeros"])
    CanonicalizePass().run(mine)
    theirs = parse(run_mlir_opt(TEXTS["zeros"], "--canonicalize"))
    assert ir_equal(theirs, mine)
    kept = [op for op in theirs.walk() if op.name == "arith.mulf"]
    assert len(kept) == 1 and "fastmath" not in str(kept[0])  # only x * 0.0 without flags


def test_llvm_folds_fmul_by_zero_only_with_nnan_nsz():
    def optimized(flags: str) -> str:
        module = llvm.parse_assembly(
            f"define float @f(float %x) {{\n  %y = fmul {flags} float %x, 0.0\n  ret float %y\n}}"
        )
        optimize(module, target_machine(1), 1)
        return str(module)

    assert "ret float 0.0" in optimized("nnan nsz")
    assert "fmul float %x, 0.0" in optimized("")
    only_nnan = optimized("nnan")  # no NaN, so no inf either: x * 0.0 is +-0.0, not 0.0
    assert "ret float 0.0" not in only_nnan and "@llvm.copysign.f32(float 0.000000e+00" in only_nnan


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_cse_reuses_outside_values_inside_the_loop_only():
    mine = parse(TEXTS["norm_text"])
    PassManager.parse("cse,dce").run(mine)  # MLIR's cse also erases the ops it finds dead
    theirs = parse(run_mlir_opt(TEXTS["norm_text"], "--cse"))
    assert ir_equal(theirs, mine)
    loop = next(op for op in theirs.walk() if op.name == "scf.for")
    inside = [op.name for op in loop.walk() if op.name == "arith.mulf"]
    after_loop = [op for op in theirs.body.first_op.entry_block.ops if op.name == "arith.mulf"]
    assert len(inside) == 1  # %xy_in; %sq became %xx from outside, %dead went
    assert len(after_loop) == 3  # %xx, %yy and %xy_out, which could not reuse %xy_in


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_wants_the_outer_module_in_a_pipeline():
    text = TEXTS["pipeline_text"]
    with pytest.raises(MlirOptError, match="can't run 'func.func' pass manager"):
        run_mlir_opt(text, "--pass-pipeline=func.func(cse)")
    run_mlir_opt(text, "--pass-pipeline=builtin.module(func.func(canonicalize,cse))")
    assert PassManager.parse("func.func(canonicalize,cse)").pipeline_text()  # tinycomp: fine


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_has_no_dce_pass_but_canonicalize_erases_dead_ops():
    text = "func.func @f(%x: f32) -> f32 {\n  %d = arith.mulf %x, %x : f32\n  return %x : f32\n}"
    with pytest.raises(MlirOptError, match="Unknown command line argument '--dce'"):
        run_mlir_opt(text, "--dce")
    assert "arith.mulf" not in run_mlir_opt(text, "--canonicalize")
    private = "func.func private @never() {\n  return\n}\n" + text
    assert "@never" not in run_mlir_opt(private, "--symbol-dce")
    timed = subprocess.run(
        [MLIR_OPT, "--canonicalize", "--mlir-timing"], input=text, capture_output=True,
        text=True, check=True,
    )  # fmt: skip
    assert "Execution time report" in timed.stderr and "Canonicalizer" in timed.stderr


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_canonicalize_composes_two_transposes():
    mine = parse(TEXTS["transposes_text"])
    CanonicalizePass().run(mine)
    theirs = parse(run_mlir_opt(TEXTS["transposes_text"], "--canonicalize"))
    assert ir_equal(theirs, mine)
    (transpose,) = [op for op in theirs.walk() if op.name == "linalg.transpose"]
    assert list(transpose.dims) == [2, 0, 1]


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_reassociates_constants_and_tinycomp_does_not():
    theirs = parse(run_mlir_opt(TEXTS["assoc_text"], "--canonicalize"))
    assert counted(theirs) == 2
    mine = parse(TEXTS["assoc_text"])
    PassManager.parse("canonicalize,cse").run(mine)
    assert counted(mine) == 5

"""Bufferized IR against real MLIR: ``mlir-opt-22`` accepts it, and its own
One-Shot Bufferize needs as many allocations and copies, or more (each difference is
explained in ``COUNTS``)."""

from __future__ import annotations

import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.ir import parse
from tinycomp.passes import LinalgToLoopsPass, PassManager
from tinycomp.passes.bufferize import OneShotBufferizePass, bufferization_passes

from .cases import all_cases

CASES = all_cases()

MLIR_PIPELINE = (
    "--one-shot-bufferize=bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map",
    "--buffer-results-to-out-params=modify-public-functions hoist-static-allocs",
    "--canonicalize",
    "--cse",
    "--canonicalize",
)
"""MLIR's closest pipeline: tensors to memrefs with identity layouts at the boundary,
results to out-params (an allocated result becomes the out-param), then the clean-up
that folds the copy of a tile onto itself MLIR leaves after an ``insert_slice``."""

LOOP_RESULT = "MLIR keeps the loop's result in its own alloc and copies it to the out-param"
COUNTS = {
    # name: ((tinycomp allocs, copies), (MLIR allocs, copies), why they differ)
    "softmax": ((4, 0), (4, 0), ""),
    "layernorm": ((10, 0), (10, 0), ""),
    "matmul + bias": ((1, 0), (1, 0), ""),
    "two-layer elementwise chain": ((4, 0), (4, 0), ""),
    "attention": ((8, 0), (8, 0), ""),
    "reshape then scale": ((0, 0), (0, 0), ""),
    "branching use": ((2, 1), (2, 1), ""),
    "pad and reshapes": ((1, 2), (1, 2), ""),
    "pad with computed values": ((0, 1), (0, 1), ""),
    "tiled matmul, partial tiles": ((0, 0), (1, 1), LOOP_RESULT),
    "2-d tiled matmul + bias, bound loops": ((0, 0), (1, 1), LOOP_RESULT),
    "tiled reduction dimension": ((0, 0), (1, 1), LOOP_RESULT),
    "tile and fuse, producer per tile": ((1, 0), (2, 1), LOOP_RESULT),
    "tile computed elsewhere, copied in": ((1, 1), (2, 2), LOOP_RESULT),
    "rank-reducing row slices": ((0, 0), (1, 1), LOOP_RESULT),
    "loop reads its init": ((1, 1), (2, 2), LOOP_RESULT),
    "loops sharing one tensor.empty": ((1, 0), (2, 1), LOOP_RESULT),
    "writes an argument": (
        (0, 0),
        (0, 1),
        "MLIR's function-boundary mode writes the argument in place, then copies it to the "
        "out-param; tinycomp's arguments are read-only and linalg.fill needs no old contents",
    ),
    "dynamic shapes": (
        (0, 0),
        (1, 1),
        "hoist-static-allocs only replaces static allocations by the out-param; tinycomp "
        "does it for dynamic ones too",
    ),
    "cast, then insert an element": (
        (0, 1),
        (0, 1),
        "same counts, other copies: MLIR stores into the argument and copies it to the "
        "out-param; tinycomp copies the read-only argument into the out-param and stores",
    ),
    "loop yields a new value": (
        (1, 2),
        None,
        "MLIR refuses it: 'Yield operand #0 is not equivalent to the corresponding iter "
        "bbArg'; tinycomp copies the yielded buffer into the iter buffer",
    ),
}


def allocs_and_copies(text: str) -> tuple[int, int]:
    return text.count("memref.alloc("), text.count("memref.copy ")


def test_every_case_has_recorded_counts():
    assert sorted(COUNTS) == sorted(CASES)


@pytest.mark.parametrize("name", sorted(CASES))
def test_tinycomp_counts(name):
    module = parse(str(CASES[name]))
    OneShotBufferizePass().run(module)
    assert allocs_and_copies(str(module)) == COUNTS[name][0]


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(CASES))
def test_mlir_opt_accepts_the_bufferized_and_lowered_ir(name):
    module = parse(str(CASES[name]))
    PassManager(bufferization_passes()).run(module)
    run_mlir_opt(str(module), "--verify-each")
    LinalgToLoopsPass().run(module)
    run_mlir_opt(str(module), "--verify-each")


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(n for n, counts in COUNTS.items() if counts[1]))
def test_mlir_one_shot_bufferize_counts(name):
    mlir_output = run_mlir_opt(str(CASES[name]), *MLIR_PIPELINE)
    assert allocs_and_copies(mlir_output) == COUNTS[name][1]


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_refuses_a_yield_that_is_not_the_iter_buffer():
    from ir.mlir_opt import MlirOptError

    with pytest.raises(MlirOptError, match="not equivalent to the corresponding iter bbArg"):
        run_mlir_opt(str(CASES["loop yields a new value"]), *MLIR_PIPELINE)

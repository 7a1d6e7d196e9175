"""Golden files: each pass (and each canonicalization pattern) on a small module.

For every ``golden/NAME.mlir`` (first line ``// RUN: <pipeline>``):

* running the pipeline prints exactly ``golden/NAME.expected.mlir``;
* where the file says ``// MLIR-OPT: same``, ``mlir-opt-22`` with the same passes gives
  the same IR (up to SSA names): what students see here is what MLIR does;
* interpreting every public function before and after, on random inputs, gives the
  same results bit for bit (``// COMPARE: ignore the sign of zero`` where fast-math
  flags allow ``-0.0`` to become ``0.0``).
"""

from __future__ import annotations

import numpy as np
import pytest
from ir.helpers import without_comment_lines
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.ir import first_difference, parse, print_ir
from tinycomp.passes import PassManager, canonicalization_patterns

from .helpers import (
    GOLDEN_INPUTS,
    assert_same_bits,
    expected_path,
    header,
    interpret_or_skip,
    outcome,
    public_functions,
    random_argument,
)


@pytest.fixture(params=GOLDEN_INPUTS, ids=lambda path: path.stem)
def golden_path(request):
    return request.param


def run_golden(path):
    text = path.read_text()
    pipeline = header(text, "RUN")
    assert pipeline, f"{path.name} lacks a '// RUN: <pipeline>' first line"
    module = parse(text)
    result = PassManager.parse(pipeline).run(module)
    return text, pipeline, module, result


def test_there_is_a_golden_file_per_pass_and_pattern_family():
    assert len(GOLDEN_INPUTS) >= 24
    assert all(expected_path(path).exists() for path in GOLDEN_INPUTS)


def test_output_matches_the_expected_file(golden_path):
    _, _, module, _ = run_golden(golden_path)
    expected = without_comment_lines(expected_path(golden_path).read_text())
    assert print_ir(module) == expected


def test_every_canonicalization_pattern_fires_in_some_golden_file():
    fired: set[str] = set()
    for path in GOLDEN_INPUTS:
        _, _, _, result = run_golden(path)
        for _, statistics in result.statistics:
            fired.update(statistics)
    missing = {pattern.name for pattern in canonicalization_patterns()} - fired
    assert not missing, f"no golden file exercises {sorted(missing)}"


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_gives_the_same_ir(golden_path):
    text = golden_path.read_text()
    if header(text, "MLIR-OPT") != "same":
        pytest.skip(f"{golden_path.name} shows where tinycomp differs from MLIR on purpose")
    pipeline = header(text, "RUN")
    flags = [f"--{name}" for name in pipeline.split(",")]
    theirs = parse(run_mlir_opt(text, *flags))
    ours = parse(expected_path(golden_path).read_text())
    assert first_difference(ours, theirs) is None


def test_interpreted_results_do_not_change(golden_path):
    interpret = interpret_or_skip()
    text = golden_path.read_text()
    before = parse(text)
    after = parse(text)
    signed_zeros = header(text, "COMPARE") != "ignore the sign of zero"
    PassManager.parse(header(text, "RUN")).run(after)
    rng = np.random.default_rng(sum(map(ord, golden_path.stem)))
    functions_after = {f.sym_name: f for f in public_functions(after)}
    for function in public_functions(before):
        for _ in range(3):
            arguments = [random_argument(t, rng) for t in function.function_type.inputs]
            expected = outcome(interpret, before, function.sym_name, arguments)
            assert function.sym_name in functions_after
            actual = outcome(interpret, after, function.sym_name, arguments)
            assert_same_bits(expected, actual, signed_zeros)

"""Random scf/affine loop nests survive printing and parsing, and agree with mlir-opt."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from tinycomp.ir import first_difference, parse, print_ir

from ..helpers import check_use_lists
from ..mlir_opt import requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output
from .nest_strategies import loop_nests

QUICK = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WITH_MLIR = settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@QUICK
@given(loop_nests())
def test_random_nests_round_trip(text):
    module = parse(text)
    printed = print_ir(module)
    again = parse(printed)
    difference = first_difference(module, again)
    assert difference is None, f"{difference}\n{printed}"
    check_use_lists(again)
    assert print_ir(again) == printed
    from_generic = parse(print_ir(module, generic=True))
    assert first_difference(module, from_generic) is None
    assert print_ir(from_generic) == printed


@pytest.mark.mlir
@requires_mlir_opt
@WITH_MLIR
@given(loop_nests())
def test_random_nests_agree_with_mlir_opt(text):
    module = parse(text)
    theirs = strip_mlir_opt_output(run_mlir_opt(print_ir(module), "--verify-each"))
    difference = first_difference(module, parse(theirs))
    assert difference is None, f"{difference}\n{theirs}"
    assert print_ir(parse(theirs)) == theirs
    generic = run_mlir_opt(print_ir(module, generic=True), "--mlir-print-op-generic")
    assert first_difference(module, parse(generic)) is None

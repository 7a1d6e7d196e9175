"""Properties of the passes on random arith programs (``strategies.arith_programs``):
the interpreted results never change, and canonical form is a fixed point."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from ir.strategies import functions

from tinycomp.ir import ir_equal, parse, print_ir, verify
from tinycomp.passes import CanonicalizePass, PassManager
from tinycomp.passes.cse import cse_key

from .helpers import assert_same_bits, interpret_or_skip, outcome, random_argument
from .strategies import arith_programs


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(arith_programs())
def test_canonicalize_cse_dce_keep_the_interpreted_results(module):
    interpret = interpret_or_skip()
    verify(module)
    original = parse(print_ir(module))
    PassManager.parse("canonicalize,cse,dce").run(module)
    function = original.body.first_op
    rng = np.random.default_rng(7)
    for _ in range(3):
        arguments = [random_argument(t, rng) for t in function.function_type.inputs]
        expected = outcome(interpret, original, "main", arguments)
        assert_same_bits(expected, outcome(interpret, module, "main", arguments))


@settings(max_examples=60, deadline=None)
@given(arith_programs())
def test_canonicalize_is_idempotent(module):
    CanonicalizePass().run(module)
    once = print_ir(module)
    again = CanonicalizePass()
    again.run(module)
    assert print_ir(module) == once
    assert not again.statistics


@settings(max_examples=40, deadline=None)
@given(arith_programs())
def test_passes_leave_no_duplicates_or_dead_pure_ops(module):
    PassManager.parse("canonicalize,cse,dce").run(module)
    ops = list(module.body.first_op.entry_block)
    for op in ops[:-1]:
        assert any(result.has_uses for result in op.results), f"dead {op.name} left"
    keys = [cse_key(op) for op in ops if cse_key(op) is not None]
    assert len(keys) == len(set(keys)), "CSE left two identical ops"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions())
def test_passes_keep_any_random_ir_valid(module):
    """The IR tests' random functions (vectors, dynamic tensors, branches, unknown ops
    with side effects): the pipeline leaves IR that verifies, prints and parses back,
    and never adds ops."""
    ops_before = sum(1 for _ in module.walk())
    side_effects_before = sum(1 for op in module.walk() if op.name == "test.side_effect")
    PassManager.parse("canonicalize,cse,dce").run(module)
    verify(module)
    assert ir_equal(parse(print_ir(module)), module)
    assert sum(1 for _ in module.walk()) <= ops_before
    side_effects_after = sum(1 for op in module.walk() if op.name == "test.side_effect")
    assert side_effects_after == side_effects_before  # unknown ops are never removed

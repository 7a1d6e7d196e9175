"""Agreement with real MLIR (``mlir-opt-22``).

1. Everything tinycomp prints for the golden modules, in custom and in generic form, is
   accepted by ``mlir-opt --verify-each``.
2. ``mlir-opt --mlir-print-op-generic`` re-prints it; tinycomp parses that back into IR
   structurally equal to the original (``ir_equal``).
3. ``mlir-opt``'s own custom-form output, parsed and printed by tinycomp, comes back
   byte for byte: names, float digits, aliases, predecessor comments, all of it.
4. The same holds for random functions, and for float constants of every type.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinycomp.dialects import arith, func
from tinycomp.ir import (
    Builder,
    FunctionType,
    ModuleOp,
    bf16,
    f16,
    f32,
    f64,
    first_difference,
    parse,
    print_ir,
)

from .helpers import GOLDEN_FILES
from .mlir_opt import requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output
from .strategies import functions

pytestmark = [pytest.mark.mlir, requires_mlir_opt]


@pytest.fixture(params=GOLDEN_FILES, ids=lambda path: path.stem)
def golden_module(request) -> ModuleOp:
    return parse(request.param.read_text())


@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_mlir_opt_accepts_what_we_print(golden_module, generic):
    run_mlir_opt(print_ir(golden_module, generic=generic), "--verify-each")


def test_mlir_opt_generic_output_parses_back_equal(golden_module):
    generic = run_mlir_opt(print_ir(golden_module), "--verify-each", "--mlir-print-op-generic")
    difference = first_difference(golden_module, parse(generic))
    assert difference is None, difference


def test_we_print_mlir_opt_output_byte_for_byte(golden_module):
    theirs = strip_mlir_opt_output(run_mlir_opt(print_ir(golden_module), "--verify-each"))
    assert print_ir(parse(theirs)) == theirs


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(functions())
def test_random_functions_agree_with_mlir_opt(module):
    ours = print_ir(module)
    theirs = strip_mlir_opt_output(run_mlir_opt(ours, "--verify-each"))
    assert first_difference(module, parse(theirs)) is None
    assert print_ir(parse(theirs)) == theirs
    generic = run_mlir_opt(print_ir(module, generic=True), "--mlir-print-op-generic")
    assert first_difference(module, parse(generic)) is None


FLOAT_BITS = {f16: np.uint16, bf16: np.uint16, f32: np.uint32, f64: np.uint64}


@settings(max_examples=10, deadline=None)
@given(st.data())
def test_float_constants_print_like_mlir(data):
    """Random bit patterns of each float type: MLIR prints our constants' digits again."""
    function = func.FuncOp.build("floats", FunctionType([], []))
    builder = Builder.at_end(function.entry_block)
    for float_type, bits_type in FLOAT_BITS.items():
        width = np.dtype(bits_type).itemsize * 8
        for bits in data.draw(st.lists(st.integers(0, 2**width - 1), min_size=20, max_size=20)):
            from tinycomp.ir.float_format import bits_to_float

            value = bits_to_float(bits, float_type.name)
            if np.isnan(value):
                value = float("nan")  # NaN payloads are not kept (see FloatAttr)
            builder.insert(arith.ConstantOp.build(value, float_type))
        for value in data.draw(st.lists(st.floats(-1e6, 1e6), min_size=10, max_size=10)):
            builder.insert(arith.ConstantOp.build(value, float_type))
    builder.insert(func.ReturnOp.build())
    ours = print_ir(ModuleOp.build([function]))
    theirs = strip_mlir_opt_output(run_mlir_opt(ours))
    assert theirs == ours


def test_wrapping_top_level_ops_in_a_module_like_mlir_opt():
    text = "func.func private @f(i32)\nfunc.func private @g()"
    theirs = strip_mlir_opt_output(run_mlir_opt(text))
    assert print_ir(parse(text)) == theirs


def test_empty_module_prints_like_mlir_opt():
    assert print_ir(ModuleOp.build()) == strip_mlir_opt_output(run_mlir_opt("module {}"))

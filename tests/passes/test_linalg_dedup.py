"""``DeduplicateAndRemoveDeadOperands``: a ``linalg.generic`` reads each (value, map) pair
once and only inputs it uses (or needs for a loop size); results do not change, and the
inputs left are those ``mlir-opt-22`` leaves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp.interp import interpret
from tinycomp.ir import Operation, parse, verify
from tinycomp.passes import CanonicalizePass, canonicalization_patterns
from tinycomp.passes.canonicalize.linalg_dedup import DeduplicateAndRemoveDeadOperands, plan_inputs
from tinycomp.rewrite import apply_patterns_greedily

from . import helpers  # noqa: F401  (registers the dialects)

MAPS = {
    "id": "affine_map<(d0, d1) -> (d0, d1)>",
    "swap": "affine_map<(d0, d1) -> (d1, d0)>",
    "row": "affine_map<(d0, d1) -> (d0)>",
    "col": "affine_map<(d0, d1) -> (d1)>",
}
IDENTITY = "(d0, d1) -> (d0, d1)"
ARGUMENT_TYPES = {"x": "tensor<3x3xf32>", "y": "tensor<3x3xf32>", "v": "tensor<3xf32>"}
CHOICES = [("x", "id"), ("x", "swap"), ("y", "id"), ("v", "row"), ("v", "col")]
"""(function argument, indexing map) pairs a generated input may use."""


def generic_program(
    inputs: list[tuple[str, str]], reads: list[bool], properties: str = "", attrs: str = ""
) -> str:
    """``@main(%x, %y, %v, %init)`` with one generic reading ``inputs``; its payload
    combines the init element with every input whose ``reads`` entry is true.
    ``properties`` go into the generic's dictionary, ``attrs`` after ``attrs =``."""
    maps = ", ".join([MAPS[m] for _, m in inputs] + [MAPS["id"]])
    names = ", ".join(f"%{value}" for value, _ in inputs)
    types = ", ".join(ARGUMENT_TYPES[value] for value, _ in inputs)
    ins = f"ins({names} : {types}) " if inputs else ""
    arguments = ", ".join([f"%a{i}: f32" for i in range(len(inputs))] + ["%out: f32"])
    body, accumulator = [], "%out"
    for i, read in enumerate(reads):
        if read:
            op = "arith.addf" if i % 2 == 0 else "arith.mulf"
            body.append(f"    %s{i} = {op} {accumulator}, %a{i} : f32")
            accumulator = f"%s{i}"
    body_text = "\n".join(body)
    return f"""
func.func @main(%x: tensor<3x3xf32>, %y: tensor<3x3xf32>, %v: tensor<3xf32>,
             %init: tensor<3x3xf32>) -> tensor<3x3xf32> {{
  %r = linalg.generic {{indexing_maps = [{maps}],
                       iterator_types = ["parallel", "parallel"]{properties}}}
      {ins}outs(%init : tensor<3x3xf32>){attrs} {{
  ^bb0({arguments}):
{body_text}
    linalg.yield {accumulator} : f32
  }} -> tensor<3x3xf32>
  return %r : tensor<3x3xf32>
}}"""


def the_generic(module: Operation) -> Operation:
    return next(op for op in module.walk() if op.name == "linalg.generic")


def input_pairs(module: Operation) -> list[tuple[int, str]]:
    """Each input of the generic as (function argument number, indexing map)."""
    generic = the_generic(module)
    arguments = list(module.body.first_op.entry_block.arguments)
    maps = generic.indexing_maps()
    return [(arguments.index(v), str(maps[i])) for i, v in enumerate(generic.inputs)]


def random_arguments(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    shapes = [(3, 3), (3, 3), (3,), (3, 3)]
    return [rng.standard_normal(shape).astype(np.float32) for shape in shapes]


def deduplicated(text: str) -> tuple[Operation, Operation, bool]:
    """The module before and after the pattern alone, and whether it changed."""
    before, after = parse(text), parse(text)
    result = apply_patterns_greedily(after, [DeduplicateAndRemoveDeadOperands()])
    verify(after)
    return before, after, result.changed


def test_duplicate_input_is_merged_and_its_argument_rewired():
    text = generic_program([("x", "id"), ("y", "id"), ("x", "id")], [True, True, True])
    before, after, changed = deduplicated(text)
    assert changed and input_pairs(after) == [(0, IDENTITY), (1, IDENTITY)]
    body = str(the_generic(after))
    assert "arith.addf %out, %a0" in body and "arith.addf %s1, %a0" in body
    arrays = random_arguments(1)
    x, y, _, init = arrays
    np.testing.assert_array_equal(interpret(after, *arrays), interpret(before, *arrays))
    np.testing.assert_allclose(interpret(after, *arrays), (init + x) * y + x, rtol=1e-6)


def test_same_value_through_another_map_is_kept():
    text = generic_program([("x", "id"), ("x", "swap")], [True, True])
    _, after, changed = deduplicated(text)
    assert not changed and len(the_generic(after).inputs) == 2


def test_unread_inputs_are_dropped():
    text = generic_program([("v", "row"), ("x", "id"), ("y", "swap")], [False, True, False])
    before, after, changed = deduplicated(text)
    assert changed and [a for a, _ in input_pairs(after)] == [0]
    arrays = random_arguments(2)
    np.testing.assert_array_equal(interpret(after, *arrays), interpret(before, *arrays))


DEAD_INPUT_SIZES_A_LOOP = """
func.func @main(%x: tensor<3x5xf32>, %acc: tensor<3xf32>) -> tensor<3xf32> {
  %one = arith.constant 1.0 : f32
  %n = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>,
                                        affine_map<(d0, d1) -> (d0)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x5xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %out, %one : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %n : tensor<3xf32>
}"""


def test_unread_input_that_sizes_a_loop_stays():
    module = parse(DEAD_INPUT_SIZES_A_LOOP)
    generic = the_generic(module)
    assert plan_inputs(generic).kept == (0,)  # without %x nothing says d1 runs 5 times
    _, after, changed = deduplicated(DEAD_INPUT_SIZES_A_LOOP)
    assert not changed
    acc = np.random.default_rng(3).standard_normal(3).astype(np.float32)
    np.testing.assert_allclose(interpret(after, np.zeros((3, 5), np.float32), acc), acc + 5.0)


def test_attributes_travel_with_the_op():
    text = generic_program(
        [("x", "id"), ("x", "id")],
        [True, True],
        properties=', doc = "twice", library_call = "lib"',
        attrs=' attrs = {tinycomp.bind = "gpu.block.x"}',
    )
    _, after, changed = deduplicated(text)
    generic = the_generic(after)
    assert changed and len(generic.inputs) == 1
    assert str(generic.attributes["doc"]) == '"twice"'
    assert str(generic.attributes["library_call"]) == '"lib"'
    assert str(generic.attributes["tinycomp.bind"]) == '"gpu.block.x"'


def test_buffer_generic_is_deduplicated_too():
    text = """
func.func @main(%x: memref<4xf32>, %out: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>,
                                   affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%x, %x : memref<4xf32>, memref<4xf32>) outs(%out : memref<4xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %0 = arith.mulf %a, %b : f32
    linalg.yield %0 : f32
  }
  return
}"""
    _, after, changed = deduplicated(text)
    assert changed and len(the_generic(after).inputs) == 1
    x = np.random.default_rng(4).standard_normal(4).astype(np.float32)
    out = np.zeros(4, np.float32)
    interpret(after, x, out)
    np.testing.assert_array_equal(out, x * x)


def test_canonicalize_runs_the_pattern():
    assert any(isinstance(p, DeduplicateAndRemoveDeadOperands) for p in canonicalization_patterns())
    module = parse(generic_program([("y", "id"), ("y", "id")], [True, True]))
    canonicalize = CanonicalizePass()
    canonicalize.run(module)
    assert canonicalize.statistics["DeduplicateAndRemoveDeadOperands"] == 1
    assert len(the_generic(module).inputs) == 1


programs = st.lists(st.sampled_from(CHOICES), min_size=0, max_size=6).flatmap(
    lambda inputs: st.tuples(
        st.just(inputs), st.lists(st.booleans(), min_size=len(inputs), max_size=len(inputs))
    )
)


@settings(max_examples=40, deadline=None)
@given(programs, st.integers(0, 2**16))
def test_any_generic_keeps_its_numbers_and_reads_each_pair_once(program, seed):
    inputs, reads = program
    before, after, _ = deduplicated(generic_program(inputs, reads))
    arrays = random_arguments(seed)
    np.testing.assert_array_equal(interpret(after, *arrays), interpret(before, *arrays))
    pairs = input_pairs(after)
    assert len(pairs) == len(set(pairs))
    generic = the_generic(after)
    assert all(generic.payload_reads(i) for i in range(generic.num_inputs))
    read_pairs = {(value, m) for (value, m), read in zip(inputs, reads, strict=True) if read}
    assert len(pairs) == len(read_pairs)


@pytest.mark.mlir
@requires_mlir_opt
@settings(max_examples=12, deadline=None)
@given(programs)
def test_mlir_opt_keeps_the_same_inputs(program):
    # In MLIR 22 this pattern (EraseUnusedOperandsAndResults.cpp) runs inside
    # --linalg-fuse-elementwise-ops, not --canonicalize; one generic has nothing to fuse.
    # (A generic that reads no input only yields %out: MLIR erases it as an identity.)
    inputs, reads = program
    assume(any(reads))
    text = generic_program(inputs, reads)
    _, ours, _ = deduplicated(text)
    theirs = parse(run_mlir_opt(text, "--linalg-fuse-elementwise-ops"))
    assert input_pairs(ours) == input_pairs(theirs)

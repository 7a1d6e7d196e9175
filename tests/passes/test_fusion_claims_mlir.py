"""What chapter 05 says about MLIR's elementwise fusion, checked against ``mlir-opt-22``.

Every test here runs real MLIR on a small program and reads the result back with tinycomp
(its parser, and its interpreter on random inputs, so "MLIR fused it" always also means
"and the fused program computes the same"). The claims:

1. The one-use refusal is a choice, not legality. ``--linalg-fuse-elementwise-ops`` leaves
   a producer with two readers unfused: the pass's default control function asks for
   ``producer->hasOneUse()``. With a control function that allows the pair
   (``--test-linalg-elementwise-fusion-patterns=fuse-generic-ops``), MLIR fuses it and
   keeps the producer for its other reader, or recomputes it in each reader: legal, as
   Task 05.3 shows. tinycomp's ``fuse_producer_into_consumer`` erases the producer, so
   its rule must refuse.
2. The refusals that are legality in MLIR too: an init operand, a reduction producer, a
   producer output map that is not a permutation, a fusion that would lose a loop's size.
3. The refusals that are tinycomp's simplifications: MLIR fuses a producer with two
   results, and one whose payload uses ``linalg.index`` (it renumbers the index).
4. MLIR's fusion pass merges repeated operands (``ins(%e, %e)``; its fusion patterns include
   the erasure of dead and repeated operands, ``--canonicalize`` does not do it), so two
   readers that end in one kernel let their producer fuse: ``shared_exp`` is one kernel.
5. In attention, the transpose of ``k`` fuses into the first matmul and becomes the map
   ``(d0, d1, d2) -> (d1, d2)`` on ``k``.
"""

from __future__ import annotations

import subprocess

import numpy as np
import pytest
from ir.mlir_opt import MLIR_OPT, requires_mlir_opt, run_mlir_opt

import tinycomp
from tinycomp.affine import parse_affine_map
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.frontend import TensorSpec, attention, exp
from tinycomp.ir import parse, print_ir
from tinycomp.passes import FusionPass
from tinycomp.passes.fusion import fuse_producer_into_consumer
from tinycomp.rewrite import PatternRewriter, RewriteError

pytestmark = [pytest.mark.mlir, requires_mlir_opt]

DEFAULT = "--linalg-fuse-elementwise-ops"
ALLOW_ALL = "--test-linalg-elementwise-fusion-patterns=fuse-generic-ops"
"""MLIR's test pass: the same fusion patterns with a control function that allows the pair."""


def allow_all_available() -> bool:
    """Whether this ``mlir-opt-22`` registers the test pass (Debian's build does)."""
    if MLIR_OPT is None:
        return False
    listing = subprocess.run([MLIR_OPT, "--help"], capture_output=True, text=True, check=False)
    return "--test-linalg-elementwise-fusion-patterns" in listing.stdout


def fused_by_mlir(text: str, flag: str) -> str:
    """``text`` through ``mlir-opt-22 flag``; skips when the flag is MLIR's test pass and
    this build does not have it."""
    if flag == ALLOW_ALL and not allow_all_available():
        pytest.skip("this mlir-opt-22 has no --test-linalg-elementwise-fusion-patterns")
    return run_mlir_opt(text, flag)


def generics(text: str) -> list[GenericOp]:
    return [op for op in parse(text).walk() if isinstance(op, GenericOp)]


def expect_same_numbers(before: str, after: str) -> None:
    """tinycomp's interpreter gives the same results for both programs on random inputs."""
    function = next(op for op in parse(before).walk() if op.name == "func.func")
    rng = np.random.default_rng(22)
    arrays = [
        rng.standard_normal(argument.type.shape).astype(np.float32)
        for argument in function.regions[0].entry_block.arguments
    ]
    old, new = tinycomp.interpret(before, *arrays), tinycomp.interpret(after, *arrays)
    old, new = (
        (old if isinstance(old, tuple) else (old,)),
        (new if isinstance(new, tuple) else (new,)),
    )
    for number, (a, b) in enumerate(zip(old, new, strict=True)):
        assert np.allclose(a, b, rtol=1e-6), f"result #{number} changed:\n{after}"


def elementwise(name: str, ins: str, payload: str, loops: int = 1, shape: str = "5") -> str:
    """``%name = linalg.generic`` over identity maps: ``ins`` (``%v : type`` pairs) and
    a payload ``%0 = ...`` on the block arguments ``%a``, ``%b``."""
    values, types = zip(*(item.split(" : ") for item in ins.split(", ")), strict=True)
    arguments = ", ".join(f"%{'ab'[i]}: f32" for i in range(len(values))) + ", %out: f32"
    maps = ", ".join(["#id"] * (len(values) + 1))
    return f"""
  %{name} = linalg.generic {{indexing_maps = [{maps}], iterator_types = ["parallel"]}}
      ins({", ".join(values)} : {", ".join(types)}) outs(%e : tensor<{shape}xf32>) {{
  ^bb0({arguments}):
    {payload}
    linalg.yield %0 : f32
  }} -> tensor<{shape}xf32>"""


def function(body: str, results: list[str]) -> str:
    types = ", ".join(["tensor<5xf32>"] * len(results))
    return f"""
#id = affine_map<(d0) -> (d0)>
func.func @main(%x: tensor<5xf32>) -> ({types}) {{
  %e = tensor.empty() : tensor<5xf32>{body}
  return {", ".join(results)} : {types}
}}"""


EXP = elementwise("p", "%x : tensor<5xf32>", "%0 = math.exp %a : f32")
NEG = elementwise("c", "%p : tensor<5xf32>", "%0 = arith.negf %a : f32")
DOUBLE = elementwise("d", "%p : tensor<5xf32>", "%0 = arith.addf %a, %a : f32")
TWO_KERNELS = function(EXP + NEG + DOUBLE, ["%c", "%d"])
"""``exp(x)`` read by two readers that end in two kernels: ``-e`` and ``e + e``."""
ALSO_RETURNED = function(EXP + NEG, ["%p", "%c"])
"""``exp(x)`` read by ``-e`` and returned as well."""


# -- 1. rule 6 is the default control function, not legality --------------------------------------
def test_mlir_refuses_a_producer_with_two_readers_by_default():
    fused = fused_by_mlir(TWO_KERNELS, DEFAULT)
    assert len(generics(fused)) == 3
    assert fused.count("math.exp") == 1


def test_mlir_fuses_a_producer_with_two_readers_when_its_control_function_allows():
    fused = fused_by_mlir(TWO_KERNELS, ALLOW_ALL)
    kernels = generics(fused)
    assert len(kernels) == 2, fused
    # exp is recomputed in each reader: legal, the very thing Task 05.3 does by hand.
    assert all("math.exp" in print_ir(kernel) for kernel in kernels), fused
    expect_same_numbers(TWO_KERNELS, fused)


def test_mlir_keeps_the_producer_for_its_other_reader():
    fused = fused_by_mlir(ALSO_RETURNED, ALLOW_ALL)
    kept, merged = generics(fused)
    assert "math.exp" in print_ir(kept) and "arith.negf" not in print_ir(kept)
    assert "math.exp" in print_ir(merged) and "arith.negf" in print_ir(merged)
    expect_same_numbers(ALSO_RETURNED, fused)


def test_tinycomp_refuses_because_its_fusion_erases_the_producer():
    module = parse(ALSO_RETURNED)
    fusion = FusionPass()
    fusion.run(module)
    assert fusion.report == ["%p -> %c: result has 2 users"]
    module = parse(ALSO_RETURNED)
    producer, consumer = [op for op in module.walk() if isinstance(op, GenericOp)]
    rewriter = PatternRewriter()
    rewriter.set_current_op(consumer)
    with pytest.raises(RewriteError, match="still used by 'func.return'"):
        fuse_producer_into_consumer(producer, consumer, 0, rewriter)


# -- 2. and 3. the other refusals ------------------------------------------------------------------
READ_AS_INIT = function(
    EXP
    + """
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%p : tensor<5xf32>) {
  ^bb0(%a: f32, %out: f32):
    %0 = arith.addf %a, %out : f32
    linalg.yield %0 : f32
  } -> tensor<5xf32>""",
    ["%c"],
)

REDUCTION_PRODUCER = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%x: tensor<3x4xf32>, %acc: tensor<3xf32>) -> tensor<3x4xf32> {
  %p = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<3x4xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  %e = tensor.empty() : tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %p : tensor<3x4xf32>, tensor<3xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %0 = arith.divf %a, %b : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  return %c : tensor<3x4xf32>
}"""

DIAGONAL = """
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @main(%v: tensor<4xf32>, %init: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %p = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0, d0)>],
      iterator_types = ["parallel"]} ins(%v : tensor<4xf32>) outs(%init : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>
  %e = tensor.empty() : tensor<4x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<4x4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x4xf32>
  return %c : tensor<4x4xf32>
}"""

LOOP_SIZE_LOST = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @main(%acc: tensor<3xf32>) -> tensor<3xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> ()>, #id],
      iterator_types = ["parallel", "parallel"]} ins(%one : f32) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<3x4xf32>
  %c = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%p : tensor<3x4xf32>) outs(%acc : tensor<3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = arith.addf %in, %out : f32
    linalg.yield %0 : f32
  } -> tensor<3xf32>
  return %c : tensor<3xf32>
}"""


@pytest.mark.parametrize(
    "text",
    [READ_AS_INIT, REDUCTION_PRODUCER, DIAGONAL, LOOP_SIZE_LOST],
    ids=["init operand", "reduction producer", "non-permutation output map", "loop size lost"],
)
@pytest.mark.parametrize("flag", [DEFAULT, ALLOW_ALL], ids=["default control", "allow all"])
def test_refusals_that_are_legality_in_mlir_too(text, flag):
    assert len(generics(fused_by_mlir(text, flag))) == 2
    module = parse(text)
    FusionPass().run(module)
    assert len([op for op in module.walk() if isinstance(op, GenericOp)]) == 2


TWO_RESULTS = function(
    """
  %p:2 = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<5xf32>) outs(%e, %e : tensor<5xf32>, tensor<5xf32>) {
  ^bb0(%in: f32, %o1: f32, %o2: f32):
    %0 = math.exp %in : f32
    %1 = arith.negf %in : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<5xf32>, tensor<5xf32>)"""
    + elementwise(
        "c", "%p#0 : tensor<5xf32>, %p#1 : tensor<5xf32>", "%0 = arith.addf %a, %b : f32"
    ),
    ["%c"],
)

INDEX_READ_TRANSPOSED = """
#id = affine_map<(d0, d1) -> (d0, d1)>
#swap = affine_map<(d0, d1) -> (d1, d0)>
func.func @main(%x: tensor<3x4xf32>) -> tensor<4x3xf32> {
  %e = tensor.empty() : tensor<3x4xf32>
  %p = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<3x4xf32>) outs(%e : tensor<3x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 1 : index
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    %0 = arith.addf %in, %f : f32
    linalg.yield %0 : f32
  } -> tensor<3x4xf32>
  %e2 = tensor.empty() : tensor<4x3xf32>
  %c = linalg.generic {indexing_maps = [#swap, #id], iterator_types = ["parallel", "parallel"]}
      ins(%p : tensor<3x4xf32>) outs(%e2 : tensor<4x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4x3xf32>
  return %c : tensor<4x3xf32>
}"""


def test_mlir_fuses_a_producer_with_two_results():
    # Both results are read, so the default control function (one use) refuses the pair.
    assert len(generics(fused_by_mlir(TWO_RESULTS, DEFAULT))) == 2
    fused = fused_by_mlir(TWO_RESULTS, ALLOW_ALL)
    assert len(generics(fused)) == 1
    expect_same_numbers(TWO_RESULTS, fused)
    module = parse(TWO_RESULTS)
    fusion = FusionPass()
    fusion.run(module)
    assert "producer has 2 results (only one is supported)" in fusion.report[0]


def test_mlir_renumbers_linalg_index_when_it_fuses():
    fused = fused_by_mlir(INDEX_READ_TRANSPOSED, DEFAULT)
    (kernel,) = generics(fused)
    assert "linalg.index 0" in print_ir(kernel)  # the producer's d1 is the consumer's d0
    expect_same_numbers(INDEX_READ_TRANSPOSED, fused)
    fusion = FusionPass()
    fusion.run(parse(INDEX_READ_TRANSPOSED))
    assert fusion.report == ["%p -> %c: producer payload uses linalg.index"]


# -- 4. repeated operands are merged, so shared_exp is one kernel ---------------------------------
def test_mlir_merges_repeated_operands_in_its_fusion_pass_not_in_canonicalize():
    twice = function(EXP + elementwise("c", "%p : tensor<5xf32>, %p : tensor<5xf32>",
                                       "%0 = arith.mulf %a, %b : f32"), ["%c"])  # fmt: skip
    # Not a canonicalization of linalg.generic in MLIR 22: --canonicalize keeps ins(%p, %p).
    (_, kept) = generics(run_mlir_opt(twice, "--canonicalize"))
    assert kept.num_inputs == 2
    # The fusion pass adds the patterns that erase dead and repeated operands, so %p then has
    # one use, and fuses.
    fused = fused_by_mlir(twice, DEFAULT)
    assert len(generics(fused)) == 1 and fused.count("math.exp") == 1
    expect_same_numbers(twice, fused)


def shared_exp(a):
    e = exp(a)
    return (e + 1.0) * (e * 2.0)


def test_mlir_fuses_shared_exp_into_one_kernel():
    module = tinycomp.compile(shared_exp, TensorSpec((4, 8)), stop_after="generalized")
    text = print_ir(module.ir("generalized"))
    fused = fused_by_mlir(text, DEFAULT)
    assert len(generics(fused)) == 1
    assert fused.count("math.exp") == 1
    expect_same_numbers(text, fused)


# -- 5. the transpose of k becomes a map of the first matmul ---------------------------------------
def test_attention_transpose_fuses_into_the_first_matmul():
    specs = [TensorSpec((8, 4))] * 3
    generalized = tinycomp.compile(attention, *specs, stop_after="generalized").ir("generalized")
    text = print_ir(generalized)
    k_map = parse_affine_map("(d0, d1, d2) -> (d1, d2)")
    for fused in (fused_by_mlir(text, DEFAULT), print_ir(_fused_by_tinycomp(text))):
        module = parse(fused)
        k = next(op for op in module.walk() if op.name == "func.func").regions[0]
        k = k.entry_block.arguments[1]
        readers = [use.user for use in k.uses if isinstance(use.user, GenericOp)]
        (matmul,) = readers
        assert "reduction" in matmul.iterator_types()
        assert matmul.indexing_maps()[matmul.inputs.index(k)] == k_map, fused


def _fused_by_tinycomp(text: str):
    module = parse(text)
    FusionPass().run(module)
    return module

"""The greedy driver: worklist order, benefits, dead ops, convergence and its errors."""

from __future__ import annotations

import pytest

from tinycomp.ir import parse, verify
from tinycomp.ir.attributes import UnitAttr
from tinycomp.rewrite import (
    FOLDING,
    RewriteError,
    RewritePattern,
    apply_patterns_greedily,
    constant_attr_of,
    is_constant_int,
)

from .helpers import body_text


class SwapConstantToLeft(RewritePattern):
    """x + c -> c + x"""

    root = "arith.addi"

    def match_and_rewrite(self, op, rewriter):
        lhs, rhs = op.operands
        if constant_attr_of(rhs) is None or constant_attr_of(lhs) is not None:
            return False
        with rewriter.modify_op_in_place(op):
            op.set_operands([rhs, lhs])
        return True


class SwapConstantToRight(RewritePattern):
    """c + x -> x + c"""

    root = "arith.addi"

    def match_and_rewrite(self, op, rewriter):
        lhs, rhs = op.operands
        if constant_attr_of(lhs) is None or constant_attr_of(rhs) is not None:
            return False
        with rewriter.modify_op_in_place(op):
            op.set_operands([rhs, lhs])
        return True


class MarkBehindTheRewritersBack(RewritePattern):
    """Toggles a unit attribute without telling the rewriter (a buggy pattern)."""

    root = "arith.muli"

    def match_and_rewrite(self, op, rewriter):
        if "marked" in op.attributes:
            del op.attributes["marked"]
        else:
            op.attributes["marked"] = UnitAttr()
        return True


class AddZero(RewritePattern):
    """x + 0 -> x"""

    root = "arith.addi"

    def match_and_rewrite(self, op, rewriter):
        x, zero = op.operands
        if not is_constant_int(zero, 0):
            return False
        rewriter.replace_op(op, [x])
        return True


class AddToSub(RewritePattern):
    """x + y -> x - y  (wrong algebra, but a higher benefit: it must win)"""

    root = "arith.addi"
    benefit = 5

    def match_and_rewrite(self, op, rewriter):
        from tinycomp.dialects.arith import SubIOp

        rewriter.replace_op_with_new(op, SubIOp.build(*op.operands))
        return True


class CountEveryOp(RewritePattern):
    """(any op) -> unchanged; remembers which op names it saw"""

    root = None

    def __init__(self):
        self.seen: list[str] = []

    def match_and_rewrite(self, op, rewriter):
        self.seen.append(op.name)
        return False


ADD_WITH_CONSTANT = """
func.func @f(%x: i32) -> i32 {
  %c5 = arith.constant 5 : i32
  %y = arith.addi %x, %c5 : i32
  return %y : i32
}"""


def test_ping_pong_patterns_stop_with_a_clear_error():
    module = parse(ADD_WITH_CONSTANT)
    with pytest.raises(RewriteError) as error:
        apply_patterns_greedily(
            module, [SwapConstantToLeft(), SwapConstantToRight()], max_rewrites=1000
        )
    message = str(error.value)
    assert message.startswith("did not converge: iteration 1 reached max_rewrites=1000")
    assert "SwapConstantToLeft (500 times on arith.addi)" in message
    assert "SwapConstantToRight (500 times on arith.addi)" in message


def test_ping_pong_is_stopped_by_the_default_budget_too():
    module = parse(ADD_WITH_CONSTANT)
    with pytest.raises(RewriteError, match="patterns still firing: SwapConstant"):
        apply_patterns_greedily(module, [SwapConstantToLeft(), SwapConstantToRight()])


def test_a_pattern_firing_every_iteration_hits_the_iteration_cap():
    module = parse("func.func @f(%x: i32) -> i32 { %y = arith.muli %x, %x : i32  return %y : i32 }")
    with pytest.raises(RewriteError) as error:
        apply_patterns_greedily(module, [MarkBehindTheRewritersBack()], max_iterations=3)
    assert str(error.value) == (
        "did not converge after 3 iterations: patterns still firing: "
        "MarkBehindTheRewritersBack (1 time on arith.muli)"
    )


def test_max_iterations_must_be_positive():
    with pytest.raises(RewriteError, match="expected max_iterations >= 1, got 0"):
        apply_patterns_greedily(parse(ADD_WITH_CONSTANT), [], max_iterations=0)


def test_converged_result_reports_what_fired():
    module = parse("""
func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.addi %a, %c0 : i32
  return %b : i32
}""")
    result = apply_patterns_greedily(module, [AddZero()])
    assert result.changed and result.iterations == 2
    assert result.rewrites == {("AddZero", "arith.addi"): 2}
    assert result.summary() == "AddZero: 2 on arith.addi"
    assert body_text(module) == "func.func @f(%x: i32) -> i32 {\n  return %x : i32\n}"


def test_nothing_to_do_converges_in_one_iteration():
    module = parse(ADD_WITH_CONSTANT)
    result = apply_patterns_greedily(module, [AddZero()])
    assert (result.changed, result.iterations, dict(result.rewrites)) == (False, 1, {})


def test_higher_benefit_is_tried_first():
    module = parse(ADD_WITH_CONSTANT.replace("constant 5", "constant 0"))
    result = apply_patterns_greedily(module, [AddZero(), AddToSub()])
    assert "arith.subi" in body_text(module)
    assert result.rewrites == {("AddToSub", "arith.addi"): 1}


def test_any_op_patterns_see_every_op_in_program_order():
    module = parse("""
func.func @f(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  "test.print"(%a) : (i32) -> ()
  return %a : i32
}""")
    counter = CountEveryOp()
    apply_patterns_greedily(module, [counter])
    assert counter.seen == ["func.func", "arith.muli", "test.print", "func.return"]


def test_dead_ops_are_erased_in_chains_but_unknown_ops_are_kept():
    module = parse("""
func.func @f(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  %b = arith.addi %a, %x : i32
  %c = arith.subi %b, %a : i32
  %kept = "test.opaque"(%x) : (i32) -> i32
  return %x : i32
}""")
    apply_patterns_greedily(module, [])
    assert body_text(module) == (
        "func.func @f(%x: i32) -> i32 {\n"
        '  %kept = "test.opaque"(%x) : (i32) -> i32\n'
        "  return %x : i32\n}"
    )


def test_folding_replaces_ops_on_constants_and_can_be_turned_off():
    text = """
func.func @f() -> i32 {
  %c2 = arith.constant 2 : i32
  %c3 = arith.constant 3 : i32
  %p = arith.muli %c2, %c3 : i32
  return %p : i32
}"""
    folded = parse(text)
    result = apply_patterns_greedily(folded, [])
    assert result.rewrites == {(FOLDING, "arith.muli"): 1}
    assert "arith.constant 6 : i32" in body_text(folded)
    kept = parse(text)
    assert not apply_patterns_greedily(kept, [], fold=False).changed
    assert "arith.muli" in body_text(kept)


def test_constants_in_unregistered_regions_stay_there():
    # an unregistered op might be isolated from above (MLIR assumes it could be): its
    # region keeps its own constants, and the function keeps its own
    module = parse("""
func.func @f(%x: i32) -> (i32, i32) {
  %a = "test.region"() ({
    %c7 = arith.constant 7 : i32
    %s = arith.addi %x, %c7 : i32
    "test.yield"(%s) : (i32) -> ()
  }) : () -> i32
  %c7_again = arith.constant 7 : i32
  %b = arith.muli %x, %c7_again : i32
  return %a, %b : i32, i32
}""")
    apply_patterns_greedily(module, [])
    region_op = module.body.first_op.entry_block.ops[1]
    assert region_op.name == "test.region"
    assert region_op.regions[0].blocks[0].first_op.name == "arith.constant"
    assert module.body.first_op.entry_block.first_op.name == "arith.constant"
    verify(module)


def test_constants_in_registered_regions_move_to_the_function_top():
    import tinycomp.dialects.scf  # noqa: F401  (registers scf)

    module = parse("""
func.func @f(%x: i32, %c: i1) -> i32 {
  %r = scf.if %c -> (i32) {
    %c7 = arith.constant 7 : i32
    %s = arith.addi %x, %c7 : i32
    scf.yield %s : i32
  } else {
    scf.yield %x : i32
  }
  return %r : i32
}""")
    apply_patterns_greedily(module, [])
    entry = module.body.first_op.entry_block
    assert entry.first_op.name == "arith.constant"
    verify(module)


def test_without_constant_uniquing_constants_stay_where_they_are():
    text = """
func.func @f(%x: i32) -> (i32, i32) {
  %a = arith.addi %x, %x : i32
  %c1 = arith.constant 1 : i32
  %b = arith.addi %a, %c1 : i32
  %c1_again = arith.constant 1 : i32
  %d = arith.addi %b, %c1_again : i32
  return %b, %d : i32, i32
}"""
    module = parse(text)
    assert not apply_patterns_greedily(module, [], cse_constants=False).changed
    assert body_text(module).count("arith.constant 1") == 2
    tidy = parse(text)
    apply_patterns_greedily(tidy, [])
    assert body_text(tidy).count("arith.constant 1") == 1
    assert tidy.body.first_op.entry_block.first_op.name == "arith.constant"


def test_a_pattern_may_erase_ops_that_are_still_on_the_worklist():
    class EraseStoreAndValue(RewritePattern):
        """print(x * x) -> nothing"""

        root = "test.print"

        def match_and_rewrite(self, op, rewriter):
            producer = op.operands[0].defining_op()
            rewriter.erase_op(op)
            if producer is not None and not producer.results[0].has_uses:
                rewriter.erase_op(producer)
            return True

    module = parse("""
func.func @f(%x: i32) {
  "test.print"(%x) : (i32) -> ()
  %m = arith.muli %x, %x : i32
  "test.print"(%m) : (i32) -> ()
  return
}""")
    apply_patterns_greedily(module, [EraseStoreAndValue()])
    assert body_text(module) == "func.func @f(%x: i32) {\n  return\n}"

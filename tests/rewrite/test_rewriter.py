"""The PatternRewriter makes each change and tells its listener about it."""

from __future__ import annotations

import pytest
from ir.helpers import check_use_lists

from tinycomp.dialects.arith import AddIOp, ConstantOp, MulIOp
from tinycomp.ir import verify
from tinycomp.ir.types import f32, i32
from tinycomp.rewrite import PatternRewriter, RewriteError

from .helpers import RecordingListener, body_text, function_ops

SOURCE = """
func.func @f(%x: i32, %y: i32) -> i32 {
  %a = arith.addi %x, %y : i32
  %b = arith.muli %a, %a : i32
  return %b : i32
}"""


def make_rewriter():
    listener = RecordingListener()
    return PatternRewriter(listener), listener


def test_insert_goes_before_the_current_op_with_its_location():
    module, (add, mul, _) = function_ops(SOURCE)
    rewriter, listener = make_rewriter()
    rewriter.set_current_op(mul)
    constant = rewriter.insert(ConstantOp.build(3, i32))
    assert constant.next_op is mul
    assert constant.location == mul.location and mul.location is not None
    assert listener.events == [("inserted", "arith.constant")]


def test_replace_op_redirects_uses_then_erases():
    module, (add, mul, ret) = function_ops(SOURCE)
    rewriter, listener = make_rewriter()
    rewriter.replace_op(mul, [add.result])
    assert ret.operands == (add.result,)
    assert listener.events == [("replaced", "arith.muli"), ("erased", "arith.muli")]
    assert mul.parent is None
    verify(module)
    check_use_lists(module)


def test_replace_op_with_new_inserts_before_and_replaces():
    module, (add, mul, _) = function_ops(SOURCE)
    x, y = add.operands
    rewriter, listener = make_rewriter()
    rewriter.set_current_op(add)
    rewriter.replace_op_with_new(mul, MulIOp.build(x, y))
    assert "%0 = arith.muli %x, %y : i32" in body_text(module)
    assert listener.events[0] == ("inserted", "arith.muli")
    verify(module)


def test_replace_op_checks_count_and_types():
    module, (add, mul, _) = function_ops(SOURCE)
    rewriter, _ = make_rewriter()
    with pytest.raises(RewriteError, match=r"'arith.muli' at line 4: expected 1 replacement"):
        rewriter.replace_op(mul, [add.result, add.result])
    _, (negf, _) = function_ops(
        "func.func @g(%z: f32) -> f32 { %n = arith.negf %z : f32  return %n : f32 }"
    )
    with pytest.raises(RewriteError, match="has type i32, but its replacement has type f32"):
        rewriter.replace_op(add, [negf.result])
    assert negf.result.type == f32


def test_erase_op_refuses_an_op_that_is_still_used():
    module, (add, mul, _) = function_ops(SOURCE)
    rewriter, _ = make_rewriter()
    with pytest.raises(RewriteError, match="cannot erase 'arith.addi' at line 3: result #0 is"):
        rewriter.erase_op(add)
    assert add.parent is not None


def test_replace_all_uses_with_reports_each_user_once():
    module, (add, mul, ret) = function_ops(SOURCE)
    x = add.operands[0]
    rewriter, listener = make_rewriter()
    rewriter.replace_all_uses_with(add.result, x)
    assert mul.operands == (x, x)
    assert listener.events == [("modified", "arith.muli")]


def test_modify_op_in_place_notifies_at_the_end():
    module, (add, mul, _) = function_ops(SOURCE)
    x, y = add.operands
    rewriter, listener = make_rewriter()
    with rewriter.modify_op_in_place(add):
        add.set_operands([y, x])
        assert listener.events == []
    assert listener.events == [("modified", "arith.addi")]


def test_inline_block_before_moves_ops_and_maps_arguments():
    module, ops = function_ops("""
func.func @f(%x: i32) -> i32 {
  %r = "test.wrap"() ({
  ^bb0(%arg: i32):
    %a = arith.addi %arg, %arg : i32
    "test.yield"(%a) : (i32) -> ()
  }) : () -> i32
  return %r : i32
}""")
    wrap, ret = ops
    block = wrap.regions[0].blocks[0]
    rewriter, listener = make_rewriter()
    yield_op = block.last_op
    rewriter.erase_op(yield_op)
    x = module.body.first_op.arguments[0]
    rewriter.inline_block_before(block, wrap, [x])
    added = wrap.prev_op
    rewriter.replace_op(wrap, [added.result])
    assert "%a = arith.addi %x, %x : i32" in body_text(module)
    assert ("inserted", "arith.addi") in listener.events
    assert wrap.parent is None
    verify(module)


def test_inline_block_before_checks_the_argument_count():
    module, ops = function_ops("""
func.func @f(%x: i32) {
  "test.wrap"() ({
  ^bb0(%arg: i32):
    "test.yield"() : () -> ()
  }) : () -> ()
  return
}""")
    rewriter, _ = make_rewriter()
    with pytest.raises(RewriteError, match="block of 1 argument.*got 0 value"):
        rewriter.inline_block_before(ops[0].regions[0].blocks[0], ops[0], [])


def test_move_op_before_notifies_insertion():
    module, (add, mul, ret) = function_ops(SOURCE)
    rewriter, listener = make_rewriter()
    rewriter.set_current_op(add)
    c = rewriter.insert(AddIOp.build(*add.operands))
    rewriter.move_op_before(c, ret)
    assert c.next_op is ret
    assert listener.events[-1] == ("inserted", "arith.addi")

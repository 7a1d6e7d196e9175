"""The IR graph: building, walking, cloning, replacing and erasing, with use lists that
stay consistent after every mutation."""

from __future__ import annotations

import pytest

from tinycomp.dialects import arith, cf, func
from tinycomp.ir import (
    Block,
    Builder,
    FunctionType,
    InsertionPoint,
    ModuleOp,
    Operation,
    Region,
    f32,
    i1,
    index,
    ir_equal,
    parse,
    print_ir,
    verify,
)

from .helpers import check_use_lists


def build_axpy() -> tuple[ModuleOp, func.FuncOp]:
    function = func.FuncOp.build("axpy", FunctionType([f32, f32, f32], [f32]))
    a, x, y = function.arguments
    b = Builder.at_end(function.entry_block)
    ax = b.insert(arith.MulFOp.build(a, x)).result
    ax.name_hint = "ax"
    total = b.insert(arith.AddFOp.build(ax, y)).result
    b.insert(func.ReturnOp.build([total]))
    return ModuleOp.build([function]), function


def test_builder_builds_verifiable_ir():
    module, _ = build_axpy()
    verify(module)
    check_use_lists(module)
    assert print_ir(module) == (
        "module {\n"
        "  func.func @axpy(%arg0: f32, %arg1: f32, %arg2: f32) -> f32 {\n"
        "    %ax = arith.mulf %arg0, %arg1 : f32\n"
        "    %0 = arith.addf %ax, %arg2 : f32\n"
        "    return %0 : f32\n"
        "  }\n"
        "}"
    )


def test_insertion_points_keep_insertion_order():
    block = Block([f32])
    (x,) = block.arguments
    last = block.append(arith.NegFOp.build(x))
    b = Builder.before(last)
    first = b.insert(arith.AddFOp.build(x, x))
    second = b.insert(arith.MulFOp.build(x, x))
    start = Builder.at_start(block).insert(arith.SubFOp.build(x, x))
    after_first = Builder.after(first).insert(arith.DivFOp.build(x, x))
    names = [op.name.split(".")[1] for op in block.ops]
    assert names == ["subf", "addf", "divf", "mulf", "negf"]
    assert (start.next_op, second.prev_op, len(block)) == (first, after_first, 5)


def test_builder_context_manager_restores_the_insertion_point():
    block = Block([f32])
    (x,) = block.arguments
    b = Builder.at_end(block)
    anchor = b.insert(arith.NegFOp.build(x))
    with b.at(InsertionPoint.before(anchor)):
        b.insert(arith.AddFOp.build(x, x))
    b.insert(arith.MulFOp.build(x, x))
    assert [op.name for op in block] == ["arith.addf", "arith.negf", "arith.mulf"]


def test_builder_location_is_given_to_new_ops():
    from tinycomp.ir import Location

    block = Block([f32])
    b = Builder.at_end(block)
    b.location = Location("model.py", 7, 3)
    op = b.insert(arith.NegFOp.build(block.arguments[0]))
    assert op.location == Location("model.py", 7, 3)


def test_walk_pre_and_post_order():
    module, function = build_axpy()
    pre = [op.name for op in module.walk()]
    post = [op.name for op in module.walk(order="post")]
    assert pre == ["builtin.module", "func.func", "arith.mulf", "arith.addf", "func.return"]
    assert post == ["arith.mulf", "arith.addf", "func.return", "func.func", "builtin.module"]


def test_erasing_during_a_post_order_walk_is_safe():
    module = parse(
        "func.func @f(%a: f32) -> f32 {\n  %0 = arith.addf %a, %a : f32\n"
        "  %1 = arith.mulf %0, %0 : f32\n  %2 = arith.negf %a : f32\n  return %2 : f32\n}"
    )

    def sweep() -> None:  # dead-code elimination: erase unused pure ops
        for op in module.walk(order="post"):
            if op.is_pure and not op.is_terminator and not any(r.has_uses for r in op.results):
                op.erase()

    sweep()  # the walk goes forward: %1 goes, %0 was visited while %1 still used it
    assert [op.name for op in module.walk()][2:] == ["arith.addf", "arith.negf", "func.return"]
    sweep()
    assert [op.name for op in module.walk()][2:] == ["arith.negf", "func.return"]
    check_use_lists(module)


def test_walk_skips_ops_erased_before_it_reaches_them():
    module, function = build_axpy()
    seen = []
    for op in module.walk():
        seen.append(op.name)
        if op.name == "arith.mulf":
            add = op.next_op
            add.result.replace_all_uses_with(function.arguments[0])
            add.erase()
    assert "arith.addf" not in seen


def test_replace_all_uses_with_updates_both_use_lists():
    module, function = build_axpy()
    a, x, _ = function.arguments
    assert a.num_uses == 1 and x.num_uses == 1
    a.replace_all_uses_with(x)
    assert (a.has_uses, x.num_uses) == (False, 2)
    mul = function.entry_block.first_op
    assert mul.operands == (x, x)
    assert [use.index for use in x.uses] == [1, 0]
    check_use_lists(module)


def test_replace_uses_with_if():
    module, function = build_axpy()
    a, x, y = function.arguments
    mul = function.entry_block.first_op
    mul.set_operand(1, a)
    a.replace_uses_with_if(y, lambda use: use.index == 1)
    assert mul.operands == (a, y)
    check_use_lists(module)


def test_erase_refuses_while_results_are_used():
    module, function = build_axpy()
    mul = function.entry_block.first_op
    with pytest.raises(
        ValueError, match=r"cannot erase 'arith.mulf': result #0 is still used by 'arith.addf'"
    ):
        mul.erase()
    assert mul.parent is function.entry_block


def test_erase_drops_operand_uses_of_nested_ops():
    module = parse(
        'func.func @f(%a: f32) {\n  "t.region"() ({\n    %0 = arith.addf %a, %a : f32\n'
        "  }) : () -> ()\n  return\n}"
    )
    function = module.body.first_op
    (a,) = function.arguments
    assert a.num_uses == 2
    function.entry_block.first_op.erase()
    assert not a.has_uses
    check_use_lists(module)


def test_detach_and_move():
    module, function = build_axpy()
    mul, add, ret = function.entry_block.ops
    add.detach()
    assert add.parent is None and len(function.entry_block) == 2
    assert add.operands[0] is mul.result  # detaching keeps operands and uses
    add.move_before(ret)  # works for a detached op too
    mul.move_after(add)
    assert [op.name for op in function.entry_block] == ["arith.addf", "arith.mulf", "func.return"]
    with pytest.raises(ValueError, match="already in a block"):
        function.entry_block.append(mul)
    check_use_lists(module)


def test_set_operand_and_set_operands():
    block = Block([f32, f32, f32])
    a, b, c = block.arguments
    op = Operation.create("t.op", [a, a])
    op.set_operand(1, b)
    assert [u.index for u in a.uses] == [0] and [u.index for u in b.uses] == [1]
    op.set_operands([c])
    assert op.operands == (c,) and not a.has_uses and not b.has_uses
    assert op.operand(0) is c


def test_result_accessor_needs_exactly_one_result():
    op = Operation.create("t.op", result_types=[f32, f32])
    with pytest.raises(ValueError, match="'t.op' has 2 results, expected 1"):
        _ = op.result


def test_parent_navigation():
    module, function = build_axpy()
    mul = function.entry_block.first_op
    assert mul.parent_op() is function and function.parent_op() is module
    assert mul.parent_region() is function.body and module.parent_op() is None
    assert function.is_ancestor_of(mul) and not mul.is_ancestor_of(function)
    assert function.entry_block.is_entry_block and function.entry_block.parent_op() is function


def test_clone_is_deep_and_independent():
    module = parse(
        "func.func @f(%c: i1, %a: index) -> index {\n  cf.cond_br %c, ^bb2(%a : index), ^bb1\n"
        "^bb1:\n  %0 = arith.addi %a, %a : index\n  cf.br ^bb2(%0 : index)\n"
        "^bb2(%r: index):\n  return %r : index\n}"
    )
    function = module.body.first_op
    mapping: dict = {}
    copy = function.clone(mapping)
    assert copy.parent is None and ir_equal(function, copy)
    assert mapping[function.arguments[0]] is copy.arguments[0]
    assert mapping[function.body.blocks[2]] is copy.body.blocks[2]
    new_branch = copy.entry_block.last_op
    assert new_branch.successors[0] is copy.body.blocks[2]
    for op in copy.walk():
        for value in op.operands:
            assert copy.is_ancestor_of(value.defining_op() or value.parent_block().parent_op())
    copy.attributes["sym_name"] = function.attributes["sym_name"].__class__("g")
    module.body.append(copy)
    verify(module)
    check_use_lists(module)


def test_clone_remaps_uses_that_come_before_their_definition():
    module = parse(
        "func.func @f() {\n  cf.br ^bb2\n^bb1:\n  %1 = arith.addi %0, %0 : i32\n  return\n"
        "^bb2:\n  %0 = arith.constant 1 : i32\n  cf.br ^bb1\n}"
    )
    function = module.body.first_op
    copy = function.clone()
    add = copy.body.blocks[1].first_op
    assert add.operands[0].defining_op().parent is copy.body.blocks[2]


def test_clone_with_a_mapping_for_outside_values():
    block = Block([f32, f32])
    a, b = block.arguments
    op = arith.AddFOp.build(a, a)
    copy = op.clone({a: b})
    assert copy.operands == (b, b) and op.operands == (a, a)


def test_block_arguments_can_be_added_and_erased():
    block = Block([f32])
    extra = block.add_argument(index, name_hint="i")
    assert (extra.index, extra.name_hint) == (1, "i")
    user = block.append(Operation.create("t.use", [extra]))
    with pytest.raises(ValueError, match="cannot erase block argument #1: used by 't.use'"):
        block.erase_argument(1)
    user.erase()
    block.erase_argument(0)
    assert block.arguments == (extra,) and extra.index == 0


def test_regions_hold_blocks():
    region = Region()
    first, second = Block(), Block([i1])
    region.append_block(first)
    region.insert_block(0, second)
    assert region.blocks == (second, first) and region.entry_block is second
    region.remove_block(second)
    other = Region([second])
    region.take_body(other)
    assert region.blocks == (first, second) and other.blocks == ()
    with pytest.raises(ValueError, match="already belongs"):
        Region([first])


def test_cond_br_builds_segment_sizes():
    entry, target = Block([i1, f32]), Block([f32])
    flag, x = entry.arguments
    branch = cf.CondBranchOp.build(flag, target, [x], target, [x])
    assert branch.successor_operands(0) == (x,) and branch.successor_operands(1) == (x,)
    assert cf.BranchOp.build(target, [x]).successor_operands(0) == (x,)


def test_operation_create_picks_the_registered_class():
    a = Block([f32]).arguments[0]
    assert isinstance(Operation.create("arith.negf", [a], [f32]), arith.NegFOp)
    assert type(Operation.create("nobody.op")) is Operation
    with pytest.raises(ValueError, match="builds 'arith.addf', not 'arith.subf'"):
        arith.AddFOp([a, a], [f32], name="arith.subf")
    with pytest.raises(TypeError, match="attribute 'value' of 't.op' is not an Attribute"):
        Operation.create("t.op", attributes={"value": 1})
    with pytest.raises(TypeError, match="operand of 't.op' is not a Value"):
        Operation.create("t.op", [1.0])

"""Dominance between blocks, and structural equality of IR."""

from __future__ import annotations

from tinycomp.ir import DominanceInfo, first_difference, ir_equal, parse
from tinycomp.ir.attributes import OpaqueAttr


def blocks_of(text: str):
    function = parse(text).body.first_op
    return function.body, function.body.blocks


LOOP = """
func.func @f(%c: i1) {
  cf.br ^bb1
^bb1:
  cf.cond_br %c, ^bb2, ^bb3
^bb2:
  cf.cond_br %c, ^bb1, ^bb4
^bb3:
  cf.br ^bb4
^bb4:
  return
^bb5:
  cf.br ^bb4
}"""


def test_dominance_in_a_loop_with_an_exit_join_and_an_unreachable_block():
    region, (entry, header, body, other, exit_block, dead) = blocks_of(LOOP)
    info = DominanceInfo(region)
    assert info.dominates(entry, exit_block) and info.dominates(header, body)
    assert info.dominates(header, exit_block) and not info.dominates(body, exit_block)
    assert not info.dominates(body, header) and info.dominates(body, body)
    assert info.immediate_dominator(exit_block) is header
    assert info.immediate_dominator(entry) is None
    assert not info.is_reachable(dead) and info.dominates(body, dead)


def test_ir_equal_ignores_names_and_locations_but_not_structure():
    a = parse("func.func @f(%x: f32) -> f32 {\n  %y = arith.negf %x : f32\n  return %y : f32\n}")
    b = parse("\n\nfunc.func @f(%arg0: f32) -> f32 { %0 = arith.negf %arg0 : f32 return %0 : f32 }")
    assert ir_equal(a, b)
    c = parse("func.func @f(%x: f32) -> f32 {\n  %y = arith.negf %x : f32\n  return %x : f32\n}")
    assert (
        first_difference(a, c)
        == "operand #0 differs: 'func.return' at line 3 vs 'func.return' at line 3"
    )


def test_default_attributes_count_as_present():
    plain = parse("func.func @f(%x: f32) {\n  %0 = arith.addf %x, %x : f32\n  return\n}")
    explicit = parse(
        'func.func @f(%x: f32) {\n  %0 = "arith.addf"(%x, %x) <{fastmath = #arith.fastmath<none>}>'
        " : (f32, f32) -> f32\n  return\n}"
    )
    assert ir_equal(plain, explicit)
    add = explicit.body.first_op.entry_block.first_op
    add.attributes["fastmath"] = OpaqueAttr("#arith.fastmath<fast>")
    assert "attribute 'fastmath' differs" in first_difference(plain, explicit)


def test_differences_are_reported_in_order():
    a = parse('"t.a"() : () -> ()\n"t.b"() : () -> i32')
    b = parse('"t.a"() : () -> ()\n"t.b"() : () -> f32')
    assert first_difference(a, b).startswith("result types differ (i32 vs f32)")
    c = parse('"t.a"() : () -> ()')
    assert "has 2 ops vs 1" in first_difference(a, c)

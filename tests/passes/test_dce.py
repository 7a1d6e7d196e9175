"""DCE: ops, loops, block arguments and private functions (golden files show more)."""

from __future__ import annotations

from tinycomp.ir import parse, verify
from tinycomp.passes import DCEPass

from . import helpers  # noqa: F401  (registers the dialects)


def run_dce(text: str):
    module = parse(text)
    dce = DCEPass()
    dce.run(module)
    verify(module)
    return module, dict(dce.statistics)


def test_an_unused_pure_loop_goes_but_a_storing_loop_stays():
    module, statistics = run_dce("""
func.func @f(%lb: index, %ub: index, %s: f32, %m: memref<4xf32>) {
  %r = scf.for %i = %lb to %ub step %ub iter_args(%a = %s) -> (f32) {
    %n = arith.mulf %a, %a : f32
    scf.yield %n : f32
  }
  scf.for %i = %lb to %ub step %ub {
    memref.store %s, %m[%i] : memref<4xf32>
  }
  return
}""")
    assert str(module).count("scf.for") == 1
    assert "memref.store" in str(module)
    assert statistics == {"ops erased": 1}


def test_entry_block_arguments_are_never_removed():
    module, statistics = run_dce("""
func.func @f(%unused: i32) {
  return
}""")
    assert "%unused: i32" in str(module) and statistics == {}


def test_a_branch_passing_two_values_to_the_same_block():
    module, statistics = run_dce("""
func.func @f(%c: i1, %x: i32, %y: i32) -> i32 {
  cf.cond_br %c, ^bb1(%x, %y : i32, i32), ^bb1(%y, %x : i32, i32)
^bb1(%keep: i32, %drop: i32):
  return %keep : i32
}""")
    assert "cf.cond_br %c, ^bb1(%x : i32), ^bb1(%y : i32)" in str(module)
    assert statistics == {"block arguments erased": 1}


def test_arguments_of_blocks_reached_by_other_terminators_are_kept():
    module, statistics = run_dce("""
func.func @f(%x: i32) {
  "test.branch"(%x)[^bb1] : (i32) -> ()
^bb1(%unused: i32):
  return
}""")
    assert "^bb1(%unused: i32)" in str(module) and statistics == {}


def test_dropping_arguments_makes_the_passed_values_dead():
    module, statistics = run_dce("""
func.func @f(%x: i32) -> i32 {
  %square = arith.muli %x, %x : i32
  cf.br ^bb1(%square : i32)
^bb1(%unused: i32):
  return %x : i32
}""")
    assert "arith.muli" not in str(module)
    assert statistics == {"block arguments erased": 1, "ops erased": 1}


def test_private_functions_called_only_by_dead_private_functions_go_too():
    module, statistics = run_dce("""
func.func private @leaf() {
  return
}
func.func private @caller() {
  func.call @leaf() : () -> ()
  return
}
func.func @main() {
  return
}""")
    assert "@leaf" not in str(module) and "@caller" not in str(module)
    assert statistics == {"functions erased": 2}

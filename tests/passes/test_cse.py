"""CSE: what may be merged, and where a value may be reused (golden files show more)."""

from __future__ import annotations

from tinycomp.ir import parse, verify
from tinycomp.passes import CSEPass
from tinycomp.passes.cse import ScopedTable, cse_key

from . import helpers  # noqa: F401  (registers the dialects)
from .helpers import public_functions


def run_cse(text: str):
    module = parse(text)
    cse = CSEPass()
    cse.run(module)
    verify(module)
    return module, cse.statistics["ops erased"]


def test_ops_differing_in_attributes_or_types_are_not_merged():
    _, erased = run_cse("""
func.func @f(%x: i32, %y: i32) -> (i1, i1, i32, i32) {
  %a = arith.cmpi slt, %x, %y : i32
  %b = arith.cmpi sgt, %x, %y : i32
  %c = arith.addi %x, %y : i32
  %d = arith.addi %x, %y overflow<nsw> : i32
  return %a, %b, %c, %d : i1, i1, i32, i32
}""")
    assert erased == 0


def test_non_commutative_operand_order_matters():
    _, erased = run_cse("""
func.func @f(%x: i32, %y: i32) -> (i32, i32) {
  %a = arith.subi %x, %y : i32
  %b = arith.subi %y, %x : i32
  return %a, %b : i32, i32
}""")
    assert erased == 0


def test_constants_are_merged_and_chains_collapse():
    module, erased = run_cse("""
func.func @f(%x: i32) -> i32 {
  %c1 = arith.constant 1 : i32
  %a = arith.addi %x, %c1 : i32
  %c1_again = arith.constant 1 : i32
  %b = arith.addi %x, %c1_again : i32
  %p = arith.muli %a, %a : i32
  %q = arith.muli %b, %b : i32
  %r = arith.subi %p, %q : i32
  return %r : i32
}""")
    assert erased == 3
    assert "%r = arith.subi %p, %p" in str(module)


def test_ops_with_regions_and_unknown_ops_are_never_merged():
    _, erased = run_cse("""
func.func @f(%c: i1, %x: i32) -> (i32, i32, i32, i32) {
  %a = scf.if %c -> (i32) {
    scf.yield %x : i32
  } else {
    scf.yield %x : i32
  }
  %b = scf.if %c -> (i32) {
    scf.yield %x : i32
  } else {
    scf.yield %x : i32
  }
  %u = "test.random"() : () -> i32
  %v = "test.random"() : () -> i32
  return %a, %b, %u, %v : i32, i32, i32, i32
}""")
    assert erased == 0


def test_a_value_from_inside_a_loop_is_not_reused_after_it():
    module, erased = run_cse("""
func.func @f(%lb: index, %ub: index, %x: i32) -> i32 {
  scf.for %i = %lb to %ub step %ub {
    %inside = arith.muli %x, %x : i32
    "test.use"(%inside) : (i32) -> ()
  }
  %after = arith.muli %x, %x : i32
  return %after : i32
}""")
    assert erased == 0


def test_an_outside_value_is_reused_in_nested_loops():
    module, erased = run_cse("""
func.func @f(%lb: index, %ub: index, %x: i32) -> i32 {
  %outside = arith.muli %x, %x : i32
  scf.for %i = %lb to %ub step %ub {
    scf.for %j = %lb to %ub step %ub {
      %inside = arith.muli %x, %x : i32
      "test.use"(%inside) : (i32) -> ()
    }
  }
  return %outside : i32
}""")
    assert erased == 1
    assert '"test.use"(%outside)' in str(module)


def test_a_store_inside_a_loop_separates_two_loads():
    _, erased = run_cse("""
func.func @f(%m: memref<4xi32>, %i: index, %v: i32) -> (i32, i32) {
  %a = memref.load %m[%i] : memref<4xi32>
  scf.for %j = %i to %i step %i {
    memref.store %v, %m[%j] : memref<4xi32>
  }
  %b = memref.load %m[%i] : memref<4xi32>
  return %a, %b : i32, i32
}""")
    assert erased == 0


def test_loads_in_different_blocks_are_not_merged():
    _, erased = run_cse("""
func.func @f(%m: memref<4xi32>, %i: index) -> i32 {
  %a = memref.load %m[%i] : memref<4xi32>
  cf.br ^bb1
^bb1:
  %b = memref.load %m[%i] : memref<4xi32>
  %s = arith.addi %a, %b : i32
  return %s : i32
}""")
    assert erased == 0


def test_unreachable_blocks_are_simplified_on_their_own():
    module, erased = run_cse("""
func.func @f(%x: i32) -> i32 {
  %a = arith.muli %x, %x : i32
  return %a : i32
^bb1:
  %b = arith.muli %x, %x : i32
  %c = arith.muli %x, %x : i32
  return %c : i32
}""")
    assert erased == 1
    assert len(public_functions(module)) == 1


def test_scoped_table_and_keys():
    table = ScopedTable()
    table.push_scope()
    table.insert("k", 1)
    table.pop_scope()
    assert table.lookup("k") is None
    module = parse('func.func @f(%x: i32) { "test.op"(%x) : (i32) -> ()  return }')
    unknown = module.body.first_op.entry_block.first_op
    assert cse_key(unknown) is None

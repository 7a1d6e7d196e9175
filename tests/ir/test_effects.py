"""Memory effects (``tinycomp.ir.effects``): the table, checked on every op of the
corpus, and the alias questions passes ask."""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycomp.ir import Operation, parse
from tinycomp.ir.effects import (
    MemoryEffect,
    has_unknown_effects,
    is_pure,
    may_alias,
    may_read,
    may_write,
    memory_effects,
    underlying_buffer,
)
from tinycomp.ir.registry import lookup_op_class

CORPUS_FILES = sorted((Path(__file__).parent / "corpus").glob("*.mlir"))


def corpus_ops() -> list[tuple[str, Operation]]:
    ops = []
    for path in CORPUS_FILES:
        module = parse(path.read_text(), filename=path.name)
        ops += [(path.stem, op) for op in module.walk() if op is not module]
    return ops


CORPUS_OPS = corpus_ops()


def values_in_reach(op: Operation) -> set:
    """The operands and results of ``op`` and of the ops nested in it."""
    reach = set()
    for nested in op.walk():
        reach.update(nested.operands)
        reach.update(nested.results)
    return reach


def test_every_corpus_op_has_effects_on_its_own_values_only():
    assert len(CORPUS_OPS) > 500
    kinds = set()
    for file, op in CORPUS_OPS:
        effects = memory_effects(op)
        reach = values_in_reach(op)
        for effect in effects:
            assert isinstance(effect, MemoryEffect)
            kinds.add(effect.kind)
            assert effect.value is None or effect.value in reach, (file, op.name, str(effect))
    assert kinds == {"read", "write", "allocate", "free"}


def test_unknown_effects_come_exactly_from_calls_and_unregistered_ops():
    def opaque(op: Operation) -> bool:
        # MLIR declares no memory effects for a call or a global (``[Symbol]`` only)
        # nor for a kernel launch, a barrier, a subgroup reduce or an nvvm warp op (mlir-opt's
        # test-side-effects pass reports none of them as effect-free)
        opaque_ops = (
            "func.call",
            "memref.global",
            "gpu.launch_func",
            "gpu.barrier",
            "gpu.subgroup_reduce",
        )
        unregistered = lookup_op_class(op.name) is None
        return op.name in opaque_ops or op.name.startswith("nvvm.") or unregistered

    functions = 0
    for file, op in CORPUS_OPS:
        if op.name in ("func.func", "builtin.module", "gpu.module", "gpu.func"):
            functions += 1
            continue  # definitions: their bodies do not run where they stand
        expected = any(opaque(nested) for nested in op.walk())
        assert has_unknown_effects(op) == expected, (file, op.name)
    assert functions > 40


def test_ops_registered_as_pure_have_no_effects():
    checked = 0
    for file, op in CORPUS_OPS:
        op_class = lookup_op_class(op.name)
        if op_class is not None and op_class.is_pure:
            assert memory_effects(op) == [] and is_pure(op), (file, op.name)
            checked += 1
    assert checked > 200


def test_buffer_ops_in_the_corpus_have_their_table_entry():
    seen = set()
    for _, op in CORPUS_OPS:
        effects = [(e.kind, e.value) for e in memory_effects(op)]
        if op.name in ("memref.load", "affine.load"):
            assert effects == [("read", op.memref)]
        elif op.name in ("memref.store", "affine.store"):
            assert effects == [("write", op.memref)]
        elif op.name in ("memref.alloc", "memref.alloca"):
            assert effects == [("allocate", op.results[0])]
        elif op.name == "memref.dealloc":
            assert effects == [("free", op.operands[0])]
        elif op.name in ("memref.subview", "memref.cast", "memref.collapse_shape"):
            assert effects == []
        else:
            continue
        seen.add(op.name)
    assert {"memref.load", "memref.store", "memref.alloc", "memref.dealloc"} <= seen


MODULE = """
func.func @f(%A: memref<4x8xf32>, %B: memref<8xf32>, %C: memref<4xf32>, %t: tensor<4x8xf32>,
             %n: index, %v: f32) -> tensor<4xf32> {
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A : memref<4x8xf32>) outs(%C : memref<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }
  linalg.fill ins(%v : f32) outs(%B : memref<8xf32>)
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<4x8xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%a: f32, %c: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }  -> tensor<4xf32>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %B[%i] : memref<8xf32>
    memref.store %x, %C[%i] : memref<4xf32>
  }
  %tmp = memref.alloc() : memref<8xf32>
  %view = memref.subview %tmp[2] [4] [1]
      : memref<8xf32> to memref<4xf32, strided<[1], offset: 2>>
  "test.unknown"() : () -> ()
  return %r : tensor<4xf32>
}"""


@pytest.fixture
def ops() -> dict[str, Operation]:
    function = parse(MODULE).body.first_op
    found = {}
    for op in function.entry_block.ops:
        found.setdefault(op.name, op)
    found["reduction on tensors"] = function.entry_block.ops[3]
    return found


def test_linalg_on_memrefs_reads_ins_and_read_outs_and_writes_outs(ops):
    reduction = ops["linalg.generic"]
    A, C = reduction.operands
    assert [(e.kind, e.value) for e in memory_effects(reduction)] == [
        ("read", A),
        ("read", C),  # the payload reads the accumulator
        ("write", C),
    ]
    fill = ops["linalg.fill"]
    assert [(e.kind, e.value) for e in memory_effects(fill)] == [("write", fill.operands[1])]


def test_linalg_on_tensors_and_tensor_ops_are_pure(ops):
    assert is_pure(ops["reduction on tensors"]) and is_pure(ops["tensor.empty"])


def test_loops_have_the_effects_of_their_body(ops):
    loop = ops["scf.for"]
    load, store, _ = loop.body.ops
    assert [(e.kind, e.value) for e in memory_effects(loop)] == [
        ("read", load.memref),
        ("write", store.memref),
    ]
    assert not is_pure(loop)


def test_unknown_ops_may_read_and_write_anything(ops):
    unknown = ops["test.unknown"]
    assert has_unknown_effects(unknown)
    assert may_read(unknown, ops["memref.alloc"].result)
    assert may_write(unknown, ops["memref.alloc"].result)


def test_views_alias_their_buffer_and_fresh_allocations_alias_nothing_else(ops):
    alloc, view = ops["memref.alloc"], ops["memref.subview"]
    function = alloc.parent_op()
    A, B = function.arguments[:2]
    assert underlying_buffer(view.result) is alloc.result
    assert may_alias(view.result, alloc.result)
    assert not may_alias(view.result, A)
    assert may_alias(A, B)  # the caller may pass one array twice
    loop = ops["scf.for"]
    assert may_write(loop, function.arguments[2]) and not may_write(loop, view.result)
    assert may_read(loop, B) and not may_read(loop, alloc.result)
    assert may_read(loop, function.arguments[2])  # %C may be the caller's %B


def test_effects_print_the_buffer_name(ops):
    assert [str(e) for e in memory_effects(ops["memref.alloc"])] == ["allocate %tmp"]
    assert str(MemoryEffect("write", None)) == "write <any memory>"

"""Liveness, ``buffer-reuse``, ``buffer-deallocation`` and the report, on examples
whose numbers are worked out by hand in the comments."""

from __future__ import annotations

import numpy as np

from tinycomp.frontend import TensorSpec, softmax, trace
from tinycomp.interp import interpret, run_bufferized
from tinycomp.ir import parse
from tinycomp.passes import PassManager
from tinycomp.passes.bufferize import (
    BufferDeallocationPass,
    BufferReusePass,
    LiveInterval,
    OneShotBufferizePass,
    bufferization_passes,
    insert_deallocations,
    reuse_buffers,
)

from .cases import HAND_WRITTEN, ID1

CHAIN = f"""
func.func @main(%x: tensor<16xf32>) -> tensor<16xf32> {{
  %two = arith.constant 2.0 : f32
  %one = arith.constant 1.0 : f32
  %e0 = tensor.empty() : tensor<16xf32>
  %a = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<16xf32>) outs(%e0 : tensor<16xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  }} -> tensor<16xf32>
  %e1 = tensor.empty() : tensor<16xf32>
  %b = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%a : tensor<16xf32>) outs(%e1 : tensor<16xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %two : f32
    linalg.yield %v : f32
  }} -> tensor<16xf32>
  %e2 = tensor.empty() : tensor<16xf32>
  %c = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%b : tensor<16xf32>) outs(%e2 : tensor<16xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %one : f32
    linalg.yield %v : f32
  }} -> tensor<16xf32>
  %e3 = tensor.empty() : tensor<16xf32>
  %d = linalg.generic {{indexing_maps = [{ID1}, {ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%c, %x : tensor<16xf32>, tensor<16xf32>) outs(%e3 : tensor<16xf32>) {{
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %v = arith.subf %in, %in2 : f32
    linalg.yield %v : f32
  }} -> tensor<16xf32>
  return %d : tensor<16xf32>
}}"""
"""Op indices after bufferization (payloads and deallocs not counted):
1 %two, 2 %one, 3 alloc a, 4 generic a, 5 alloc b, 6 generic b (reads a),
7 alloc c, 8 generic c (reads b), 9 generic d (reads c, writes the out-param),
10 return. Each buffer is 16 x 4 = 64 bytes."""


def test_hand_computed_liveness_and_peak_bytes():
    module = parse(CHAIN)
    passes = bufferization_passes()
    bufferize, reuse, dealloc = passes
    bufferize.run(module)
    report = bufferize.report
    assert report.liveness == [
        LiveInterval("%alloc", 3, 6, 64),  # a: allocated at 3, last read by b at 6
        LiveInterval("%alloc_0", 5, 8, 64),  # b: 5 to c at 8
        LiveInterval("%alloc_1", 7, 9, 64),  # c: 7 to d at 9 (d went to the out-param)
    ]
    # Nothing is freed yet: all three are held from their alloc to the return (10);
    # at 7..10 all three are allocated: 3 x 64.
    assert report.peak_bytes == {"one-shot-bufferize": 192}
    reuse.run(module)
    # c starts at 7, after a's last use at 6: c takes a's memory. b overlaps both.
    assert report.reuse == [("%alloc_1", "%alloc")]
    # One alloc fewer, so the indices shift down by one from op 7 on.
    assert report.liveness == [
        LiveInterval("%alloc", 3, 8, 64),
        LiveInterval("%alloc_0", 5, 7, 64),
    ]
    assert report.peak_bytes["buffer-reuse"] == 128
    dealloc.run(module)
    assert [a.held for a in report.allocations] == [(3, 8), (5, 7)]
    assert report.peak_bytes["buffer-deallocation"] == 128
    x = np.random.default_rng(0).standard_normal(16).astype(np.float32)
    np.testing.assert_array_equal(run_bufferized(module, x), interpret(CHAIN, x))


def test_the_report_prints_as_a_table():
    module = parse(CHAIN)
    passes = bufferization_passes()
    PassManager(passes).run(module)
    assert str(passes[0].report) == "\n".join(
        [
            "bufferization report",
            "  in-place decisions (4 in place, 0 copies):",
            "    'linalg.generic' at line 27, %e3: in place: no later read of %e3",
            "    'linalg.generic' at line 20, %e2: in place: no later read of %e2",
            "    'linalg.generic' at line 13, %e1: in place: no later read of %e1",
            "    'linalg.generic' at line 6, %e0: in place: no later read of %e0",
            "  allocations:",
            "    %alloc: memref<16xf32>, 64 bytes  (tensor.empty %e0)",
            "    %alloc_0: memref<16xf32>, 64 bytes  (tensor.empty %e1)",
            "  buffers (op index = position in the function, deallocs not counted):",
            "    buffer    bytes  live      held",
            "    %alloc       64  3..8      3..8",
            "    %alloc_0     64  5..7      5..7",
            "  %alloc_1 reuses the memory of %alloc",
            "  peak bytes: 192 after one-shot-bufferize, 128 after buffer-reuse, "
            "128 after buffer-deallocation",
        ]
    )


def test_reuse_trades_peak_for_fewer_allocations_when_freeing_too():
    """Softmax 3x8: the row max and sum are 3x1 (12 bytes), sub and exp 3x8 (96 bytes
    each). Freed after its last use, max is gone when exp is computed: the peak is
    sub + exp = 192. Reuse gives sum the memory of max, which is then held through
    exp: 192 + 12 = 204. Reuse saves an allocation; freeing saves bytes."""
    traced = trace(softmax, TensorSpec((3, 8)))
    freed_only = parse(str(traced))
    only = bufferization_passes(reuse=False)
    PassManager(only).run(freed_only)
    assert only[0].report.peak_bytes == {
        "one-shot-bufferize": 12 + 96 + 96 + 12,
        "buffer-deallocation": 96 + 96,
    }
    both = bufferization_passes()
    PassManager(both).run(traced)
    assert both[0].report.peak_bytes == {
        "one-shot-bufferize": 216,
        "buffer-reuse": 204,
        "buffer-deallocation": 204,
    }


def test_reuse_needs_the_same_type_and_disjoint_live_ranges():
    module = parse("""
    func.func @f(%x: memref<8xf32>, %y: memref<4xf32>, %out: memref<8xf32>) {
      %a = memref.alloc() : memref<8xf32>
      memref.copy %x, %a : memref<8xf32> to memref<8xf32>
      %small = memref.alloc() : memref<4xf32>
      memref.copy %y, %small : memref<4xf32> to memref<4xf32>
      %b = memref.alloc() : memref<8xf32>
      memref.copy %a, %b : memref<8xf32> to memref<8xf32>
      %c = memref.alloc() : memref<8xf32>
      memref.copy %b, %c : memref<8xf32> to memref<8xf32>
      memref.copy %c, %out : memref<8xf32> to memref<8xf32>
      return
    }""")
    # %small: another type. %b overlaps %a (copies from it). %c starts after %a died.
    assert reuse_buffers(module) == [("%c", "%a")]
    assert [op.name for op in module.walk()].count("memref.alloc") == 3


def test_deallocs_go_after_the_last_use_inside_loops_too():
    module = parse(HAND_WRITTEN["tile computed elsewhere, copied in"])
    OneShotBufferizePass().run(module)
    counts = insert_deallocations(module)
    assert counts == {"deallocs inserted": 1, "not freed: escapes its block": 0}
    loop = next(op for op in module.walk() if op.name == "scf.for")
    assert [op.name for op in loop.body.ops][-3:] == [
        "memref.copy",
        "memref.dealloc",
        "scf.yield",
    ]
    assert insert_deallocations(module)["deallocs inserted"] == 0  # already freed


def test_a_buffer_used_inside_a_loop_lives_until_the_loop_ends():
    module = parse(HAND_WRITTEN["loop reads its init"])
    OneShotBufferizePass().run(module)
    deallocation = BufferDeallocationPass()
    deallocation.run(module)
    body = module.body.first_op.entry_block
    names = [op.name for op in body.ops]
    assert names.index("memref.dealloc") == names.index("scf.for") + 1
    assert dict(deallocation.statistics) == {"deallocs inserted": 1}


def test_escaping_buffers_are_not_freed_or_shared():
    module = parse("""
    func.func @f(%x: memref<4xf32>) -> memref<4xf32> {
      %a = memref.alloc() : memref<4xf32>
      memref.copy %x, %a : memref<4xf32> to memref<4xf32>
      %b = memref.alloc() : memref<4xf32>
      memref.copy %x, %b : memref<4xf32> to memref<4xf32>
      return %b : memref<4xf32>
    }""")
    reuse = BufferReusePass()
    reuse.run(module)
    assert reuse.report.reuse == []
    assert insert_deallocations(module) == {
        "deallocs inserted": 1,
        "not freed: escapes its block": 1,
    }


def test_a_buffer_passed_to_a_loop_as_iter_arg_is_left_alone():
    """Its memory flows on through the loop's result, which liveness does not follow."""
    module = parse("""
    func.func @f(%n: index, %out: memref<4xf32>) {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %a = memref.alloc() : memref<4xf32>
      %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %a) -> (memref<4xf32>) {
        scf.yield %b : memref<4xf32>
      }
      memref.copy %r, %out : memref<4xf32> to memref<4xf32>
      return
    }""")
    assert insert_deallocations(module) == {
        "deallocs inserted": 0,
        "not freed: escapes its block": 1,
    }

"""The register estimate on small kernels whose live sets are counted by hand in comments.

Sizes (registers.py): index 1 (32-bit index arithmetic), f32/i32 1, i1 0, constants 0,
global memref 2, vector<4xf32> 4, a private memref<8xf32> 8 for the whole kernel. The count
at an op is what is live after it plus its results; an operand whose last use is the op is
not counted there.
"""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp.ir import parse
from tinycomp.ir.types import FloatType, IndexType, IntegerType, MemRefType, VectorType, f32
from tinycomp.targets.gpu_sim.registers import OVERHEAD, estimate_registers, value_registers

SAXPY = """gpu.module @kernels {
  gpu.func @saxpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>, %n: i32) kernel {
    %tx = gpu.thread_id  x
    %bx = gpu.block_id  x
    %bd = gpu.block_dim  x
    %t = arith.muli %bx, %bd : index
    %i = arith.addi %t, %tx : index
    %nn = arith.index_cast %n : i32 to index
    %in = arith.cmpi slt, %i, %nn : index
    scf.if %in {
      %xv = memref.load %x[%i] : memref<?xf32>
      %yv = memref.load %y[%i] : memref<?xf32>
      %p = arith.mulf %a, %xv : f32
      %r = arith.addf %p, %yv : f32
      memref.store %r, %y[%i] : memref<?xf32>
    }
    gpu.return
  }
}"""


def kernel(text: str):
    return parse(text).body.first_op.body.first_op


def test_saxpy_by_hand():
    estimate = estimate_registers(kernel(SAXPY))
    # live-in: a 1 + x 2 + y 2 + n 1 = 6
    # tx: 6+1 = 7; bx: 8; bd: 9 (the peak); muli (bx, bd die): 6 + tx 1 + t 1 = 8
    # addi (t, tx die): 6 + i 1 = 7; index_cast (n dies): 5 + i 1 + nn 1 = 7
    # cmpi (nn dies, i1 free): 6; scf.if: 6; load x (x dies): a 1 + y 2 + i 1 + xv 1 = 5
    # load y: 6; mulf (a, xv die): y 2 + i 1 + yv 1 + p 1 = 5; addf: y 2 + i 1 + r 1 = 4
    # store: 0, yield 0, return 0
    assert [p.live for p in estimate.timeline] == [7, 8, 9, 8, 7, 7, 6, 6, 5, 6, 5, 4, 0, 0, 0]
    assert estimate.peak_live == 9
    assert estimate.peak_op == "gpu.block_dim"
    assert estimate.peak_line == 5  # the text's line of %bd
    assert estimate.overhead == OVERHEAD == 2
    assert estimate.registers == 12  # 9 + 2 = 11, rounded up to even
    assert estimate.spilled == 0
    assert [p.depth for p in estimate.timeline][7:10] == [0, 1, 1]
    assert "12 registers" in str(estimate) and "gpu.block_dim" in str(estimate)


def accumulators_kernel(count: int) -> str:
    args = ", ".join(f"%s{i} = %z" for i in range(count))
    adds = "\n".join(f"      %t{i} = arith.addf %s{i}, %v : f32" for i in range(count))
    yields = ", ".join(f"%t{i}" for i in range(count))
    types = ", ".join(["f32"] * count)
    sums = [f"%r#{0}"]
    lines = []
    for i in range(1, count):
        lines.append(f"    %u{i} = arith.addf {sums[-1]}, %r#{i} : f32")
        sums.append(f"%u{i}")
    reduce = "\n".join(lines)
    return f"""gpu.module @kernels {{
  gpu.func @acc(%a: memref<?xf32>, %out: memref<?xf32>, %n: index) kernel {{
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %z = arith.constant 0.0 : f32
    %tx = gpu.thread_id  x
    %r:{count} = scf.for %k = %c0 to %n step %c1 iter_args({args}) -> ({types}) {{
      %v = memref.load %a[%k] : memref<?xf32>
{adds}
      scf.yield {yields} : {types}
    }}
{reduce}
    memref.store {sums[-1]}, %out[%tx] : memref<?xf32>
    gpu.return
  }}
}}"""


def test_loop_with_eight_accumulators_by_hand():
    estimate = estimate_registers(kernel(accumulators_kernel(8)))
    live = [p.live for p in estimate.timeline]
    # constants take none; live-in a 2 + out 2 + n 1 = 5; tx: 6
    assert live[:4] == [5, 5, 5, 6]
    # scf.for (n dies): a 2 + out 2 + tx 1 + k 1 + 8 iter_args = 14
    # load: + v 1 = 15 (a stays live to the loop's end: every iteration reads it)
    # each addf's result shares its iter_arg's register; v dies at the last addf: 14
    assert live[4:14] == [14, 15, 15, 15, 15, 15, 15, 15, 15, 14]
    assert live[14] == 14  # the yield: the iter_args are live to the end of the loop
    # after the loop: out 2 + tx 1 + results; the first add frees r#0, r#1: 3 + 6 + 1 = 10
    assert live[15] == 10
    assert estimate.peak_live == 15 and estimate.peak_op == "memref.load"
    assert estimate.registers == 18  # 15 + 2 = 17, rounded up to even


def test_random_accumulator_counts_follow_the_formula():
    rng = np.random.default_rng(7)
    for count in rng.integers(2, 40, size=5):
        estimate = estimate_registers(kernel(accumulators_kernel(int(count))))
        # in the loop: a, out, tx, k (6) + count iter_args + v
        assert estimate.peak_live == 6 + int(count) + 1
        wanted = estimate.peak_live + 2
        assert estimate.registers == min(255, wanted + wanted % 2)


def test_value_defined_outside_two_loops_stays_live_through_the_outer():
    text = """gpu.module @kernels {
  gpu.func @nest(%a: memref<?xf32>, %n: index) kernel {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %s = arith.constant 2.0 : f32
    %tx = gpu.thread_id  x
    %scale = memref.load %a[%tx] : memref<?xf32>
    scf.for %i = %c0 to %n step %c1 {
      %w = memref.load %a[%i] : memref<?xf32>
      scf.for %j = %c0 to %n step %c1 {
        %q = arith.mulf %scale, %s : f32
        memref.store %q, %a[%j] : memref<?xf32>
      }
    }
    gpu.return
  }
}"""
    estimate = estimate_registers(kernel(text))
    live = {(p.op, i): p.live for i, p in enumerate(estimate.timeline)}
    # load %scale (tx dies): a 2 + n 1 + scale 1 = 4
    assert live[("memref.load", 4)] == 4
    # outer for: a 2 + n 1 + scale 1 + i 1 = 5; %w (unused) adds 1 at its load only
    assert live[("scf.for", 5)] == 5 and live[("memref.load", 6)] == 6
    # inner for: + j 1 = 6; mulf: + q 1 = 7; %scale is still live after its last use
    # (the loops run it again), as are a and n
    assert live[("scf.for", 7)] == 6 and live[("arith.mulf", 8)] == 7
    assert live[("memref.store", 9)] == 6
    assert estimate.timeline[-1].live == 0  # gpu.return


def test_vectors_private_arrays_and_predicates():
    text = """gpu.module @kernels {
  gpu.func @tile(%a: memref<?x?xf32>, %flag: i1, %big: i64)
      private(%acc: memref<8xf32, #gpu.address_space<private>>) kernel {
    %c0 = arith.constant 0 : index
    %v = vector.load %a[%c0, %c0] : memref<?x?xf32>, vector<4xf32>
    %e = vector.extract %v[2] : f32 from vector<4xf32>
    memref.store %e, %acc[%c0] : memref<8xf32, #gpu.address_space<private>>
    gpu.return
  }
}"""
    live = [p.live for p in estimate_registers(kernel(text)).timeline]
    # live-in: a 2 + flag 0 (a predicate) + big 2 (unused: dies at once) ... big has no
    # use, so it is counted nowhere; acc 8 everywhere
    # constant: a 2 + acc 8 = 10; vector.load (a dies): v 4 + acc 8 = 12
    # extract (v dies): e 1 + 8 = 9; store: 8; return: 8
    assert live == [10, 12, 9, 8, 8]


def test_value_sizes():
    assert value_registers(IndexType()) == 1  # 32-bit, as CUDA C's int indices
    assert value_registers(IntegerType(64)) == 2
    assert value_registers(IntegerType(32)) == 1
    assert value_registers(IntegerType(1)) == 0
    assert value_registers(FloatType("f16")) == 1  # half a register, counted as one
    assert value_registers(FloatType("bf16")) == 1
    assert value_registers(FloatType("f64")) == 2
    assert value_registers(VectorType((4,), f32)) == 4
    assert value_registers(VectorType((8,), FloatType("f16"))) == 8
    assert value_registers(MemRefType((None,), f32)) == 2


def test_large_private_array_spills():
    text = """gpu.module @kernels {
  gpu.func @huge(%out: memref<?xf32>)
      private(%acc: memref<300xf32, #gpu.address_space<private>>) kernel {
    %tx = gpu.thread_id  x
    %v = memref.load %acc[%tx] : memref<300xf32, #gpu.address_space<private>>
    memref.store %v, %out[%tx] : memref<?xf32>
    gpu.return
  }
}"""
    estimate = estimate_registers(kernel(text))
    # thread_id: out 2 + tx 1 + acc 300 = 303; load: + v 1 = 304
    assert estimate.peak_live == 304 and estimate.peak_op == "memref.load"
    assert estimate.registers == 255
    assert estimate.spilled == 304 + 2 - 255
    assert "51 spilled" in str(estimate)


def test_a_module_is_refused_with_its_kernels_named():
    with pytest.raises(TypeError, match=r"got 'builtin.module' \(the gpu.funcs inside it: @saxpy"):
        estimate_registers(parse(SAXPY))

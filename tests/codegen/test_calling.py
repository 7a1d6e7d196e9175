"""Calls from Python into native code: the call plan kept per signature stays correct.

A ``CpuFunction`` checks the arguments of the first call with a given signature (the
shape, dtype and strides of every array) and keeps the result as a plan; later calls
with the same signature skip those checks. These tests check that nothing a call can
change slips through: the data, a dtype, rank or shape that makes a new signature,
strides that need a copy, an out-param that is read-only or overlaps an input, a
scalar that does not fit, and calls from two threads at once.
"""

from __future__ import annotations

import threading

import ml_dtypes
import numpy as np
import pytest

from tinycomp.codegen import CodegenError
from tinycomp.codegen.cpu import jit
from tinycomp.codegen.cpu.call_plan import data_pointer

AXPY = """func.func @axpy(%x: memref<?xf32>, %y: memref<?xf32>, %a: f32,
    %out: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %xv = memref.load %x[%i] : memref<?xf32>
    %yv = memref.load %y[%i] : memref<?xf32>
    %p = arith.mulf %xv, %a : f32
    %s = arith.addf %p, %yv : f32
    memref.store %s, %out[%i] : memref<?xf32>
  }
  return
}

func.func @corner(%m: memref<3x4xf64>, %k: i64) -> f64 {
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %v = memref.load %m[%c2, %c3] : memref<3x4xf64>
  %kf = arith.sitofp %k : i64 to f64
  %r = arith.addf %v, %kf : f64
  return %r : f64
}"""


@pytest.fixture(scope="module")
def module():
    return jit(AXPY, opt_level=2)


def random(rng, *shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def test_repeated_calls_with_one_signature_compute_on_each_calls_data(module):
    rng = np.random.default_rng(0)
    axpy = module["axpy"]
    for _ in range(5):
        x, y = random(rng, 37), random(rng, 37)
        a = np.float32(rng.standard_normal())
        out = np.full(37, np.nan, np.float32)
        axpy(x, y, a, out)
        np.testing.assert_allclose(out, x * a + y, rtol=1e-6)
    assert len(axpy._plans) == 1  # one signature, one plan


def test_new_shapes_make_new_plans_and_scalar_results_are_read_back(module):
    rng = np.random.default_rng(1)
    axpy = module["axpy"]
    for n in (1, 8, 1000):
        x, y = random(rng, n), random(rng, n)
        np.testing.assert_allclose(axpy.run(x, y, 2.0, output_shapes=[(n,)]), 2 * x + y, rtol=1e-6)
    corner = module["corner"]
    m = random(rng, 3, 4, dtype=np.float64)
    assert corner(m, 5) == m[2, 3] + 5
    assert corner(m, -7) == m[2, 3] - 7


@pytest.mark.parametrize(
    ("bad", "expected"),
    [
        (np.zeros(8, np.float64), r"argument #0 \(%x: memref<\?xf32>\) of @axpy: expected dtype "
                                  r"float32, got float64"),
        (np.zeros((2, 4), np.float32), r"argument #0 .*expected 1 dimensions, got shape \(2, 4\)"),
        ([0.0] * 8, r"argument #0 .*expected a numpy array, got list"),
    ],
)  # fmt: skip
def test_a_wrong_array_after_a_good_call_is_still_refused(module, bad, expected):
    axpy = module["axpy"]
    good = np.zeros(8, np.float32)
    axpy(good, good, 1.0, np.zeros(8, np.float32))
    with pytest.raises(CodegenError, match=expected):
        axpy(bad, good, 1.0, np.zeros(8, np.float32))


def test_a_wrong_static_size_is_refused_on_every_call(module):
    corner = module["corner"]
    corner(np.zeros((3, 4)), 1)
    for _ in range(2):
        with pytest.raises(CodegenError, match=r"expected size 4 in dimension 1, got shape"):
            corner(np.zeros((3, 5)), 1)


def test_a_strided_input_is_copied_and_a_strided_out_param_refused(module):
    rng = np.random.default_rng(2)
    axpy = module["axpy"]
    x, y = random(rng, 40)[::2], random(rng, 20)
    assert not x.flags.c_contiguous
    for _ in range(2):  # the first call makes the plan, the second uses it
        out = np.full(20, np.nan, np.float32)
        axpy(x, y, 3.0, out)
        np.testing.assert_allclose(out, 3 * x + y, rtol=1e-6)
    strided_out = np.zeros(40, np.float32)[::2]
    with pytest.raises(CodegenError, match=r"argument #3 \(%out: .*assumes element strides \[1\]"):
        axpy(y, y, 1.0, strided_out)


def test_per_call_checks_hold_on_a_known_signature(module):
    axpy = module["axpy"]
    x, out = np.ones(8, np.float32), np.zeros(8, np.float32)
    axpy(x, x, 1.0, out)
    read_only = np.zeros(8, np.float32)
    read_only.flags.writeable = False
    with pytest.raises(CodegenError, match=r"argument #3 .*writable array for an out-param"):
        axpy(x, x, 1.0, read_only)
    with pytest.raises(CodegenError, match=r"argument #3 .*must not share memory with argument #0"):
        axpy(out, x, 1.0, out)
    overlapping = np.zeros(12, np.float32)
    with pytest.raises(CodegenError, match=r"argument #3 .*must not share memory with argument #1"):
        axpy(x, overlapping[4:], 1.0, overlapping[:8])
    with pytest.raises(CodegenError, match=r"argument #2 \(%a: f32\) .*expected a number, got str"):
        axpy(x, x, "2", out)
    apart = np.zeros(16, np.float32)
    axpy(x, x, 2.0, apart[8:])  # neighbours, not overlapping
    np.testing.assert_array_equal(apart[8:], np.full(8, 3.0, np.float32))
    assert module["corner"](np.zeros((3, 4)), 2**62) == 2.0**62
    assert module["corner"](np.zeros((3, 4)), 2**64 - 1) == -1.0  # the bits of -1
    with pytest.raises(CodegenError, match=r"argument #1 \(%k: i64\) .*does not fit in i64"):
        module["corner"](np.zeros((3, 4)), 2**64)


def test_calls_from_two_threads_at_once_do_not_mix_their_arguments(module):
    axpy = module["axpy"]
    rng = np.random.default_rng(3)
    inputs = [(random(rng, 4096), random(rng, 4096), float(k + 2)) for k in range(2)]
    failures = []

    def work(x, y, a):
        for _ in range(200):
            out = np.empty(4096, np.float32)
            axpy(x, y, a, out)
            if not np.allclose(out, np.float32(a) * x + y, rtol=1e-6):
                failures.append(a)

    threads = [threading.Thread(target=work, args=item) for item in inputs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []


def test_data_pointer_reads_what_numpy_reports():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    arrays = [base, base[1:, 2:], base.T, np.zeros(0), np.ones(3, ml_dtypes.bfloat16)]
    assert [data_pointer(a) for a in arrays] == [a.ctypes.data for a in arrays]


def test_a_misaligned_array_is_refused_even_on_a_known_signature(module):
    axpy = module["axpy"]
    x = np.ones(8, np.float32)
    axpy(x, x, 1.0, np.zeros(8, np.float32))
    misaligned = np.frombuffer(bytearray(33), np.float32, count=8, offset=1)
    assert not misaligned.flags.aligned and misaligned.strides == x.strides
    with pytest.raises(CodegenError, match=r"argument #0 \(%x: memref<\?xf32>\) of @axpy: the "):
        axpy(misaligned, x, 1.0, np.zeros(8, np.float32))

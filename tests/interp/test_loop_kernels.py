"""The same kernels written as scf/affine loops with loads and stores, against numpy."""

from __future__ import annotations

import numpy as np

from interp import kernels
from interp.helpers import run

SCF_MATMUL = """
func.func @main(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %M = arith.constant {m} : index
  %N = arith.constant {n} : index
  %K = arith.constant {k} : index
  scf.for %i = %c0 to %M step %c1 {{
    scf.for %j = %c0 to %N step %c1 {{
      %init = memref.load %C[%i, %j] : memref<{m}x{n}xf32>
      %sum = scf.for %p = %c0 to %K step %c1 iter_args(%acc = %init) -> (f32) {{
        %a = memref.load %A[%i, %p] : memref<{m}x{k}xf32>
        %b = memref.load %B[%p, %j] : memref<{k}x{n}xf32>
        %prod = arith.mulf %a, %b : f32
        %next = arith.addf %acc, %prod : f32
        scf.yield %next : f32
      }}
      memref.store %sum, %C[%i, %j] : memref<{m}x{n}xf32>
    }}
  }}
  return
}}"""


def test_scf_matmul_matches_the_linalg_one_bit_for_bit():
    m, n, k = 7, 5, 9
    rng = np.random.default_rng(20)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    c = rng.standard_normal((m, n)).astype(np.float32)
    loops_c, linalg_c = c.copy(), c.copy()
    run(SCF_MATMUL.format(m=m, n=n, k=k), a, b, loops_c)
    run(kernels.matmul_memrefs(m, n, k), a, b, linalg_c)
    np.testing.assert_array_equal(loops_c, linalg_c)
    np.testing.assert_allclose(loops_c, c + a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)


AFFINE_CONV = """
func.func @main(%I: memref<1x{h}x{w}x{c}xf32>, %K: memref<3x3x{c}x{f}xf32>,
                %O: memref<1x{oh}x{ow}x{f}xf32>) {{
  affine.for %y = 0 to {oh} {{
    affine.for %x = 0 to {ow} {{
      affine.for %o = 0 to {f} {{
        affine.for %ky = 0 to 3 {{
          affine.for %kx = 0 to 3 {{
            affine.for %ch = 0 to {c} {{
              %in = affine.load %I[0, %y * 2 + %ky, %x * 2 + %kx, %ch] : memref<1x{h}x{w}x{c}xf32>
              %wt = affine.load %K[%ky, %kx, %ch, %o] : memref<3x3x{c}x{f}xf32>
              %acc = affine.load %O[0, %y, %x, %o] : memref<1x{oh}x{ow}x{f}xf32>
              %p = arith.mulf %in, %wt : f32
              %s = arith.addf %acc, %p : f32
              affine.store %s, %O[0, %y, %x, %o] : memref<1x{oh}x{ow}x{f}xf32>
            }}
          }}
        }}
      }}
    }}
  }}
  return
}}"""


def test_affine_conv2d_stride_2_matches_numpy_and_linalg():
    h, w, c, f = 9, 7, 2, 3
    oh, ow = (h - 3) // 2 + 1, (w - 3) // 2 + 1
    rng = np.random.default_rng(21)
    image = rng.standard_normal((1, h, w, c)).astype(np.float32)
    kernel = rng.standard_normal((3, 3, c, f)).astype(np.float32)
    out = rng.standard_normal((1, oh, ow, f)).astype(np.float32)
    loops_out = out.copy()
    run(AFFINE_CONV.format(h=h, w=w, c=c, f=f, oh=oh, ow=ow), image, kernel, loops_out)
    expected = out + kernels.conv_reference(image, kernel, 2)
    np.testing.assert_allclose(loops_out, expected, rtol=1e-5, atol=1e-5)
    linalg_out = out.copy()
    run(kernels.conv_memrefs(image.shape, kernel.shape, out.shape, 2), image, kernel, linalg_out)
    np.testing.assert_array_equal(loops_out, linalg_out)  # the same loop order


SCF_SOFTMAX = """
func.func @main(%X: memref<{r}x{n}xf32>, %Y: memref<{r}x{n}xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %R = arith.constant {r} : index
  %N = arith.constant {n} : index
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  scf.for %i = %c0 to %R step %c1 {{
    %max = scf.for %j = %c0 to %N step %c1 iter_args(%m = %lowest) -> (f32) {{
      %x = memref.load %X[%i, %j] : memref<{r}x{n}xf32>
      %m2 = arith.maximumf %m, %x : f32
      scf.yield %m2 : f32
    }}
    %sum = scf.for %j = %c0 to %N step %c1 iter_args(%s = %zero) -> (f32) {{
      %x = memref.load %X[%i, %j] : memref<{r}x{n}xf32>
      %d = arith.subf %x, %max : f32
      %e = math.exp %d : f32
      memref.store %e, %Y[%i, %j] : memref<{r}x{n}xf32>
      %s2 = arith.addf %s, %e : f32
      scf.yield %s2 : f32
    }}
    scf.for %j = %c0 to %N step %c1 {{
      %e = memref.load %Y[%i, %j] : memref<{r}x{n}xf32>
      %y = arith.divf %e, %sum : f32
      memref.store %y, %Y[%i, %j] : memref<{r}x{n}xf32>
    }}
  }}
  return
}}"""


def test_scf_softmax_matches_numpy_and_linalg():
    rows, cols = 4, 13
    x = (np.random.default_rng(22).standard_normal((rows, cols)) * 3).astype(np.float32)
    loops_y = np.zeros((rows, cols), np.float32)
    run(SCF_SOFTMAX.format(r=rows, n=cols), x, loops_y)
    np.testing.assert_allclose(loops_y, kernels.softmax_reference(x), rtol=1e-5, atol=1e-7)
    linalg_y = np.zeros((rows, cols), np.float32)
    run(kernels.softmax_memrefs(rows, cols), x, linalg_y)
    np.testing.assert_array_equal(loops_y, linalg_y)


AFFINE_LAYERNORM = """
func.func @main(%X: memref<{r}x{n}xf32>, %G: memref<{n}xf32>, %B: memref<{n}xf32>,
                %Y: memref<{r}x{n}xf32>) {{
  %zero = arith.constant 0.0 : f32
  %count = arith.constant {n}.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  affine.for %i = 0 to {r} {{
    %sum = affine.for %j = 0 to {n} iter_args(%s = %zero) -> (f32) {{
      %x = affine.load %X[%i, %j] : memref<{r}x{n}xf32>
      %s2 = arith.addf %s, %x : f32
      affine.yield %s2 : f32
    }}
    %mean = arith.divf %sum, %count : f32
    %sq = affine.for %j = 0 to {n} iter_args(%s = %zero) -> (f32) {{
      %x = affine.load %X[%i, %j] : memref<{r}x{n}xf32>
      %d = arith.subf %x, %mean : f32
      %d2 = arith.mulf %d, %d : f32
      %s2 = arith.addf %s, %d2 : f32
      affine.yield %s2 : f32
    }}
    %var = arith.divf %sq, %count : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    affine.for %j = 0 to {n} {{
      %x = affine.load %X[%i, %j] : memref<{r}x{n}xf32>
      %g = affine.load %G[%j] : memref<{n}xf32>
      %b = affine.load %B[%j] : memref<{n}xf32>
      %d = arith.subf %x, %mean : f32
      %nd = arith.mulf %d, %inv : f32
      %sc = arith.mulf %nd, %g : f32
      %y = arith.addf %sc, %b : f32
      affine.store %y, %Y[%i, %j] : memref<{r}x{n}xf32>
    }}
  }}
  return
}}"""


def test_affine_layernorm_matches_numpy_and_linalg():
    rows, cols = 3, 20
    rng = np.random.default_rng(23)
    x = (rng.standard_normal((rows, cols)) * 2 + 1).astype(np.float32)
    gamma, beta = (
        rng.standard_normal(cols).astype(np.float32),
        rng.standard_normal(cols).astype(np.float32),
    )
    loops_y = np.zeros((rows, cols), np.float32)
    run(AFFINE_LAYERNORM.format(r=rows, n=cols), x, gamma, beta, loops_y)
    np.testing.assert_allclose(
        loops_y, kernels.layernorm_reference(x, gamma, beta), rtol=5e-6, atol=5e-6
    )
    linalg_y = np.zeros((rows, cols), np.float32)
    run(kernels.layernorm_memrefs(rows, cols), x, gamma, beta, linalg_y)
    np.testing.assert_array_equal(loops_y, linalg_y)


def test_affine_bounds_apply_min_max_and_if():
    text = """
    func.func @main(%n: index, %M: memref<10xi32>) {
      %one = arith.constant 1 : i32
      affine.for %i = max affine_map<(d0) -> (d0 - 4, 0)>(%n)
                   to min affine_map<(d0) -> (d0 + 3, 10)>(%n) step 2 {
        affine.if affine_set<(d0) : (d0 - 5 >= 0)>(%i) {
          affine.store %one, %M[%i] : memref<10xi32>
        } else {
          %k = affine.apply affine_map<(d0) -> (d0 * 10)>(%i)
          %lo = affine.min affine_map<(d0) -> (d0, 7)>(%k)
          %v = arith.index_cast %lo : index to i32
          affine.store %v, %M[%i] : memref<10xi32>
        }
      }
      return
    }"""
    for n in [0, 3, 6, 9]:
        m = np.full(10, -1, np.int32)
        run(text, np.int64(n), m)
        expected = np.full(10, -1, np.int32)
        for i in range(max(n - 4, 0), min(n + 3, 10), 2):
            expected[i] = 1 if i >= 5 else min(10 * i, 7)
        np.testing.assert_array_equal(m, expected)


def test_affine_index_arithmetic_rounds_like_mlir():
    text = """
    func.func @main(%a: index, %b: index) -> (index, index, index, index, index) {
      %f = affine.apply affine_map<(d0) -> (d0 floordiv 4)>(%a)
      %c = affine.apply affine_map<(d0) -> (d0 ceildiv 4)>(%a)
      %m = affine.apply affine_map<(d0) -> (d0 mod 4)>(%a)
      %s = affine.apply affine_map<(d0)[s0] -> (d0 * 3 + s0)>(%a)[%b]
      %x = affine.max affine_map<(d0)[s0] -> (d0, s0, 2)>(%a)[%b]
      return %f, %c, %m, %s, %x : index, index, index, index, index
    }"""
    for a, b in [(-7, 3), (9, -2), (0, 5)]:
        got = [int(v) for v in run(text, np.int64(a), np.int64(b))]
        assert got == [a // 4, -(-a // 4), a % 4, 3 * a + b, max(a, b, 2)]

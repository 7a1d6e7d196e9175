"""The course's reference kernels as MLIR text (linalg.generic on tensors or memrefs, and
loops), plus numpy references. Shared by the linalg, loop and real-MLIR tests."""

from __future__ import annotations

import numpy as np

MATMUL_MAPS = """
#mm_a = affine_map<(i, j, k) -> (i, k)>
#mm_b = affine_map<(i, j, k) -> (k, j)>
#mm_c = affine_map<(i, j, k) -> (i, j)>
"""


def matmul_tensors(m: int, n: int, k: int, t: str = "f32") -> str:
    """``C = A @ B`` on tensors: ``linalg.fill`` of zero, then a generic contraction."""
    return (
        MATMUL_MAPS
        + f"""
func.func @main(%A: tensor<{m}x{k}x{t}>, %B: tensor<{k}x{n}x{t}>) -> tensor<{m}x{n}x{t}> {{
  %zero = arith.constant 0.0 : {t}
  %empty = tensor.empty() : tensor<{m}x{n}x{t}>
  %C = linalg.fill ins(%zero : {t}) outs(%empty : tensor<{m}x{n}x{t}>) -> tensor<{m}x{n}x{t}>
  %R = linalg.generic {{indexing_maps = [#mm_a, #mm_b, #mm_c],
                       iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %B : tensor<{m}x{k}x{t}>, tensor<{k}x{n}x{t}>) outs(%C : tensor<{m}x{n}x{t}>) {{
  ^bb0(%a: {t}, %b: {t}, %c: {t}):
    %p = arith.mulf %a, %b : {t}
    %s = arith.addf %c, %p : {t}
    linalg.yield %s : {t}
  }} -> tensor<{m}x{n}x{t}>
  return %R : tensor<{m}x{n}x{t}>
}}"""
    )


def matmul_memrefs(m: int, n: int, k: int, name: str = "main") -> str:
    """``C += A @ B`` on memrefs (f32), as a function ``@name``."""
    return f"""
func.func @{name}(%A: memref<{m}x{k}xf32>, %B: memref<{k}x{n}xf32>, %C: memref<{m}x{n}xf32>) {{
  linalg.generic {{indexing_maps = [affine_map<(i, j, k) -> (i, k)>,
                                   affine_map<(i, j, k) -> (k, j)>,
                                   affine_map<(i, j, k) -> (i, j)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}}
      ins(%A, %B : memref<{m}x{k}xf32>, memref<{k}x{n}xf32>) outs(%C : memref<{m}x{n}xf32>) {{
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  }}
  return
}}"""


def conv_maps(stride: int) -> str:
    """Indexing maps of an NHWC x HWCF convolution, loops (n, oh, ow, f, kh, kw, c)."""
    return (
        "[affine_map<(n, oh, ow, f, kh, kw, c) -> "
        f"(n, oh * {stride} + kh, ow * {stride} + kw, c)>, "
        "affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>, "
        "affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>]"
    )


CONV_ITERATORS = (
    '["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]'
)


def conv_memrefs(input_shape, filter_shape, output_shape, stride: int, name: str = "main") -> str:
    """``O += conv(I, K)`` on memrefs, ``I`` already padded by the caller."""
    i_t = "memref<" + "x".join(map(str, input_shape)) + "xf32>"
    k_t = "memref<" + "x".join(map(str, filter_shape)) + "xf32>"
    o_t = "memref<" + "x".join(map(str, output_shape)) + "xf32>"
    return f"""
func.func @{name}(%I: {i_t}, %K: {k_t}, %O: {o_t}) {{
  linalg.generic {{indexing_maps = {conv_maps(stride)}, iterator_types = {CONV_ITERATORS}}}
      ins(%I, %K : {i_t}, {k_t}) outs(%O : {o_t}) {{
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }}
  return
}}"""


def conv_tensors_with_pad(input_shape, filter_shape, output_shape, stride: int, pad: int) -> str:
    """``conv(pad(I), K)`` on tensors: ``tensor.pad`` by ``pad`` on H and W, then the
    generic convolution into a zero-filled output."""
    n, h, w, c = input_shape
    padded = (n, h + 2 * pad, w + 2 * pad, c)
    i_t = "tensor<" + "x".join(map(str, input_shape)) + "xf32>"
    p_t = "tensor<" + "x".join(map(str, padded)) + "xf32>"
    k_t = "tensor<" + "x".join(map(str, filter_shape)) + "xf32>"
    o_t = "tensor<" + "x".join(map(str, output_shape)) + "xf32>"
    return f"""
func.func @main(%I: {i_t}, %K: {k_t}) -> {o_t} {{
  %zero = arith.constant 0.0 : f32
  %P = tensor.pad %I low[0, {pad}, {pad}, 0] high[0, {pad}, {pad}, 0] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {i_t} to {p_t}
  %empty = tensor.empty() : {o_t}
  %O = linalg.fill ins(%zero : f32) outs(%empty : {o_t}) -> {o_t}
  %R = linalg.generic {{indexing_maps = {conv_maps(stride)}, iterator_types = {CONV_ITERATORS}}}
      ins(%P, %K : {p_t}, {k_t}) outs(%O : {o_t}) {{
  ^bb0(%x: f32, %w: f32, %acc: f32):
    %p = arith.mulf %x, %w : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  }} -> {o_t}
  return %R : {o_t}
}}"""


def conv_reference(padded_input: np.ndarray, kernel: np.ndarray, stride: int) -> np.ndarray:
    """NHWC x HWCF convolution of an already padded input, in float64."""
    n, h, w, _ = padded_input.shape
    kh, kw, _, f = kernel.shape
    oh, ow = (h - kh) // stride + 1, (w - kw) // stride + 1
    out = np.zeros((n, oh, ow, f))
    x, k = padded_input.astype(np.float64), kernel.astype(np.float64)
    for i in range(kh):
        for j in range(kw):
            window = x[:, i : i + stride * oh : stride, j : j + stride * ow : stride, :]
            out += np.einsum("nhwc,cf->nhwf", window, k[i, j])
    return out


NEGATIVE_INFINITY = {"f16": "0xFC00", "bf16": "0xFF80", "f32": "0xFF800000"}
"""-inf as MLIR writes it: the hex bit pattern of the type."""

ROWS = """
#rows_id = affine_map<(i, j) -> (i, j)>
#rows_red = affine_map<(i, j) -> (i)>
"""


def softmax_tensors(rows: int, cols: int, t: str = "f32") -> str:
    """Row softmax on tensors: max, exp(x - max), sum, divide (four linalg.generic)."""
    mt, vt = f"tensor<{rows}x{cols}x{t}>", f"tensor<{rows}x{t}>"
    return (
        ROWS
        + f"""
func.func @main(%X: {mt}) -> {mt} {{
  %low = arith.constant {NEGATIVE_INFINITY[t]} : {t}
  %zero = arith.constant 0.0 : {t}
  %e1 = tensor.empty() : {vt}
  %init_max = linalg.fill ins(%low : {t}) outs(%e1 : {vt}) -> {vt}
  %max = linalg.generic {{indexing_maps = [#rows_id, #rows_red],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%X : {mt}) outs(%init_max : {vt}) {{
  ^bb0(%x: {t}, %m: {t}):
    %r = arith.maximumf %x, %m : {t}
    linalg.yield %r : {t}
  }} -> {vt}
  %e2 = tensor.empty() : {mt}
  %exp = linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_id],
                         iterator_types = ["parallel", "parallel"]}}
      ins(%X, %max : {mt}, {vt}) outs(%e2 : {mt}) {{
  ^bb0(%x: {t}, %m: {t}, %o: {t}):
    %d = arith.subf %x, %m : {t}
    %e = math.exp %d : {t}
    linalg.yield %e : {t}
  }} -> {mt}
  %init_sum = linalg.fill ins(%zero : {t}) outs(%e1 : {vt}) -> {vt}
  %sum = linalg.generic {{indexing_maps = [#rows_id, #rows_red],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%exp : {mt}) outs(%init_sum : {vt}) {{
  ^bb0(%e: {t}, %s: {t}):
    %r = arith.addf %e, %s : {t}
    linalg.yield %r : {t}
  }} -> {vt}
  %Y = linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_id],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%exp, %sum : {mt}, {vt}) outs(%e2 : {mt}) {{
  ^bb0(%e: {t}, %s: {t}, %o: {t}):
    %r = arith.divf %e, %s : {t}
    linalg.yield %r : {t}
  }} -> {mt}
  return %Y : {mt}
}}"""
    )


def softmax_memrefs(rows: int, cols: int, name: str = "main") -> str:
    """Row softmax on memrefs (f32), writing ``%Y``; temporaries from ``memref.alloc``."""
    mt, vt = f"memref<{rows}x{cols}xf32>", f"memref<{rows}xf32>"
    return f"""
func.func @{name}(%X: {mt}, %Y: {mt}) {{
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %max = memref.alloc() : {vt}
  %sum = memref.alloc() : {vt}
  linalg.fill ins(%lowest : f32) outs(%max : {vt})
  linalg.fill ins(%zero : f32) outs(%sum : {vt})
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%X : {mt}) outs(%max : {vt}) {{
  ^bb0(%x: f32, %m: f32):
    %r = arith.maximumf %x, %m : f32
    linalg.yield %r : f32
  }}
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>,
                                   affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%X, %max : {mt}, {vt}) outs(%Y, %sum : {mt}, {vt}) {{
  ^bb0(%x: f32, %m: f32, %y: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %e = math.exp %d : f32
    %t = arith.addf %s, %e : f32
    linalg.yield %e, %t : f32, f32
  }}
  linalg.generic {{indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%sum : {vt}) outs(%Y : {mt}) {{
  ^bb0(%s: f32, %y: f32):
    %r = arith.divf %y, %s : f32
    linalg.yield %r : f32
  }}
  memref.dealloc %max : {vt}
  memref.dealloc %sum : {vt}
  return
}}"""


def softmax_reference(x: np.ndarray) -> np.ndarray:
    wide = x.astype(np.float64)
    e = np.exp(wide - wide.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def layernorm_tensors(rows: int, cols: int, t: str = "f32") -> str:
    """Layer normalization over rows: mean, variance, ``(x - mean) * rsqrt(var + eps) *
    gamma + beta``, on tensors."""
    mt, vt, gt = f"tensor<{rows}x{cols}x{t}>", f"tensor<{rows}x{t}>", f"tensor<{cols}x{t}>"
    return (
        ROWS
        + f"""
#cols = affine_map<(i, j) -> (j)>
#vec = affine_map<(i) -> (i)>
func.func @main(%X: {mt}, %gamma: {gt}, %beta: {gt}) -> {mt} {{
  %zero = arith.constant 0.0 : {t}
  %n = arith.constant {float(cols)} : {t}
  %eps = arith.constant 1.0e-05 : {t}
  %e1 = tensor.empty() : {vt}
  %z = linalg.fill ins(%zero : {t}) outs(%e1 : {vt}) -> {vt}
  %sum = linalg.generic {{indexing_maps = [#rows_id, #rows_red],
                         iterator_types = ["parallel", "reduction"]}}
      ins(%X : {mt}) outs(%z : {vt}) {{
  ^bb0(%x: {t}, %s: {t}):
    %r = arith.addf %s, %x : {t}
    linalg.yield %r : {t}
  }} -> {vt}
  %mean = linalg.generic {{indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}}
      ins(%sum : {vt}) outs(%e1 : {vt}) {{
  ^bb0(%s: {t}, %o: {t}):
    %r = arith.divf %s, %n : {t}
    linalg.yield %r : {t}
  }} -> {vt}
  %sq = linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_red],
                        iterator_types = ["parallel", "reduction"]}}
      ins(%X, %mean : {mt}, {vt}) outs(%z : {vt}) {{
  ^bb0(%x: {t}, %m: {t}, %s: {t}):
    %d = arith.subf %x, %m : {t}
    %d2 = arith.mulf %d, %d : {t}
    %r = arith.addf %s, %d2 : {t}
    linalg.yield %r : {t}
  }} -> {vt}
  %e2 = tensor.empty() : {mt}
  %Y = linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_red, #cols, #cols, #rows_id],
                       iterator_types = ["parallel", "parallel"]}}
      ins(%X, %mean, %sq, %gamma, %beta : {mt}, {vt}, {vt}, {gt}, {gt}) outs(%e2 : {mt}) {{
  ^bb0(%x: {t}, %m: {t}, %s: {t}, %g: {t}, %b: {t}, %o: {t}):
    %var = arith.divf %s, %n : {t}
    %ve = arith.addf %var, %eps : {t}
    %inv = math.rsqrt %ve : {t}
    %d = arith.subf %x, %m : {t}
    %nd = arith.mulf %d, %inv : {t}
    %sc = arith.mulf %nd, %g : {t}
    %r = arith.addf %sc, %b : {t}
    linalg.yield %r : {t}
  }} -> {mt}
  return %Y : {mt}
}}"""
    )


def layernorm_reference(x, gamma, beta, eps=1e-5):
    wide = x.astype(np.float64)
    mean = wide.mean(axis=1, keepdims=True)
    var = ((wide - mean) ** 2).mean(axis=1, keepdims=True)
    return (wide - mean) / np.sqrt(var + eps) * gamma.astype(np.float64) + beta.astype(np.float64)


def layernorm_memrefs(rows: int, cols: int) -> str:
    """Layer normalization on memrefs (f32), writing ``%Y``."""
    mt, vt, gt = f"memref<{rows}x{cols}xf32>", f"memref<{rows}xf32>", f"memref<{cols}xf32>"
    return (
        ROWS
        + f"""
#cols = affine_map<(i, j) -> (j)>
#vec = affine_map<(i) -> (i)>
func.func @main(%X: {mt}, %gamma: {gt}, %beta: {gt}, %Y: {mt}) {{
  %zero = arith.constant 0.0 : f32
  %n = arith.constant {float(cols)} : f32
  %eps = arith.constant 1.0e-05 : f32
  %sum = memref.alloc() : {vt}
  %mean = memref.alloc() : {vt}
  %sq = memref.alloc() : {vt}
  linalg.fill ins(%zero : f32) outs(%sum : {vt})
  linalg.fill ins(%zero : f32) outs(%sq : {vt})
  linalg.generic {{indexing_maps = [#rows_id, #rows_red],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%X : {mt}) outs(%sum : {vt}) {{
  ^bb0(%x: f32, %s: f32):
    %r = arith.addf %s, %x : f32
    linalg.yield %r : f32
  }}
  linalg.generic {{indexing_maps = [#vec, #vec], iterator_types = ["parallel"]}}
      ins(%sum : {vt}) outs(%mean : {vt}) {{
  ^bb0(%s: f32, %o: f32):
    %r = arith.divf %s, %n : f32
    linalg.yield %r : f32
  }}
  linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_red],
                  iterator_types = ["parallel", "reduction"]}}
      ins(%X, %mean : {mt}, {vt}) outs(%sq : {vt}) {{
  ^bb0(%x: f32, %m: f32, %s: f32):
    %d = arith.subf %x, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %s, %d2 : f32
    linalg.yield %r : f32
  }}
  linalg.generic {{indexing_maps = [#rows_id, #rows_red, #rows_red, #cols, #cols, #rows_id],
                  iterator_types = ["parallel", "parallel"]}}
      ins(%X, %mean, %sq, %gamma, %beta : {mt}, {vt}, {vt}, {gt}, {gt}) outs(%Y : {mt}) {{
  ^bb0(%x: f32, %m: f32, %s: f32, %g: f32, %b: f32, %o: f32):
    %var = arith.divf %s, %n : f32
    %ve = arith.addf %var, %eps : f32
    %inv = math.rsqrt %ve : f32
    %d = arith.subf %x, %m : f32
    %nd = arith.mulf %d, %inv : f32
    %sc = arith.mulf %nd, %g : f32
    %r = arith.addf %sc, %b : f32
    linalg.yield %r : f32
  }}
  memref.dealloc %sum : {vt}
  memref.dealloc %mean : {vt}
  memref.dealloc %sq : {vt}
  return
}}"""
    )

"""Inputs for the bufferization tests: traced programs and hand-written tiled IR.

The tiled inputs have the shape MLIR's TileUsingInterface gives (and the tiling pass
of tinycomp produces): ``scf.for`` with ``iter_args`` over the output tensor,
``tensor.extract_slice`` of the operands, the computation on the tile, and
``tensor.insert_slice`` back; partial tiles take their sizes from ``affine.min``.
"""

from __future__ import annotations

import numpy as np

from tinycomp.frontend import TensorSpec, attention, exp, layernorm, matmul, softmax, trace
from tinycomp.ir import Operation, parse

ID1 = "affine_map<(d0) -> (d0)>"
ID2 = "affine_map<(d0, d1) -> (d0, d1)>"


def traced_cases() -> dict[str, Operation]:
    """The traced programs the brief names, by name."""
    spec = TensorSpec
    return {
        "softmax": trace(softmax, spec((3, 8))),
        "layernorm": trace(layernorm, spec((4, 8)), spec((8,)), spec((8,))),
        "matmul + bias": trace(
            lambda x, w, b: matmul(x, w) + b, spec((5, 6)), spec((6, 4)), spec((4,))
        ),
        "two-layer elementwise chain": trace(
            lambda x, y: (exp(x * 2.0 + y) - y) * 0.5, spec((4, 6)), spec((4, 6))
        ),
        "attention": trace(attention, spec((4, 8)), spec((6, 8)), spec((6, 8))),
        "reshape then scale": trace(lambda x: x.reshape((24,)) * 3.0, spec((4, 6))),
    }


TILED_MATMUL_1D = """
#min = affine_map<(d0) -> (-d0 + 10, 4)>
func.func @main(%A: tensor<10x5xf32>, %B: tensor<5x7xf32>) -> tensor<10x7xf32> {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x7xf32>
  %r = scf.for %i = %c0 to %c10 step %c4 iter_args(%acc = %e) -> (tensor<10x7xf32>) {
    %sz = affine.min #min(%i)
    %a = tensor.extract_slice %A[%i, 0] [%sz, 5] [1, 1] : tensor<10x5xf32> to tensor<?x5xf32>
    %c = tensor.extract_slice %acc[%i, 0] [%sz, 7] [1, 1] : tensor<10x7xf32> to tensor<?x7xf32>
    %f = linalg.fill ins(%cst : f32) outs(%c : tensor<?x7xf32>) -> tensor<?x7xf32>
    %m = linalg.matmul ins(%a, %B : tensor<?x5xf32>, tensor<5x7xf32>)
                       outs(%f : tensor<?x7xf32>) -> tensor<?x7xf32>
    %ins = tensor.insert_slice %m into %acc[%i, 0] [%sz, 7] [1, 1]
        : tensor<?x7xf32> into tensor<10x7xf32>
    scf.yield %ins : tensor<10x7xf32>
  }
  return %r : tensor<10x7xf32>
}"""

TILED_MATMUL_BIAS_2D = f"""
#min_m = affine_map<(d0) -> (-d0 + 10, 4)>
#min_n = affine_map<(d0) -> (-d0 + 7, 3)>
func.func @main(%A: tensor<10x5xf32>, %B: tensor<5x7xf32>, %bias: tensor<7xf32>)
    -> tensor<10x7xf32> {{
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c10 = arith.constant 10 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<10x7xf32>
  %r = scf.for %i = %c0 to %c10 step %c4 iter_args(%acc = %e) -> (tensor<10x7xf32>) {{
    %sm = affine.min #min_m(%i)
    %r2 = scf.for %j = %c0 to %c7 step %c3 iter_args(%acc2 = %acc) -> (tensor<10x7xf32>) {{
      %sn = affine.min #min_n(%j)
      %a = tensor.extract_slice %A[%i, 0] [%sm, 5] [1, 1] : tensor<10x5xf32> to tensor<?x5xf32>
      %b = tensor.extract_slice %B[0, %j] [5, %sn] [1, 1] : tensor<5x7xf32> to tensor<5x?xf32>
      %c = tensor.extract_slice %acc2[%i, %j] [%sm, %sn] [1, 1]
          : tensor<10x7xf32> to tensor<?x?xf32>
      %f = linalg.fill ins(%cst : f32) outs(%c : tensor<?x?xf32>) -> tensor<?x?xf32>
      %m = linalg.matmul ins(%a, %b : tensor<?x5xf32>, tensor<5x?xf32>)
                         outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
      %bs = tensor.extract_slice %bias[%j] [%sn] [1] : tensor<7xf32> to tensor<?xf32>
      %y = linalg.generic {{indexing_maps = [{ID2}, affine_map<(d0, d1) -> (d1)>, {ID2}],
                           iterator_types = ["parallel", "parallel"]}}
          ins(%m, %bs : tensor<?x?xf32>, tensor<?xf32>) outs(%m : tensor<?x?xf32>) {{
      ^bb0(%in: f32, %bias_in: f32, %out: f32):
        %s = arith.addf %in, %bias_in : f32
        linalg.yield %s : f32
      }} -> tensor<?x?xf32>
      %ins = tensor.insert_slice %y into %acc2[%i, %j] [%sm, %sn] [1, 1]
          : tensor<?x?xf32> into tensor<10x7xf32>
      scf.yield %ins : tensor<10x7xf32>
    }} {{tinycomp.bind = "gpu.block.x"}}
    scf.yield %r2 : tensor<10x7xf32>
  }} {{tinycomp.bind = "gpu.block.y"}}
  return %r : tensor<10x7xf32>
}}"""

TILED_REDUCTION = """
#min = affine_map<(d0) -> (-d0 + 5, 2)>
func.func @main(%A: tensor<6x5xf32>, %B: tensor<5x7xf32>) -> tensor<6x7xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %cst = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x7xf32>
  %init = linalg.fill ins(%cst : f32) outs(%e : tensor<6x7xf32>) -> tensor<6x7xf32>
  %r = scf.for %k = %c0 to %c5 step %c2 iter_args(%acc = %init) -> (tensor<6x7xf32>) {
    %sk = affine.min #min(%k)
    %a = tensor.extract_slice %A[0, %k] [6, %sk] [1, 1] : tensor<6x5xf32> to tensor<6x?xf32>
    %b = tensor.extract_slice %B[%k, 0] [%sk, 7] [1, 1] : tensor<5x7xf32> to tensor<?x7xf32>
    %m = linalg.matmul ins(%a, %b : tensor<6x?xf32>, tensor<?x7xf32>)
                       outs(%acc : tensor<6x7xf32>) -> tensor<6x7xf32>
    scf.yield %m : tensor<6x7xf32>
  }
  return %r : tensor<6x7xf32>
}"""

TILE_AND_FUSE = f"""
#min = affine_map<(d0) -> (-d0 + 10, 4)>
func.func @main(%x: tensor<10xf32>) -> tensor<10xf32> {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %two = arith.constant 2.0 : f32
  %out = tensor.empty() : tensor<10xf32>
  %r = scf.for %i = %c0 to %c10 step %c4 iter_args(%acc = %out) -> (tensor<10xf32>) {{
    %s = affine.min #min(%i)
    %xs = tensor.extract_slice %x[%i] [%s] [1] : tensor<10xf32> to tensor<?xf32>
    %t = tensor.empty(%s) : tensor<?xf32>
    %p = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%xs : tensor<?xf32>) outs(%t : tensor<?xf32>) {{
    ^bb0(%in: f32, %o: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
    }} -> tensor<?xf32>
    %accs = tensor.extract_slice %acc[%i] [%s] [1] : tensor<10xf32> to tensor<?xf32>
    %c = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%p : tensor<?xf32>) outs(%accs : tensor<?xf32>) {{
    ^bb0(%in: f32, %o: f32):
      %v = arith.mulf %in, %two : f32
      linalg.yield %v : f32
    }} -> tensor<?xf32>
    %ins = tensor.insert_slice %c into %acc[%i] [%s] [1] : tensor<?xf32> into tensor<10xf32>
    scf.yield %ins : tensor<10xf32>
  }}
  return %r : tensor<10xf32>
}}"""

TILED_COPY_IN = f"""
#min = affine_map<(d0) -> (-d0 + 10, 4)>
func.func @main(%x: tensor<10xf32>) -> tensor<10xf32> {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  %out = tensor.empty() : tensor<10xf32>
  %r = scf.for %i = %c0 to %c10 step %c4 iter_args(%acc = %out) -> (tensor<10xf32>) {{
    %s = affine.min #min(%i)
    %xs = tensor.extract_slice %x[%i] [%s] [1] : tensor<10xf32> to tensor<?xf32>
    %t = tensor.empty(%s) : tensor<?xf32>
    %p = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%xs : tensor<?xf32>) outs(%t : tensor<?xf32>) {{
    ^bb0(%in: f32, %o: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
    }} -> tensor<?xf32>
    %ins = tensor.insert_slice %p into %acc[%i] [%s] [1] : tensor<?xf32> into tensor<10xf32>
    scf.yield %ins : tensor<10xf32>
  }}
  return %r : tensor<10xf32>
}}"""

ROWS_RANK_REDUCED = f"""
func.func @main(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %out = tensor.empty() : tensor<4x8xf32>
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %out) -> (tensor<4x8xf32>) {{
    %row = tensor.extract_slice %x[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %o = tensor.extract_slice %acc[%i, 0] [1, 8] [1, 1] : tensor<4x8xf32> to tensor<8xf32>
    %e = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%row : tensor<8xf32>) outs(%o : tensor<8xf32>) {{
    ^bb0(%in: f32, %out_elem: f32):
      %v = math.tanh %in : f32
      linalg.yield %v : f32
    }} -> tensor<8xf32>
    %ins = tensor.insert_slice %e into %acc[%i, 0] [1, 8] [1, 1]
        : tensor<8xf32> into tensor<4x8xf32>
    scf.yield %ins : tensor<4x8xf32>
  }}
  return %r : tensor<4x8xf32>
}}"""

LOOP_READS_ITS_INIT = f"""
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %e = tensor.empty() : tensor<8xf32>
  %init = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  }} -> tensor<8xf32>
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %init) -> (tensor<8xf32>) {{
    %t = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%init : tensor<8xf32>) outs(%acc : tensor<8xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %v = arith.addf %in, %out : f32
      linalg.yield %v : f32
    }} -> tensor<8xf32>
    scf.yield %t : tensor<8xf32>
  }}
  return %r : tensor<8xf32>
}}"""

LOOP_YIELDS_NEW_VALUE = f"""
func.func @main(%x: tensor<8xf32>) -> (tensor<8xf32>, f32) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %r:2 = scf.for %i = %c0 to %c3 step %c1 iter_args(%acc = %x, %sum = %zero)
      -> (tensor<8xf32>, f32) {{
    %e = tensor.empty() : tensor<8xf32>
    %n = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%acc : tensor<8xf32>) outs(%e : tensor<8xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %v = arith.mulf %in, %half : f32
      %w = arith.addf %v, %half : f32
      linalg.yield %w : f32
    }} -> tensor<8xf32>
    %first = tensor.extract %n[%c0] : tensor<8xf32>
    %next = arith.addf %sum, %first : f32
    scf.yield %n, %next : tensor<8xf32>, f32
  }}
  return %r#0, %r#1 : tensor<8xf32>, f32
}}"""

BRANCHING_USE = f"""
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %e = tensor.empty() : tensor<8xf32>
  %a = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  }} -> tensor<8xf32>
  %b = linalg.generic {{indexing_maps = [{ID1}], iterator_types = ["parallel"]}}
      outs(%a : tensor<8xf32>) {{
  ^bb0(%out: f32):
    %0 = arith.addf %out, %out : f32
    linalg.yield %0 : f32
  }} -> tensor<8xf32>
  %e2 = tensor.empty() : tensor<8xf32>
  %c = linalg.generic {{indexing_maps = [{ID1}, {ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%a, %b : tensor<8xf32>, tensor<8xf32>) outs(%e2 : tensor<8xf32>) {{
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %0 = arith.subf %in, %in2 : f32
    linalg.yield %0 : f32
  }} -> tensor<8xf32>
  return %c : tensor<8xf32>
}}"""

WRITES_ARGUMENT = """
func.func @main(%x: tensor<2x3xf32>, %v: f32) -> tensor<2x3xf32> {
  %r = linalg.fill ins(%v : f32) outs(%x : tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}"""

PAD_AND_RESHAPE = f"""
func.func @main(%x: tensor<2x3xf32>) -> (tensor<4x5xf32>, tensor<2x2x5xf32>, index) {{
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[1, 1] high[1, 1] {{
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  }} : tensor<2x3xf32> to tensor<4x5xf32>
  %flat = tensor.collapse_shape %p [[0, 1]] : tensor<4x5xf32> into tensor<20xf32>
  %e = tensor.empty() : tensor<20xf32>
  %d = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
      ins(%flat : tensor<20xf32>) outs(%e : tensor<20xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = arith.addf %in, %in : f32
    linalg.yield %v : f32
  }} -> tensor<20xf32>
  %cube = tensor.expand_shape %d [[0, 1, 2]] output_shape [2, 2, 5]
      : tensor<20xf32> into tensor<2x2x5xf32>
  %n = tensor.dim %x, %c1 : tensor<2x3xf32>
  return %p, %cube, %n : tensor<4x5xf32>, tensor<2x2x5xf32>, index
}}"""

PAD_WITH_INDEX_VALUES = """
func.func @main(%x: tensor<3xf32>) -> tensor<6xf32> {
  %p = tensor.pad %x low[2] high[1] {
  ^bb0(%i: index):
    %k = arith.index_cast %i : index to i32
    %f = arith.sitofp %k : i32 to f32
    tensor.yield %f : f32
  } : tensor<3xf32> to tensor<6xf32>
  return %p : tensor<6xf32>
}"""

DYNAMIC_SHAPES = f"""
func.func @main(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {{
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x4xf32>
  %e = tensor.empty(%n) : tensor<?x4xf32>
  %r = linalg.generic {{indexing_maps = [{ID2}, {ID2}], iterator_types = ["parallel", "parallel"]}}
      ins(%x : tensor<?x4xf32>) outs(%e : tensor<?x4xf32>) {{
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %in : f32
    linalg.yield %v : f32
  }} -> tensor<?x4xf32>
  %one = arith.constant 1.0 : f32
  %c1 = arith.constant 1 : index
  %s = tensor.insert %one into %r[%c0, %c1] : tensor<?x4xf32>
  return %s : tensor<?x4xf32>
}}"""

SHARED_EMPTY = f"""
func.func @main(%x: tensor<8xf32>) -> tensor<8xf32> {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %a = scf.for %i = %c0 to %c8 step %c4 iter_args(%acc = %e) -> (tensor<8xf32>) {{
    %xs = tensor.extract_slice %x[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %os = tensor.extract_slice %acc[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %g = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%xs : tensor<4xf32>) outs(%os : tensor<4xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %v = math.exp %in : f32
      linalg.yield %v : f32
    }} -> tensor<4xf32>
    %ins = tensor.insert_slice %g into %acc[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %ins : tensor<8xf32>
  }}
  %b = scf.for %i = %c0 to %c8 step %c4 iter_args(%acc = %e) -> (tensor<8xf32>) {{
    %as = tensor.extract_slice %a[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %os = tensor.extract_slice %acc[%i] [4] [1] : tensor<8xf32> to tensor<4xf32>
    %g = linalg.generic {{indexing_maps = [{ID1}, {ID1}], iterator_types = ["parallel"]}}
        ins(%as : tensor<4xf32>) outs(%os : tensor<4xf32>) {{
    ^bb0(%in: f32, %out: f32):
      %v = arith.mulf %in, %two : f32
      linalg.yield %v : f32
    }} -> tensor<4xf32>
    %ins = tensor.insert_slice %g into %acc[%i] [4] [1] : tensor<4xf32> into tensor<8xf32>
    scf.yield %ins : tensor<8xf32>
  }}
  return %b : tensor<8xf32>
}}"""
"""Two tiled loops start from one ``tensor.empty`` (CSE merges identical ones)."""

CAST_THEN_INSERT = """
func.func @main(%x: tensor<4xf32>) -> tensor<?xf32> {
  %c = tensor.cast %x : tensor<4xf32> to tensor<?xf32>
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %r = tensor.insert %one into %c[%c0] : tensor<?xf32>
  return %r : tensor<?xf32>
}"""

HAND_WRITTEN = {
    "tiled matmul, partial tiles": TILED_MATMUL_1D,
    "2-d tiled matmul + bias, bound loops": TILED_MATMUL_BIAS_2D,
    "tiled reduction dimension": TILED_REDUCTION,
    "tile and fuse, producer per tile": TILE_AND_FUSE,
    "tile computed elsewhere, copied in": TILED_COPY_IN,
    "rank-reducing row slices": ROWS_RANK_REDUCED,
    "loop reads its init": LOOP_READS_ITS_INIT,
    "loops sharing one tensor.empty": SHARED_EMPTY,
    "loop yields a new value": LOOP_YIELDS_NEW_VALUE,
    "branching use": BRANCHING_USE,
    "writes an argument": WRITES_ARGUMENT,
    "pad and reshapes": PAD_AND_RESHAPE,
    "pad with computed values": PAD_WITH_INDEX_VALUES,
    "dynamic shapes": DYNAMIC_SHAPES,
    "cast, then insert an element": CAST_THEN_INSERT,
}
"""Hand-written tensor IR, by name."""

DYNAMIC_INPUT_SHAPES = {"dynamic shapes": [(5, 4)]}
"""Run-time shapes for inputs whose types have dynamic sizes."""

OUTPUT_SHAPES = {"dynamic shapes": [(5, 4)], "cast, then insert an element": [(4,)]}
"""Run-time shapes of the out-params whose types have dynamic sizes."""


def all_cases() -> dict[str, Operation]:
    """Every case, parsed (traced ones as traced)."""
    cases = traced_cases()
    cases.update({name: parse(text) for name, text in HAND_WRITTEN.items()})
    return cases


def random_arguments(module: Operation, seed: int, name: str = "") -> list:
    """Random inputs for ``@main`` (floats in [-1, 1] scaled, f32 scalars as Python
    floats); dynamic shapes from ``DYNAMIC_INPUT_SHAPES``."""
    rng = np.random.default_rng(seed)
    function = module.body.first_op
    shapes = iter(DYNAMIC_INPUT_SHAPES.get(name, []))
    arguments = []
    for value_type in function.function_type.inputs:
        if not hasattr(value_type, "shape"):
            arguments.append(float(rng.uniform(-2, 2)))
            continue
        shape = value_type.shape if value_type.has_static_shape else next(shapes)
        arguments.append(rng.uniform(-2, 2, size=shape).astype(np.float32))
    return arguments

"""A 2-D convolution as a matmul: im2col into a buffer, then the GEMM.

``linalg.conv_2d_nhwc_hwcf`` (generalized) computes
``out[n, oh, ow, f] += x[n, oh*sh + kh*dh, ow*sw + kw*dw, c] * w[kh, kw, c, f]``. Copy
every window of the image into one row of a buffer (*im2col*),
``col[n, oh, ow, kh, kw, c] = x[n, oh*sh + kh*dh, ow*sw + kw*dw, c]``, and the
convolution is the matmul ``out (N*OH*OW x F) = col (N*OH*OW x KH*KW*C) @ w (KH*KW*C x F)``
on views of the same buffers (``memref.collapse_shape``: NHWC and HWCF are row-major,
so the collapsed dimensions are contiguous), which the BLIS strategy takes.

Why im2col and not a direct blocked loop nest: the GEMM packs A anyway, so the only
extra work is one copy of ``N*OH*OW x KH*KW*C`` elements, ``1/F`` of the FLOPs the GEMM
then does at the micro-kernel's speed (for the catalogue's ResNet-like layer, 3x3x64 to
64 filters, a 1.8 MB buffer against 58 MFLOP), while a direct nest would need its own
packing, micro-kernel and edge handling to reach the same speed. ``conv_to_matmul``,
in order:

1. Match: two inputs and one output, f32 buffers of static shape with row-major
   layouts, four parallel loops ``(n, oh, ow, f)`` indexing the output, three
   reductions ``(kh, kw, c)`` indexing the filter as ``(kh, kw, c, f)``, the image as
   ``(n, oh*sh + kh*dh, ow*sw + kw*dw, c)`` (coefficients read off the map), a
   payload ``out + x * w``.
2. Before the output's fill (if any), allocate ``col`` and write it with an
   all-parallel ``linalg.generic`` over ``(n, oh, ow, kh, kw, c)``; collapse ``col``,
   ``w`` and ``out`` to matrices.
3. Replace the convolution by the matmul ``linalg.generic`` on those views; free
   ``col`` after it. Returns the matmul, or why the op is not such a convolution.

>>> import tinycomp
>>> from tinycomp.testing import KERNELS
>>> module = tinycomp.compile(KERNELS["conv2d"].trace("f32"), stop_after="bufferized").module
>>> conv = [op for op in module.walk() if op.name == "linalg.generic"][-1]
>>> matmul = conv_to_matmul(conv)
>>> [str(value.type) for value in (*matmul.inputs, *matmul.outputs)]
['memref<96x36xf32>', 'memref<36x8xf32>', 'memref<96x8xf32>']
"""

from __future__ import annotations

from tinycomp.affine import AffineDimExpr, AffineMap, dim
from tinycomp.dialects.arith import AddFOp, MulFOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref import AllocOp, CollapseShapeOp, DeallocOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType, f32
from tinycomp.ir.values import Value
from tinycomp.targets.cpu.contraction import payload_problem

__all__ = ["conv_to_matmul"]


def _row_major(t: MemRefType) -> bool:
    strides, offset = strides_and_offset(t)
    expected, size = [], 1
    for extent in reversed(t.shape):
        expected.append(size)
        size *= extent
    return offset == 0 and tuple(reversed(expected)) == tuple(strides)


def _linear(indexing_map: AffineMap, result: int) -> dict[int, int] | None:
    """The coefficient of each loop in one result of ``indexing_map`` (``None`` unless
    it is a linear combination of loops with no constant)."""
    zero = [0] * indexing_map.num_dims
    if indexing_map.evaluate(zero)[result] != 0:
        return None
    coefficients = {}
    for d in range(indexing_map.num_dims):
        unit = [1 if i == d else 0 for i in range(indexing_map.num_dims)]
        value = indexing_map.evaluate(unit)[result]
        if value:
            coefficients[d] = value
    probe = [3 + 2 * i for i in range(indexing_map.num_dims)]
    if indexing_map.evaluate(probe)[result] != sum(c * probe[d] for d, c in coefficients.items()):
        return None
    return coefficients


def _plain(indexing_map: AffineMap) -> list[int] | None:
    if not all(isinstance(r, AffineDimExpr) for r in indexing_map.results):
        return None
    return [r.position for r in indexing_map.results]


def conv_to_matmul(op: GenericOp) -> GenericOp | str:
    """Rewrite the convolution ``op`` as im2col + matmul (module docstring), or say why not."""
    types = [v.type for v in op.operands]  # step 1
    if (
        op.num_inputs != 2
        or op.num_outputs != 1
        or not all(isinstance(t, MemRefType) for t in types)
    ):
        return "not two inputs and one output on buffers"
    if {t.element_type for t in types} != {f32}:
        found = ", ".join(sorted({str(t.element_type) for t in types}))
        return f"{found}: the micro-kernel is f32"
    if any(DYNAMIC in t.shape for t in types):
        return "dynamic shapes: the im2col buffer is sized statically"
    if not all(t.rank == 4 and _row_major(t) for t in types):
        return "not 4-D row-major buffers (NHWC, HWCF)"
    x_map, w_map, out_map = op.indexing_maps()
    out_dims, w_dims = _plain(out_map), _plain(w_map)
    reductions = op.reduction_dims()
    if out_dims is None or w_dims is None or len(reductions) != 3 or op.num_loops != 7:
        return "not the loops of a 2-D convolution"
    n, oh, ow, f = out_dims
    kh, kw, c = w_dims[:3]
    if w_dims[3] != f or sorted((kh, kw, c)) != sorted(reductions):
        return "the filter is not indexed (kh, kw, c, f)"
    rows, cols = _linear(x_map, 1), _linear(x_map, 2)
    x_n, x_c = x_map.results[0], x_map.results[3]
    if rows is None or cols is None or set(rows) - {oh, kh} or set(cols) - {ow, kw}:
        return "the image is not indexed (n, oh*sh + kh*dh, ow*sw + kw*dw, c)"
    if not (isinstance(x_n, AffineDimExpr) and x_n.position == n):
        return "the image is not indexed by n first"
    if not (isinstance(x_c, AffineDimExpr) and x_c.position == c):
        return "the image is not indexed by c last"
    problem = payload_problem(op)
    if problem is not None:
        return problem
    sizes = op.static_loop_sizes()
    x, w, out = op.operands
    fill = op.prev_op if op.prev_op is not None and out in op.prev_op.operands else None
    builder = Builder.before(fill if fill is not None else op)  # step 2
    loops = (n, oh, ow, kh, kw, c)
    col_type = MemRefType(tuple(sizes[d] for d in loops), f32)
    col = builder.insert(AllocOp.build(col_type)).result
    col.name_hint = "im2col"
    # In the im2col loops (d0..d5 = n, oh, ow, kh, kw, c): the image's indices.
    sh, dh, sw, dw = rows.get(oh, 0), rows.get(kh, 0), cols.get(ow, 0), cols.get(kw, 0)
    image = AffineMap(6, 0, [dim(0), dim(1) * sh + dim(3) * dh, dim(2) * sw + dim(4) * dw, dim(5)])
    identity = AffineMap(6, 0, [dim(i) for i in range(6)])
    builder.insert(
        GenericOp.build([x], [col], [image, identity], ["parallel"] * 6, body=lambda b, a: [a[0]])
    )
    a = builder.insert(CollapseShapeOp.build(col, [[0, 1, 2], [3, 4, 5]])).result
    b = builder.insert(CollapseShapeOp.build(w, [[0, 1, 2], [3]])).result
    cview = builder.insert(CollapseShapeOp.build(out, [[0, 1, 2], [3]])).result

    def payload(bb: Builder, args: list[Value]) -> list[Value]:
        product = bb.insert(MulFOp.build(args[0], args[1])).result
        return [bb.insert(AddFOp.build(args[2], product)).result]

    maps = [AffineMap(3, 0, [dim(0), dim(2)]), AffineMap(3, 0, [dim(2), dim(1)])]
    maps.append(AffineMap(3, 0, [dim(0), dim(1)]))
    matmul = GenericOp.build(
        [a, b], [cview], maps, ["parallel", "parallel", "reduction"], body=payload
    )  # step 3
    Builder.before(op).insert(matmul)
    Builder.after(op).insert(DeallocOp.build(col))
    op.erase()
    return matmul

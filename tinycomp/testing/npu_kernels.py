"""Ascend-C-style kernels for the NPU simulator: the chapter's examples, the calibration
checks and the benchmarks run these.

* ``vector_add``: ``z = x + y`` in tiles, CopyIn / Compute / CopyOut through queues of
  ``buffer_num`` buffers; on many cores a stream bound by the HBM;
* ``vector_chain``: the same shape of kernel with ``passes`` vector ops a tile, to
  balance (or not) the copies against the compute when double buffering;
* ``softmax_rows``: a softmax over each row of a ``rows x cols`` f32 matrix, rows
  dealt out over the blocks, ``rows_per_tile`` rows a tile: reductions, the V -> S flag
  a scalar read needs, vector-scalar ops;
* ``cube_matmul``: ``C = A @ B`` (f16 in; f32 or f16 out) on the cube cores, 128 x 256
  tiles of C (the whole L0C in f32), GM -> L1 in NZ 256 deep, L1 -> L0A / L0B 64 deep
  at a time, ``mmad`` accumulating in L0C, FixPipe out (converting to ``c``'s type);
  L1 and L0 double-buffered.

The streaming kernels and the matmul divide their work evenly: the shapes must be
multiples of the tiles (and of the blocks), as ``ValueError`` says otherwise;
``softmax_rows`` takes any number of rows.

>>> import numpy as np
>>> from tinycomp import npu
>>> x, y = np.ones(8192, np.float16), np.full(8192, 2, np.float16)
>>> z = np.zeros_like(x)
>>> result = npu.launch(vector_add, (x, y, z, 2048, 2), block_num=2, preset="small")
>>> float(z.min()), result.kernel_type
(3.0, 'aiv')
"""

from __future__ import annotations

import numpy as np

from tinycomp import npu

__all__ = ["cube_matmul", "matmul_relu", "softmax_rows", "vector_add", "vector_chain"]


def _check(condition: bool, message: str) -> None:
    if not condition:
        raise ValueError(message)


@npu.kernel
def vector_add(x, y, z, tile, buffer_num):
    """``z = x + y``: each block a contiguous share, ``tile`` elements at a time."""
    dtype = x.dtype
    per_core = x.size // npu.block_num()
    pipe = npu.TPipe()
    in_x, in_y, out_z = npu.TQue(npu.VECIN), npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
    for queue in (in_x, in_y, out_z):
        pipe.init_buffer(queue, buffer_num, tile * dtype.itemsize)
    start = npu.block_idx() * per_core
    for i in npu.range(per_core // tile):
        offset = start + i * tile
        x_tile, y_tile = in_x.alloc_tensor(dtype), in_y.alloc_tensor(dtype)  # CopyIn
        npu.data_copy(x_tile, x[offset], tile)
        npu.data_copy(y_tile, y[offset], tile)
        in_x.enque(x_tile)
        in_y.enque(y_tile)
        x_tile, y_tile = in_x.deque(), in_y.deque()  # Compute
        z_tile = out_z.alloc_tensor(dtype)
        npu.add(z_tile, x_tile, y_tile, tile)
        out_z.enque(z_tile)
        in_x.free_tensor(x_tile)
        in_y.free_tensor(y_tile)
        z_tile = out_z.deque()  # CopyOut
        npu.data_copy(z[offset], z_tile, tile)
        out_z.free_tensor(z_tile)


@npu.kernel
def vector_chain(x, y, tile, buffer_num, passes):
    """``y = x * 1.0001 ** passes`` the slow way: ``passes`` multiplies a tile, so the
    vector unit's share of a tile can be tuned against the copies'."""
    dtype = x.dtype
    per_core = x.size // npu.block_num()
    pipe = npu.TPipe()
    in_x, out_y = npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
    pipe.init_buffer(in_x, buffer_num, tile * dtype.itemsize)
    pipe.init_buffer(out_y, buffer_num, tile * dtype.itemsize)
    start = npu.block_idx() * per_core
    for i in npu.range(per_core // tile):
        offset = start + i * tile
        x_tile = in_x.alloc_tensor(dtype)
        npu.data_copy(x_tile, x[offset], tile)
        in_x.enque(x_tile)
        x_tile = in_x.deque()
        y_tile = out_y.alloc_tensor(dtype)
        npu.muls(y_tile, x_tile, 1.0001, tile)
        for _ in range(passes - 1):
            npu.muls(y_tile, y_tile, 1.0001, tile)
        out_y.enque(y_tile)
        in_x.free_tensor(x_tile)
        y_tile = out_y.deque()
        npu.data_copy(y[offset], y_tile, tile)
        out_y.free_tensor(y_tile)


@npu.kernel
def softmax_rows(x, y, rows_per_tile, buffer_num):
    """``y = softmax(x, axis=-1)`` for an f32 ``rows x cols`` matrix (``cols`` a
    multiple of 64): the rows dealt out as evenly as they go (the first ``rows %
    blocks`` blocks take one more), ``rows_per_tile`` rows a tile, the rest one by one."""
    rows, cols = x.shape
    _check(cols % 64 == 0, f"softmax_rows: cols must be a multiple of 64, got {cols}")
    block, blocks = npu.block_idx(), npu.block_num()
    share, extra = rows // blocks, rows % blocks
    first_row = block * share + npu.minimum(block, extra)
    my_rows = share + npu.minimum(extra - npu.minimum(block, extra), 1)
    pipe = npu.TPipe()
    in_x, out_y = npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
    pipe.init_buffer(in_x, buffer_num, rows_per_tile * cols * 4)
    pipe.init_buffer(out_y, buffer_num, rows_per_tile * cols * 4)
    scratch = npu.TBuf()
    pipe.init_buffer(scratch, 4 * (cols + 64))
    work = scratch.get(np.float32)
    to_scalar = pipe.alloc_event("V", "S")

    def tile(row, count):
        offset = row * cols
        x_tile = in_x.alloc_tensor(np.float32)
        npu.data_copy(x_tile, x[offset], count * cols)
        in_x.enque(x_tile)
        x_tile = in_x.deque()
        y_tile = out_y.alloc_tensor(np.float32)
        for r in range(count):
            line, out = x_tile[r * cols], y_tile[r * cols]
            npu.reduce_max(work, line, work[64], cols)
            npu.set_flag("V", "S", to_scalar)
            npu.wait_flag("V", "S", to_scalar)
            largest = work.get_value(0)
            npu.adds(out, line, largest * -1.0, cols)
            npu.exp(out, out, cols)
            npu.reduce_sum(work, out, work[64], cols)
            npu.set_flag("V", "S", to_scalar)
            npu.wait_flag("V", "S", to_scalar)
            total = work.get_value(0)
            npu.muls(out, out, 1.0 / total, cols)
        out_y.enque(y_tile)
        in_x.free_tensor(x_tile)
        y_tile = out_y.deque()
        npu.data_copy(y[offset], y_tile, count * cols)
        out_y.free_tensor(y_tile)

    full = my_rows // rows_per_tile
    for i in npu.range(full):
        tile(first_row + i * rows_per_tile, rows_per_tile)
    for j in npu.range(my_rows - full * rows_per_tile):
        tile(first_row + full * rows_per_tile + j, 1)


CUBE_M, CUBE_N, L1_K, L0_K = 128, 256, 256, 64


@npu.kernel(kernel_type="aic")
def cube_matmul(a, b, c):
    """``c = a @ b`` with ``a`` (M x K) and ``b`` (K x N) f16, ``c`` f32 or f16; M a
    multiple of 128, N of 256, K of 256. Block ``i`` takes C tiles ``i, i + blocks...``."""
    (m, k), (_, n) = a.shape, b.shape
    _check(
        m % CUBE_M == 0 and n % CUBE_N == 0 and k % L1_K == 0,
        f"cube_matmul: expected M a multiple of {CUBE_M}, N of {CUBE_N}, K of {L1_K}, got "
        f"{m}, {n}, {k}",
    )
    tiles_n = n // CUBE_N
    tiles = (m // CUBE_M) * tiles_n
    pipe = npu.TPipe()
    a1, b1 = npu.TQue(npu.A1), npu.TQue(npu.B1)
    a2, b2, c1 = npu.TQue(npu.A2), npu.TQue(npu.B2), npu.TQue(npu.CO1)
    pipe.init_buffer(a1, 2, CUBE_M * L1_K * 2)
    pipe.init_buffer(b1, 2, L1_K * CUBE_N * 2)
    pipe.init_buffer(a2, 2, CUBE_M * L0_K * 2)
    pipe.init_buffer(b2, 2, L0_K * CUBE_N * 2)
    pipe.init_buffer(c1, 1, CUBE_M * CUBE_N * 4)
    blocks = npu.block_num()
    for t in npu.range(npu.block_idx(), tiles, blocks):
        row, col = (t // tiles_n) * CUBE_M, (t % tiles_n) * CUBE_N
        c_tile = c1.alloc_tensor(np.float32)
        for kk in range(k // L1_K):
            a_panel, b_panel = a1.alloc_tensor(np.float16), b1.alloc_tensor(np.float16)
            npu.data_copy_nd2nz(a_panel, a[row * k + kk * L1_K], CUBE_M, L1_K, k)
            npu.data_copy_nd2nz(b_panel, b[kk * L1_K * n + col], L1_K, CUBE_N, n)
            a1.enque(a_panel)
            b1.enque(b_panel)
            a_panel, b_panel = a1.deque(), b1.deque()
            for step in range(L1_K // L0_K):
                a_slice, b_slice = a2.alloc_tensor(np.float16), b2.alloc_tensor(np.float16)
                npu.load_data(a_slice, a_panel[step * L0_K * CUBE_M], L0_K * CUBE_M)
                npu.load_data(b_slice, b_panel[step * L0_K * 16], L0_K * 16,
                              n_burst=CUBE_N // 16, src_stride=L1_K * 16)  # fmt: skip
                a2.enque(a_slice)
                b2.enque(b_slice)
                a_slice, b_slice = a2.deque(), b2.deque()
                first = kk == 0 and step == 0
                npu.mmad(c_tile, a_slice, b_slice, CUBE_M, L0_K, CUBE_N, accumulate=not first)
                a2.free_tensor(a_slice)
                b2.free_tensor(b_slice)
            a1.free_tensor(a_panel)
            b1.free_tensor(b_panel)
        c1.enque(c_tile)
        c_tile = c1.deque()
        npu.fixpipe(c[row * n + col], c_tile, CUBE_M, CUBE_N, n)
        c1.free_tensor(c_tile)


@npu.kernel(kernel_type="mix_1_2")
def matmul_relu(a, b, workspace, c):
    """``c = relu(a @ b)`` for one 128 x 256 tile per block (``a`` is ``blocks * 128 x
    64`` f16, ``b`` 64 x 256 f16, ``c`` and ``workspace`` f32 like ``c``): the cube
    core writes its tile to the GM ``workspace`` and sets cross-core flag 0; each of
    its two vector cores waits on it, then takes half the tile's rows
    (``sub_block_idx``) through UB, applies relu and writes ``c``."""
    rows, cols, depth = CUBE_M, CUBE_N, a.shape[1]
    tile = npu.block_idx() * rows * cols
    if npu.is_aic():
        pipe = npu.TPipe()
        a1, b1 = npu.TQue(npu.A1), npu.TQue(npu.B1)
        a2, b2, c1 = npu.TQue(npu.A2), npu.TQue(npu.B2), npu.TQue(npu.CO1)
        for queue, nbytes in ((a1, rows * depth * 2), (b1, depth * cols * 2),
                              (a2, rows * depth * 2), (b2, depth * cols * 2),
                              (c1, rows * cols * 4)):  # fmt: skip
            pipe.init_buffer(queue, 1, nbytes)
        a_panel, b_panel = a1.alloc_tensor(np.float16), b1.alloc_tensor(np.float16)
        npu.data_copy_nd2nz(a_panel, a[npu.block_idx() * rows * depth], rows, depth, depth)
        npu.data_copy_nd2nz(b_panel, b, depth, cols, cols)
        a1.enque(a_panel)
        b1.enque(b_panel)
        a_panel, b_panel = a1.deque(), b1.deque()
        a_l0, b_l0 = a2.alloc_tensor(np.float16), b2.alloc_tensor(np.float16)
        npu.load_data(a_l0, a_panel, rows * depth)
        npu.load_data(b_l0, b_panel, depth * cols)
        a2.enque(a_l0)
        b2.enque(b_l0)
        a1.free_tensor(a_panel)
        b1.free_tensor(b_panel)
        a_l0, b_l0 = a2.deque(), b2.deque()
        c_l0 = c1.alloc_tensor(np.float32)
        npu.mmad(c_l0, a_l0, b_l0, rows, depth, cols)
        a2.free_tensor(a_l0)
        b2.free_tensor(b_l0)
        c1.enque(c_l0)
        c_l0 = c1.deque()
        npu.fixpipe(workspace[tile], c_l0, rows, cols, cols)
        c1.free_tensor(c_l0)
        npu.cross_core_set_flag(0, mode=2, pipe="FIX")
    else:
        half = rows // 2 * cols
        start = tile + npu.sub_block_idx() * half
        pipe = npu.TPipe()
        in_q, out_q = npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
        pipe.init_buffer(in_q, 1, half * 4)
        pipe.init_buffer(out_q, 1, half * 4)
        npu.cross_core_wait_flag(0, mode=2, pipe="MTE2")
        x = in_q.alloc_tensor(np.float32)
        npu.data_copy(x, workspace[start], half)
        in_q.enque(x)
        x = in_q.deque()
        y = out_q.alloc_tensor(np.float32)
        npu.relu(y, x, half)
        out_q.enque(y)
        in_q.free_tensor(x)
        y = out_q.deque()
        npu.data_copy(c[start], y, half)
        out_q.free_tensor(y)

"""Chapter 11: the Da Vinci NPU, graded on what the pipes did.

Each task runs on the NPU simulator. The grader launches the student's kernel (or a kernel
of its own built on the student's function) on random inputs with the sanitizer on,
compares with numpy, and reads the per-pipe timeline: the cycles against a budget, which
pipes worked at the same time, how many DMAs ran. Wall time is never graded. Four tasks:

1. ``scaled_add``: ``z = alpha * x + y`` in f16 over every block, CopyIn / Compute /
   CopyOut through ``TQue`` queues of two buffers each, so that the copies of one tile
   run while the vector unit computes another; within 10% of the reference's cycles.
2. ``flagged_copy_scale``: ``y = scale * x`` with no queues: two UB buffers used in turn
   and every ``set_flag`` / ``wait_flag`` written by hand, so that the sanitizer finds
   nothing and the pipes still overlap (within 10% of the reference's cycles).
3. ``choose_tile``: the tile length of a streaming kernel: 32-byte aligned, dividing the
   elements, every queue's buffers in the UB, and the fewest DMAs.
4. ``a_slice_copy`` and ``b_slice_copy``: the ``load_data`` parameters that move one
   k-slice of an A or B panel from L1 into L0A / L0B, both in the NZ fractal layout.

Fill in each TODO, then run ``tinycomp grade ch11``; keep the TODO comment lines, the
grader takes each task's title from them. ``chapters/11_davinci_npu.ipynb`` shows the
pipes, the queues and the flags they stand for, the sanitizer and the NZ layout these
tasks are about.
"""

from __future__ import annotations

import math  # noqa: F401

import numpy as np

# The building blocks the tasks need are imported for you ("noqa: F401" keeps the linter
# quiet about the names your code does not use yet).
from tinycomp import npu

__all__ = [
    "BUFFER_NUM",
    "FRACTAL",
    "TILE",
    "a_slice_copy",
    "b_slice_copy",
    "choose_tile",
    "flagged_copy_scale",
    "scaled_add",
]

TILE = 2048
"""The tile of tasks 1 and 2, in f16 elements (4 KiB): the elements one DMA moves."""
BUFFER_NUM = 2
"""Buffers per queue in task 1: two is double buffering."""
FRACTAL = 16
"""The side of an f16 fractal of the NZ layout (task 4): 16 x 16 elements, 512 bytes."""


# -- Task 11.1 ---------------------------------------------------------------------------
@npu.kernel
def scaled_add(x, y, z, alpha):
    """``z = alpha * x + y``, elementwise, on every vector core of the launch.

    **Input.** ``x``, ``y``: float16 arrays of the same size; ``z``: float16, holding
    garbage; ``alpha``: a Python ``float`` (the kernel is specialised to it). The size is a
    multiple of ``block_num * TILE``. **Launch:** ``npu.launch(scaled_add, (x, y, z,
    alpha), block_num=b, preset=...)``: block ``i`` owns the ``i``-th of ``b`` equal,
    contiguous shares of the arrays.

    **Output.** ``z = alpha * x + y`` (computed in f16: within f16 rounding of numpy's).

    **How.** Ascend C's three stages, ``TILE`` elements at a time: CopyIn (GM -> UB on
    MTE2 into ``TQue(VECIN)`` buffers), Compute (the vector unit, into a
    ``TQue(VECOUT)`` buffer), CopyOut (UB -> GM on MTE3), each queue given
    ``BUFFER_NUM = 2`` buffers of ``TILE`` f16 by ``pipe.init_buffer``; the loop over
    tiles is ``npu.range``, so the buffers alternate.

    **Budget:** the sanitizer is on and must stay quiet; while the vector unit computes a
    tile, the copy-in of the next one is under way (double buffering: it is read from
    the timeline); at most 10% more cycles than the reference: 7816 cycles for 65536
    elements on ``small`` with 4 blocks, 3718 for 131072 on ``910b2`` with 8.

    **Example.** ``x = y = ones(4 * TILE)``, ``alpha = 2.0`` on 4 blocks: each block
    copies one tile of each in, and ``z`` is all 3.
    """
    # TODO(Task 11.1): a double-buffered z = alpha * x + y through queues
    raise NotImplementedError("Task 11.1: write scaled_add: CopyIn, Compute, CopyOut via TQue")


# -- Task 11.2 ---------------------------------------------------------------------------
@npu.kernel
def flagged_copy_scale(x, y, scale):
    """``y = scale * x`` through two UB buffers used in turn, synchronised by hand.

    **Input.** ``x``: float16, its size a multiple of ``block_num * 2 * TILE``; ``y``:
    float16, holding garbage; ``scale``: a Python ``float``. **Launch:** as task 1: block
    ``i`` owns the ``i``-th equal, contiguous share.

    **Output.** ``y = scale * x`` (in f16).

    **How.** No ``TQue``: the kernel's UB is one ``TBuf`` of two tiles, ``ping`` and
    ``pong``; tile ``t`` of a block goes through buffer ``t % 2``: copied in (MTE2),
    scaled in place (V), copied out (MTE3). Each of those pipes runs its own queue of
    instructions, so two of them touching the same bytes happen in the program's order
    only if a flag orders them: ``npu.set_flag(src, dst, event)`` on ``src`` after the
    first, ``npu.wait_flag(src, dst, event)`` on ``dst`` before the second (event ids
    0-7 for each pair of pipes). The loop, the copies and the vector op are written; you
    write the flags.

    **What is checked.** The sanitizer is quiet: no pipe touches bytes another pipe is
    still reading or writing (a hazard), no wait without a set (a deadlock), no flag set
    twice before its wait; every flag the kernel sets has been waited for when it ends
    (else the next kernel on the core finds it set). The result equals numpy's. And the
    pipes overlap: at most 10% more cycles than the reference (7042 cycles for 65536
    elements on ``small`` with 4 blocks, 4872 for 131072 on ``910b2`` with 8), so one
    buffer must be filled while the other is scaled and copied out; a
    ``pipe_barrier("ALL")`` between the steps is too slow.

    **Example.** With one block and ``x.size == 2 * TILE``, the loop runs once: tile 0
    in ``ping``, tile 1 in ``pong``.
    """
    # TODO(Task 11.2): place the set_flag / wait_flag calls of a hand-made ping-pong
    raise NotImplementedError("Task 11.2: add the flags (then delete this line)")
    per_core = x.size // npu.block_num()
    pipe = npu.TPipe()
    ub = npu.TBuf()
    pipe.init_buffer(ub, 2 * TILE * 2)
    ping = ub.get(np.float16)
    pong = ping[TILE]
    start = npu.block_idx() * per_core
    for pair in npu.range(per_core // (2 * TILE)):
        for slot, tile in enumerate((ping, pong)):  # a Python loop: traced twice
            offset = start + (2 * pair + slot) * TILE
            npu.data_copy(tile, x[offset], TILE)
            npu.muls(tile, tile, scale, TILE)
            npu.data_copy(y[offset], tile, TILE)


# -- Task 11.3 ---------------------------------------------------------------------------
def choose_tile(n: int, dtype, ub_bytes: int, queues: int, buffer_num: int) -> int:
    """The tile length, in elements, of a streaming kernel that makes the fewest DMAs.

    **Input.** ``n``: the elements one core streams through each queue (``n`` times the
    element size is a multiple of 32 bytes); ``dtype``: the element type (a numpy dtype
    or type of 1, 2 or 4 bytes); ``ub_bytes``: the UB's size; ``queues``: the kernel's
    ``TQue`` queues (its inputs and its output), each given ``buffer_num`` buffers of one
    tile (``pipe.init_buffer(queue, buffer_num, tile * itemsize)``), placed one after the
    other in UB.

    **Output.** The tile ``t`` such that: ``t * itemsize`` is a multiple of 32 (every DMA
    and every on-chip address is 32-byte aligned); ``t`` divides ``n`` (every tile is
    full: there is no tail); ``queues * buffer_num * t * itemsize <= ub_bytes`` (the
    buffers fit); and, of all such tiles, the one with the fewest DMAs (the kernel makes
    ``queues * n / t`` of them). A tile always exists for the inputs graded.

    **Example.** ``choose_tile(24576, np.float32, 32768, 3, 2) == 1024``: six buffers of
    1365 f32 would fit the 32 KiB, but a tile must be a multiple of 8 f32 and divide
    24576, and 1024 is the largest that does: 3 x 24 = 72 DMAs.
    """
    # TODO(Task 11.3): the tile with the fewest DMAs that fits the UB
    raise NotImplementedError("Task 11.3: choose the tile length")


# -- Task 11.4 ---------------------------------------------------------------------------
def a_slice_copy(step: int, m: int, l1_k: int, l0_k: int) -> tuple[int, int, int, int]:
    """The ``npu.load_data`` that moves k-slice ``step`` of an A panel from L1 to L0A.

    **Input.** An ``m x l1_k`` f16 panel of A (``m`` rows of the matrix, ``l1_k`` of its
    columns) sits in L1 in NZ: ``[l1_k / 16, m, 16]``, fractal column block after fractal
    column block, each ``m x 16`` block row by row (``nz_layout`` in the chapter).
    ``m``, ``l1_k`` and ``l0_k`` are multiples of 16 and ``l0_k`` divides ``l1_k``; ``0 <=
    step < l1_k / l0_k``.

    **Output.** ``(offset, n_burst, burst_len, src_stride)``, all in elements: the copy
    ``load_data(l0a, panel[offset], burst_len, n_burst=n_burst, src_stride=src_stride)``
    (its ``n_burst`` runs of ``burst_len`` elements, ``src_stride`` apart in L1, land one
    after the other in L0A) leaves in L0A the ``m x l0_k`` slice of columns ``step * l0_k``
    to ``(step + 1) * l0_k - 1``, in NZ ``[l0_k / 16, m, 16]``, what ``mmad`` reads. With a
    single burst ``src_stride`` is not used: give ``burst_len``.

    **Example.** ``a_slice_copy(1, 32, 128, 32)``: the slice is column blocks 2 and 3,
    which lie side by side in L1: ``(2048, 1, 1024, 1024)``.
    """
    # TODO(Task 11.4): the L1 -> L0 copies of NZ k-slices
    raise NotImplementedError("Task 11.4: the load_data parameters of A's k-slice")


def b_slice_copy(step: int, n: int, l1_k: int, l0_k: int) -> tuple[int, int, int, int]:
    """The ``npu.load_data`` that moves k-slice ``step`` of a B panel from L1 to L0B.

    **Input.** An ``l1_k x n`` f16 panel of B (``l1_k`` rows of the matrix, ``n`` of its
    columns) sits in L1 in NZ: ``[n / 16, l1_k, 16]``: for each block of 16 columns, its
    ``l1_k`` rows of 16, one after the other. ``n``, ``l1_k`` and ``l0_k`` are multiples of
    16, ``l0_k`` divides ``l1_k``, ``0 <= step < l1_k / l0_k``.

    **Output.** ``(offset, n_burst, burst_len, src_stride)`` in elements, as for
    ``a_slice_copy``, such that L0B holds the ``l0_k x n`` slice of rows ``step * l0_k``
    to ``(step + 1) * l0_k - 1`` in NZ ``[n / 16, l0_k, 16]``.

    **Example.** ``b_slice_copy(1, 64, 128, 32)``: rows 32-63 of each of the 4 column
    blocks: ``(512, 4, 512, 2048)``.
    """
    # TODO(Task 11.4): the L1 -> L0 copies of NZ k-slices
    raise NotImplementedError("Task 11.4: the load_data parameters of B's k-slice")

"""``tinycomp.npu``: Ascend-C-style kernels on the simulated Da Vinci NPU.

Write a kernel with the DSL's names (``TPipe``, ``TQue``, ``data_copy``, ``add``,
``mmad``, ``set_flag``...), launch it with ``launch(kernel, args, block_num,
preset="910b2")``: the kernel is traced into npu IR for the arguments, every core runs
it on numpy with the sanitizer on, the per-pipe timeline is scheduled, and the arrays
are written back in place. The result has the cycles, each pipe's share, the bound,
``gantt()`` and ``chrome_trace()``.

>>> from tinycomp import npu
>>> npu.VECIN, sorted(npu.NPU_PRESETS)
('VECIN', ['910b2', 'small'])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from tinycomp.frontend.npu import NpuKernel, NpuKernelError, kernel
from tinycomp.frontend.npu.control import (
    block_idx,
    block_num,
    cross_core_set_flag,
    cross_core_wait_flag,
    if_,
    is_aic,
    is_aiv,
    pipe_barrier,
    range,
    set_flag,
    sub_block_idx,
    sub_block_num,
    wait_flag,
)  # fmt: skip
from tinycomp.frontend.npu.data_ops import (
    data_copy,
    data_copy_nd2nz,
    data_copy_pad,
    fixpipe,
    load_data,
    mmad,
)  # fmt: skip
from tinycomp.frontend.npu.queues import TBuf, TPipe, TQue
from tinycomp.frontend.npu.scalar import minimum
from tinycomp.frontend.npu.vector_ops import (
    abs,
    add,
    adds,
    cast,
    div,
    duplicate,
    exp,
    ln,
    max,
    maxs,
    min,
    mins,
    mul,
    muls,
    reciprocal,
    reduce_max,
    reduce_min,
    reduce_sum,
    relu,
    sqrt,
    sub,
)  # fmt: skip
from tinycomp.ir import Operation
from tinycomp.npu.result import NpuLaunchResult
from tinycomp.targets.npu_sim.errors import (
    NpuArgumentError,
    NpuLaunchError,
    NpuSanitizerError,
    NpuSimulatorError,
)  # fmt: skip
from tinycomp.targets.npu_sim.preset import NPU_PRESETS, NpuPreset, lookup_npu_preset
from tinycomp.targets.npu_sim.simulator import simulate

VECIN, VECOUT, VECCALC = "VECIN", "VECOUT", "VECCALC"
A1, B1, A2, B2, CO1 = "A1", "B1", "A2", "B2", "CO1"


def launch(
    kernel: NpuKernel | Operation | str,
    args: Sequence[Any],
    block_num: int,
    preset: str | NpuPreset = "910b2",
    *,
    sanitize: bool = True,
    name: str | None = None,
) -> NpuLaunchResult:
    """Run ``kernel`` (a DSL kernel, or a module of npu IR, or its text) on ``block_num``
    blocks of ``preset``, writing the arrays of ``args`` in place.

    >>> import numpy as np
    >>> @kernel
    ... def fill(y):
    ...     pipe = TPipe()
    ...     out = TQue(VECOUT)
    ...     pipe.init_buffer(out, 1, 256)
    ...     t = out.alloc_tensor(np.float32)
    ...     duplicate(t, 7.0, 64)
    ...     out.enque(t)
    ...     t = out.deque()
    ...     data_copy(y[block_idx() * 64], t, 64)
    ...     out.free_tensor(t)
    >>> y = np.zeros(128, np.float32)
    >>> _ = launch(fill, (y,), block_num=2, preset="small")
    >>> float(y.sum())
    896.0
    """
    if isinstance(kernel, NpuKernel):
        module = kernel.specialize(*args)
        runtime_args = [a for a in args if isinstance(a, (np.ndarray, np.generic))]
    else:
        from tinycomp.ir import parse

        module = parse(kernel) if isinstance(kernel, str) else kernel
        runtime_args = list(args)
    run = simulate(module, runtime_args, block_num, preset, kernel=name, sanitize=sanitize)
    return NpuLaunchResult(run, module)


__all__ = [
    "A1", "A2", "B1", "B2", "CO1", "NPU_PRESETS", "VECCALC", "VECIN", "VECOUT", "NpuArgumentError",
    "NpuKernel", "NpuKernelError", "NpuLaunchError", "NpuLaunchResult", "NpuPreset",
    "NpuSanitizerError", "NpuSimulatorError", "TBuf", "TPipe", "TQue", "abs", "add", "adds",
    "block_idx", "block_num", "cast", "cross_core_set_flag", "cross_core_wait_flag",
    "data_copy", "data_copy_nd2nz", "data_copy_pad", "div", "duplicate", "exp", "fixpipe",
    "if_", "is_aic", "is_aiv", "kernel", "launch", "ln", "load_data", "lookup_npu_preset",
    "max", "maxs", "min", "mins", "minimum", "mmad", "mul", "muls", "pipe_barrier", "range",
    "reciprocal", "reduce_max", "reduce_min", "reduce_sum", "relu", "set_flag", "sqrt", "sub",
    "sub_block_idx", "sub_block_num", "wait_flag",
]  # fmt: skip

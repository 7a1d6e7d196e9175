"""``tinycomp.gpu``: CUDA-style kernels in Python, run on a simulated GPU.

Write a kernel with the names below (``thread_idx``, ``shared.array``, ``syncthreads``,
``shfl_down_sync``, ``atomic.add``...), launch it on numpy arrays with ``launch``, and
read what happened: the results are in your arrays, ``result.counters`` says what the
warps did (instructions, sectors, bank conflicts, divergence), ``result.occupancy`` how
many blocks fit on an SM, and ``result.estimate`` how long a real GPU (a preset: ``h100``,
``a100``, ``a6000`` or the small ``classroom``) would take, and why. Importing it also
lets ``tinycomp.interpret`` run host code that calls ``gpu.launch_func``.

>>> import numpy as np
>>> from tinycomp import gpu
>>> @gpu.kernel
... def add(x, y, out, n):
...     i = gpu.block_idx.x * gpu.block_dim.x + gpu.thread_idx.x
...     if i < n:
...         out[i] = x[i] + y[i]
>>> x, y = np.ones(100, np.float32), np.arange(100, dtype=np.float32)
>>> out = np.zeros_like(x)
>>> result = gpu.launch(add, grid=4, block=32, args=(x, y, out, 100))
>>> bool(np.array_equal(out, x + y)), sorted(gpu.PRESETS)
(True, ['a100', 'a6000', 'classroom', 'h100'])
"""

from tinycomp.frontend.simt import *  # noqa: F403  (the kernel DSL's names)
from tinycomp.frontend.simt import __all__ as _dsl_names
from tinycomp.gpu.devices import DeviceUnavailable, device_unavailable
from tinycomp.gpu.launch import LaunchResult, launch
from tinycomp.gpu.ptx import PtxKernel, to_ptx
from tinycomp.targets.gpu_sim import interp_rule as _interp_rule
from tinycomp.targets.gpu_sim.errors import *  # noqa: F403
from tinycomp.targets.gpu_sim.errors import __all__ as _error_names
from tinycomp.targets.gpu_sim.preset import PRESETS, GpuPreset, lookup_preset

_interp_rule.register()  # tinycomp.interpret runs gpu.launch_func on the simulator

__all__ = [
    *_dsl_names,
    *_error_names,
    "DeviceUnavailable",
    "GpuPreset",
    "LaunchResult",
    "PRESETS",
    "PtxKernel",
    "device_unavailable",
    "launch",
    "lookup_preset",
    "to_ptx",
]

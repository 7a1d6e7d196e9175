"""The Ascend-C-style NPU kernel DSL: a Python function that records npu IR.

* ``trace.py``: the trace a kernel records into, its source lines, ``NpuKernelError``;
* ``scalar.py``: Python numbers at trace time, recorded ``index`` values otherwise;
* ``tensors.py``: ``GlobalTensor`` (GM) and ``LocalTensor`` (on-chip);
* ``queues.py``: ``TPipe``, ``TQue``, ``TBuf``, and the flags queues stand for;
* ``data_ops.py``: ``data_copy`` and the other DMAs, ``mmad``;
* ``vector_ops.py``: the vector instructions in count and repeat form;
* ``control.py``: ``npu.range``, ``npu.if_``, the ids, flags by hand;
* ``kernel.py``: ``@npu.kernel`` and ``specialize``.

``tinycomp.npu`` is the public face of all of it, with ``launch``.
"""

from tinycomp.frontend.npu.kernel import NpuKernel, kernel
from tinycomp.frontend.npu.trace import NpuKernelError

__all__ = ["NpuKernel", "NpuKernelError", "kernel"]

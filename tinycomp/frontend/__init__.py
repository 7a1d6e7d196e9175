"""The tracing frontend: numpy-like Python functions to tensor IR.

``trace(fn, *examples)`` calls ``fn`` with traced ``Tensor`` objects; their operators
and the functions below record ``linalg`` ops on tensors (with ``arith``/``math``
payloads) and ``tensor`` reshapes into ``func.func @main``, which the reference
interpreter runs. ``conv2d`` is ``linalg.conv_2d_nhwc_hwcf`` (after ``tensor.pad``);
``nn`` holds compositions (``softmax``, ``layernorm``, ``attention``, ``mlp2``).

>>> import numpy as np
>>> from tinycomp.frontend import trace, exp
>>> def softmax(x):
...     e = exp(x - x.max(axis=-1, keepdims=True))
...     return e / e.sum(axis=-1, keepdims=True)
>>> module = trace(softmax, np.zeros((2, 4), np.float32))
>>> from tinycomp.interp import interpret
>>> x = np.random.default_rng(0).standard_normal((2, 4)).astype(np.float32)
>>> np.allclose(interpret(module, x).sum(axis=-1), 1.0)
True
"""

from tinycomp.frontend.compare import greater, less, where
from tinycomp.frontend.conv import conv2d
from tinycomp.frontend.elementwise import (
    add,
    divide,
    exp,
    log,
    maximum,
    multiply,
    negative,
    rsqrt,
    sqrt,
    subtract,
    tanh,
)
from tinycomp.frontend.nn import attention, gelu, layernorm, mlp2, rmsnorm, softmax
from tinycomp.frontend.reductions import matmul, max, mean, sum
from tinycomp.frontend.shapes import reshape, transpose
from tinycomp.frontend.tensor import Tensor, TraceError
from tinycomp.frontend.tracer import TensorSpec, trace

__all__ = [
    "Tensor",
    "TensorSpec",
    "TraceError",
    "add",
    "attention",
    "conv2d",
    "divide",
    "exp",
    "gelu",
    "greater",
    "layernorm",
    "less",
    "log",
    "matmul",
    "max",
    "maximum",
    "mean",
    "mlp2",
    "multiply",
    "negative",
    "reshape",
    "rmsnorm",
    "rsqrt",
    "softmax",
    "sqrt",
    "subtract",
    "sum",
    "tanh",
    "trace",
    "transpose",
    "where",
]

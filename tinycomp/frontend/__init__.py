"""The tracing frontend: numpy-like Python functions to tensor IR.

``trace(fn, *examples)`` calls ``fn`` with traced ``Tensor`` objects; their operators
and the functions below record ``linalg`` ops on tensors (with ``arith``/``math``
payloads) into ``func.func @main``, which the reference interpreter runs.

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

from tinycomp.frontend.elementwise import (
    add,
    divide,
    exp,
    log,
    maximum,
    multiply,
    negative,
    sqrt,
    subtract,
    tanh,
)
from tinycomp.frontend.reductions import matmul, max, mean, sum
from tinycomp.frontend.tensor import Tensor, TraceError
from tinycomp.frontend.tracer import TensorSpec, trace

__all__ = [
    "Tensor",
    "TensorSpec",
    "TraceError",
    "add",
    "divide",
    "exp",
    "log",
    "matmul",
    "max",
    "maximum",
    "mean",
    "multiply",
    "negative",
    "sqrt",
    "subtract",
    "sum",
    "tanh",
    "trace",
]

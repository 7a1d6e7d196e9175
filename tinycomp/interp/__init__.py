"""The numpy reference interpreter: runs tinycomp IR at every level, the oracle for
every numeric test.

``interpret(module, *arrays, entry="main")`` runs one function on numpy inputs. It
walks the ops in order (``Interpreter``), applying one *rule* per op name, taken from
one table per dialect (``tinycomp/interp/rules/``): arith, math, func, cf, scf, affine,
memref, tensor, linalg, bufferization. Semantics follow MLIR exactly where it matters
for an oracle: integers wrap at their width, floats are computed and rounded in their
own type, and undefined behaviour (division by zero, out-of-bounds or uninitialised
reads, use after free) is an ``InterpreterError`` that names the op, its line, the
value and the index, instead of a made-up number.

>>> import numpy as np
>>> softmax_row = '''
... func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
...   %e = tensor.empty() : tensor<4xf32>
...   %exp = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> (i)>],
...                          iterator_types = ["parallel"]}
...       ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
...   ^bb0(%in: f32, %out: f32):
...     %v = math.exp %in : f32
...     linalg.yield %v : f32
...   } -> tensor<4xf32>
...   return %exp : tensor<4xf32>
... }'''
>>> x = np.array([0.0, 1.0, 2.0, 3.0], np.float32)
>>> np.allclose(interpret(softmax_row, x, verify=False), np.exp(x))
True

Memref arguments are the caller's arrays, written in place; tensor arguments are copied
(tensors are values). See ``arguments.py`` for the exact rules. ``run_bufferized``
(``bufferized.py``) calls a bufferized function the way its caller must, allocating the
out-params its signature marks.
"""

from tinycomp.interp.arguments import interpret, memref_from_array
from tinycomp.interp.bufferized import run_bufferized
from tinycomp.interp.control import Branch, Exit
from tinycomp.interp.errors import InterpreterError
from tinycomp.interp.interpreter import Interpreter
from tinycomp.interp.linalg_engine import LinalgProblem
from tinycomp.interp.memory import Buffer, MemRefValue
from tinycomp.interp.tensors import PartialTensor

__all__ = [
    "Branch",
    "Buffer",
    "Exit",
    "Interpreter",
    "InterpreterError",
    "LinalgProblem",
    "MemRefValue",
    "PartialTensor",
    "interpret",
    "memref_from_array",
    "run_bufferized",
]

"""Testing support shared by the test suites: the kernel catalogue and its tolerances.

``KERNELS`` holds the tensor programs every compiler stage is checked on (softmax,
layernorm, rmsnorm, matmul, batch_matmul, conv2d, attention, mlp2), each with random
inputs and a float64 numpy reference; ``check_against_reference`` compares a kernel's
output with that reference within ``TOLERANCES[dtype]``.

>>> import numpy as np
>>> from tinycomp.interp import interpret
>>> kernel = KERNELS["softmax"]
>>> inputs = kernel.make_inputs(np.random.default_rng(0), "f16")
>>> outputs = interpret(kernel.trace("f16"), *inputs)
>>> check_against_reference(kernel, outputs, inputs, "f16") < TOLERANCES["f16"][1]
True
"""

from tinycomp.testing.kernels import KERNELS, Kernel, Operand
from tinycomp.testing.tolerances import (
    DTYPES,
    TOLERANCES,
    check_against_reference,
    dtype_name,
    numpy_dtype,
)

__all__ = [
    "DTYPES",
    "KERNELS",
    "TOLERANCES",
    "Kernel",
    "Operand",
    "check_against_reference",
    "dtype_name",
    "numpy_dtype",
]

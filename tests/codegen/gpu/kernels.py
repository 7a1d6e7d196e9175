"""The kernels the GPU code generation is checked on: the DSL's test kernels and the
SGEMM worklog's, each specialised for its example arguments and cleaned up as
``gpu.launch`` does before it runs them."""

from __future__ import annotations

from functools import cache

import numpy as np

from tests.frontend.simt.kernels import KERNELS
from tinycomp.gpu.cleanup import cleaned_up
from tinycomp.ir.operation import Operation
from tinycomp.testing.sgemm_worklog import SGEMM_KERNELS

SGEMM_SIZE = 128
"""M = N = K of the SGEMM kernels' example arguments (a multiple of every kernel's tile)."""

NAMES = [*KERNELS, *(f"sgemm_{k.name}" for k in SGEMM_KERNELS)]
"""Every kernel checked, by name."""


def _sgemm_args() -> tuple:
    rng = np.random.default_rng(11)
    n = SGEMM_SIZE
    a, b, c = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
    return a, b, c, np.int32(n), np.int32(n), np.int32(n), np.float32(1.5), np.float32(0.5)


@cache
def _kernel_text(name: str) -> str:
    if name.startswith("sgemm_"):
        (entry,) = [k for k in SGEMM_KERNELS if k.name == name.removeprefix("sgemm_")]
        module = entry.kernel.specialize(*_sgemm_args())
    else:
        kernel, make_args = KERNELS[name]
        module = kernel.specialize(*make_args())
    return str(cleaned_up(module))


def kernel_module(name: str) -> Operation:
    """A fresh copy of kernel ``name``'s cleaned-up module."""
    from tinycomp.ir import parse

    return parse(_kernel_text(name))


def kernel_function_name(name: str) -> str:
    """The ``gpu.func``'s symbol: the kernel's Python name."""
    return name.removeprefix("sgemm_")

"""Shared helpers of the code generation tests: JIT a module, run it against the
interpreter on the same inputs.

``run_both(text, *inputs)`` compiles MLIR text with ``jit`` and runs ``@f`` natively
and in the reference interpreter (``run_bufferized``: out-params are allocated by the
caller in both), returning both results so a test can compare them.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from tinycomp.codegen.cpu import jit
from tinycomp.interp import run_bufferized

BF16 = np.dtype(ml_dtypes.bfloat16)
MLIR_DTYPES = {"f32": np.dtype(np.float32), "f16": np.dtype(np.float16), "bf16": BF16}
ULP_TOLERANCE = {"f32": 2e-6, "f16": 2e-3, "bf16": 1.6e-2}
"""About two units in the last place of each float type, relative."""


def run_both(text: str, *inputs: Any, opt_level: int = 1, entry: str = "f") -> tuple[Any, Any]:
    """``@entry`` of ``text`` on ``inputs``, JIT-compiled and interpreted."""
    native = jit(text, opt_level=opt_level)[entry].run(*inputs)
    reference = run_bufferized(text, *inputs, entry=entry)
    return native, reference


def as_float64(value: Any) -> np.ndarray:
    """Any float array (bf16 included) as float64, for comparisons."""
    return np.asarray(value).astype(np.float64)

"""npu IR as real MLIR reads it: the kernels the DSL records, printed by tinycomp, are
accepted by ``mlir-opt-22 --allow-unregistered-dialect`` (string memory spaces are ones
MLIR takes for a dialect it does not know), and MLIR's generic re-print parses back
into the same IR."""

from __future__ import annotations

import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp import parse
from tinycomp.ir.equality import first_difference
from tinycomp.testing.npu_kernels import matmul_relu, softmax_rows, vector_add

F16 = np.float16


def modules():
    x = np.zeros(8192, F16)
    a, b = np.zeros((256, 64), F16), np.zeros((64, 256), F16)
    w = np.zeros((256, 256), np.float32)
    s = np.zeros((37, 128), np.float32)
    return {
        "vector_add": vector_add.specialize(x, x, x, 2048, 2),
        "matmul_relu": matmul_relu.specialize(a, b, w, w),
        "softmax_rows": softmax_rows.specialize(s, s, 4, 2),
    }


@requires_mlir_opt
@pytest.mark.parametrize("name", ["vector_add", "matmul_relu", "softmax_rows"])
def test_mlir_opt_accepts_the_kernels_and_its_reprint_parses_back(name):
    module = modules()[name]
    generic = run_mlir_opt(str(module), "--verify-each", "--mlir-print-op-generic")
    assert first_difference(parse(generic), module) is None

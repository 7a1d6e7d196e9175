"""Performance models: how fast can a kernel possibly run, and what limits it?"""

from tinycomp.perf.kernel_cost import kernel_cost, kernel_costs, program_bytes
from tinycomp.perf.roofline import (
    A100_FP32,
    H100_FP32,
    H100_TENSOR_FP16,
    KernelCost,
    Machine,
    matmul_cost,
    softmax_cost,
)
from tinycomp.perf.roofline_table import roofline_table

__all__ = [
    "A100_FP32",
    "H100_FP32",
    "H100_TENSOR_FP16",
    "KernelCost",
    "kernel_cost",
    "kernel_costs",
    "Machine",
    "matmul_cost",
    "program_bytes",
    "roofline_table",
    "softmax_cost",
]

"""A machine's roofline as text: each kernel's intensity, bound and attainable rate.

The picture of the same roofline is ``tinycomp.viz.roofline_picture``; this table is its
text twin, and what a notebook compares.
"""

from __future__ import annotations

from collections.abc import Sequence

from tinycomp.perf.roofline import KernelCost, Machine

__all__ = ["roofline_table"]


def roofline_table(machine: Machine, kernels: Sequence[KernelCost]) -> str:
    """The text twin: one row per kernel with its intensity, bound and attainable rate.

    >>> from tinycomp.perf.roofline import A100_FP32, softmax_cost
    >>> print(roofline_table(A100_FP32, [softmax_cost(1024, 1024)]))
    roofline of A100 (FP32): peak 19.5 TFLOP/s, 2.04 TB/s, ridge at 9.56 FLOP/byte
      kernel             FLOP/byte  bound    attainable TFLOP/s
      softmax 1024x1024      0.625  memory                1.275
    """
    lines = [
        f"roofline of {machine.name}: peak {machine.peak_flops / 1e12:g} TFLOP/s, "
        f"{machine.bandwidth / 1e12:g} TB/s, ridge at {machine.ridge_point:.3g} FLOP/byte"
    ]
    width = max([len("kernel"), *(len(kernel.name) for kernel in kernels)])
    lines.append(f"  {'kernel':<{width}}  FLOP/byte  bound    attainable TFLOP/s")
    for kernel in kernels:
        attainable = machine.attainable(kernel.intensity) / 1e12
        lines.append(
            f"  {kernel.name:<{width}}  {kernel.intensity:9.4g}  "
            f"{machine.bound(kernel.intensity):<7}  {attainable:18.4g}"
        )
    return "\n".join(lines)

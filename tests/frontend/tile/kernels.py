"""The kernels of Triton's tutorials in the tile DSL, shared by the tests (they live in
``tinycomp.testing.tile_tutorials``, where the benchmarks find them too)."""

from tinycomp.testing.tile_tutorials import (
    add_kernel,
    attention_fwd,
    layer_norm_fwd,
    matmul_kernel,
    softmax_kernel,
)

__all__ = ["add_kernel", "attention_fwd", "layer_norm_fwd", "matmul_kernel", "softmax_kernel"]

"""The cleanup ``gpu.launch`` runs before simulating: valid IR for ``mlir-opt-22``,
barriers and warp ops kept in place, the kernel's own IR left as written."""

from __future__ import annotations

import pytest
from frontend.simt import kernels
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp import gpu
from tinycomp.gpu.cleanup import cleaned_up
from tinycomp.ir import ir_equal, print_ir

from .launches import LAUNCHES


def _names(module) -> list[str]:
    return [op.name for op in module.walk()]


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("name", sorted(kernels.KERNELS))
def test_mlir_opt_accepts_every_kernel_after_the_cleanup(name):
    kernel, make_args = kernels.KERNELS[name]
    clean = cleaned_up(kernel.specialize(*make_args()))
    run_mlir_opt(print_ir(clean), "--verify-each")
    run_mlir_opt(print_ir(clean, generic=True), "--verify-each")


@pytest.mark.parametrize("name", sorted(kernels.KERNELS))
def test_the_cleanup_keeps_every_convergent_op_under_the_same_parent(name):
    kernel, make_args = kernels.KERNELS[name]
    written = kernel.specialize(*make_args())
    clean = cleaned_up(written)

    def convergent(module):
        found = []
        for op in module.walk():
            if op.is_convergent and not op.regions:
                found.append((op.name, op.parent_op().name, op.location.line))
        return found

    assert convergent(clean) == convergent(written)
    assert sum(1 for _ in clean.walk()) <= sum(1 for _ in written.walk())


def test_launch_result_holds_the_cleaned_ir_and_the_kernel_is_unchanged():
    args = kernels.matmul_args()
    written = kernels.matmul_tiled.specialize(*args)
    plan = LAUNCHES["matmul_tiled"]
    optimized = gpu.launch(kernels.matmul_tiled, plan.grid(args), plan.block, args)
    as_written = gpu.launch(
        kernels.matmul_tiled, plan.grid(args), plan.block, kernels.matmul_args(), optimize=False
    )
    assert ir_equal(as_written.module, written)
    assert ir_equal(optimized.module, cleaned_up(written))
    assert not ir_equal(optimized.module, written)
    assert _names(optimized.module).count("gpu.barrier") == 2
    # A.shape[0] was read inside the tile loop; the cleanup reads it once, before the loop
    loop = next(op for op in optimized.module.walk() if op.name == "scf.for")
    assert "memref.dim" not in [op.name for op in loop.regions[0].entry_block.ops]
    assert optimized.registers.registers <= as_written.registers.registers


def test_a_gpu_func_given_directly_is_cleaned_up_with_its_module():
    args = kernels.matmul_args()
    written = kernels.matmul_tiled.specialize(*args)
    func = next(op for op in written.walk() if op.name == "gpu.func")
    plan = LAUNCHES["matmul_tiled"]
    result = gpu.launch(func, plan.grid(args), plan.block, args)
    assert result.module.name == "builtin.module"
    assert ir_equal(result.module, cleaned_up(written))
    assert sum(1 for _ in result.module.walk()) < sum(1 for _ in written.walk())

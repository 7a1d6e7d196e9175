"""The traced IR of tile kernels: one ``func.func`` per program instance, linalg on
tensors, ``tile.load``/``tile.store`` as the only memory edges, ``scf.for`` with carried
values; it prints, parses back equal, and real ``mlir-opt-22`` verifies it."""

import ml_dtypes
import numpy as np
import pytest
from ir.mlir_opt import requires_mlir_opt, run_mlir_opt

from tinycomp import parse, tile
from tinycomp.ir.effects import memory_effects
from tinycomp.ir.equality import first_difference

from .kernels import (
    add_kernel,
    attention_fwd,
    layer_norm_fwd,
    matmul_kernel,
    softmax_kernel,
)


def _f32(*shape):
    return np.zeros(shape, np.float32)


def _specializations():
    x = _f32(64)
    h = np.zeros((8, 8), np.float16)
    bf = np.zeros((8, 8), ml_dtypes.bfloat16)
    blocks = {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 16, "BLOCK_SIZE_K": 16, "GROUP_SIZE_M": 2}
    return {
        "add": add_kernel.specialize(x, x, x, 64, BLOCK=32),
        "softmax": softmax_kernel.specialize(x, x, 8, 8, 8, BLOCK_SIZE=8),
        "layernorm": layer_norm_fwd.specialize(x, x, x, x, x, x, 8, 8, 1e-5, BLOCK_SIZE=8),
        "matmul_f16": matmul_kernel.specialize(h, h, h, *[8] * 9, **blocks),
        "matmul_bf16": matmul_kernel.specialize(bf, bf, bf, *[8] * 9, **blocks),
        "attention": attention_fwd.specialize(
            h, h, h, h, 8, 8, 64, 0.5, HEAD_DIM=16, BLOCK_M=16, BLOCK_N=16
        ),
    }


SPECIALIZATIONS = _specializations()


@pytest.mark.parametrize("name", sorted(SPECIALIZATIONS))
def test_round_trip(name):
    module = SPECIALIZATIONS[name]
    assert first_difference(module, parse(str(module))) is None


@pytest.mark.parametrize("name", sorted(SPECIALIZATIONS))
@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_verifies(name):
    run_mlir_opt(str(SPECIALIZATIONS[name]), "--verify-each")


def test_add_kernel_signature_and_ops():
    module = SPECIALIZATIONS["add"]
    function = module.body.first_op
    assert str(function.function_type) == (
        "(memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, index) -> ()"
    )
    assert function.body.entry_block.arguments[-1].name_hint == "program_id_x"
    names = [op.name for op in function.walk()]
    assert names.count("tile.load") == 2 and names.count("tile.store") == 1
    assert not any(n.startswith("memref.") for n in names)


def test_only_loads_and_stores_touch_memory():
    for module in SPECIALIZATIONS.values():
        function = module.body.first_op
        buffers = [a for a in function.body.entry_block.arguments if "memref" in str(a.type)]
        for op in function.body.entry_block.ops:
            effects = [(e.kind, e.value) for e in memory_effects(op)]
            if op.name == "tile.load":
                assert effects == [("read", op.operands[0])]
            elif op.name == "tile.store":
                assert effects == [("write", op.operands[0])]
            else:
                assert all(value in buffers for _, value in effects), op.name


def test_loop_carries_tiles_and_pointers():
    module = SPECIALIZATIONS["matmul_f16"]
    loop = next(op for op in module.walk() if op.name == "scf.for")
    carried = sorted(str(v.type) for v in loop.results)
    assert carried == ["tensor<16x16xf32>", "tensor<16x16xi32>", "tensor<16x16xi32>"]
    inner = [op.name for op in loop.walk()]
    assert "linalg.matmul" in inner and inner.count("tile.load") == 2


def test_program_counts_are_arguments():
    @tile.kernel
    def last(out, BLOCK: tile.constexpr):
        offs = tile.arange(0, BLOCK)
        tile.store(out + tile.program_id(1) * BLOCK + offs, tile.num_programs(0) + offs)

    out = np.zeros(8, np.int32)
    function = last.specialize(out, BLOCK=4).body.first_op
    hints = [a.name_hint for a in function.body.entry_block.arguments]
    assert hints == ["out", "program_id_y", "num_programs_x"]
    last[(3, 2)](out, BLOCK=4)
    np.testing.assert_array_equal(out, np.array([3, 4, 5, 6] * 2, np.int32))


def test_specializations_are_cached_per_types_and_constexprs():
    x = _f32(8)
    first = add_kernel.specialize(x, x, x, 8, BLOCK=4)
    assert add_kernel.specialize(x, x, x, 3, BLOCK=4) is first
    assert add_kernel.specialize(x, x, x, 8, BLOCK=8) is not first
    h = np.zeros(8, np.float16)
    assert "memref<?xf16>" in add_kernel.ir(h, h, h, 8, BLOCK=4)


def test_ops_are_located_at_their_python_line():
    import inspect

    from . import kernels

    lines, first = inspect.getsourcelines(kernels.add_kernel.fn)
    store_line = first + next(i for i, line in enumerate(lines) if "tile.store" in line)
    store = next(op for op in SPECIALIZATIONS["add"].walk() if op.name == "tile.store")
    assert store.location.line == store_line and store.location.file.endswith("tile_tutorials.py")

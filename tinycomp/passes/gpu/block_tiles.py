"""``gpu-contraction-block-tiles``: each contraction on buffers becomes a launch of a
block-tiled GEMM kernel (tiles staged in shared memory, register tiles per thread).

``gpu-map-kernels`` leaves the contractions it gives this strategy untiled (and their
elementwise epilogue, mlp2's bias); after bufferization they are ``linalg.generic``s on
memrefs at the top of a function. For each, in order:

1. Read its roles (``contraction_roles``) and choose its tiles (``choose_tiles``, from
   the problem and the GPU's SM count).
2. The init: when the last op before it that touches its output is a fill of a constant
   (``linalg.fill`` or its generic form), the accumulators start at that constant and
   the fill goes; otherwise the kernel reads the output first.
3. The epilogue: when the next op that touches the output is an elementwise
   ``linalg.generic`` that reads it where it writes (the same permutation map), and it
   writes in place or the output is a temporary (``memref.alloc``) nothing else reads,
   the kernel applies that op's payload before its store and writes the epilogue's
   output; the epilogue (and the temporary) go.
4. Build the kernel (``build_gemm_kernel``) into its own ``gpu.module`` and replace the
   contraction by a ``gpu.launch_func`` of 256 threads over a grid of
   ``N / BN x M / BM x batch`` blocks.

>>> import numpy as np, tinycomp
>>> from tinycomp import CompileOptions
>>> from tinycomp.passes.gpu.mapping import GpuMappingPass
>>> a, b = np.ones((40, 9), np.float32), np.ones((9, 70), np.float32)
>>> tiles = GpuBlockTilesPass(sm_count=84)
>>> options = CompileOptions(extra_passes={"tiled": [GpuMappingPass()], "bufferized": [tiles]})
>>> program = tinycomp.compile(lambda a, b: a @ b, a, b, options=options, stop_after="bufferized")
>>> tiles.statistics["contractions block-tiled"], tiles.statistics["fills folded"]
(1, 1)
>>> [line.split(" blocks")[0].strip() for line in program.stages["bufferized"].splitlines()
...  if "gpu.launch_func" in line]
['gpu.launch_func  @main_gemm::@main_gemm']
"""

from __future__ import annotations

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.gpu import GPUModuleOp, LaunchFuncOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.ir.attributes import FloatAttr, UnitAttr
from tinycomp.ir.builder import Builder
from tinycomp.ir.op_traits import is_constant_op
from tinycomp.ir.operation import Operation
from tinycomp.ir.symbols import symbol_name
from tinycomp.ir.types import ShapedType, index
from tinycomp.ir.values import Value
from tinycomp.passes.gpu.block_tile_kernel import build_gemm_kernel
from tinycomp.passes.gpu.contraction_roles import THREADS, choose_tiles, contraction_roles
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.rewrite.rewriter import PatternRewriter

__all__ = ["GpuBlockTilesPass", "fill_value"]


def _touches(op: Operation, buffer: Value) -> bool:
    return any(buffer in inner.operands for inner in op.walk())


def fill_value(op: Operation, buffer: Value) -> float | None:
    """Step 2: the constant ``op`` fills ``buffer`` with, or ``None`` if it is no fill.

    >>> from tinycomp.ir import parse
    >>> m = parse('''func.func @f(%c: memref<4xf32>) {
    ...   %z = arith.constant 2.5 : f32
    ...   linalg.fill ins(%z : f32) outs(%c : memref<4xf32>)
    ...   return }''')
    >>> ops = m.body.first_op.entry_block.ops
    >>> fill_value(ops[1], ops[1].operands[1])
    2.5
    """
    if not isinstance(op, StructuredOp) or op.num_inputs != 1 or op.outputs != (buffer,):
        return None
    scalar = op.inputs[0]
    yields_the_scalar = op.body.terminator.operands[0] is op.body.arguments[0]
    if isinstance(scalar.type, ShapedType) or not yields_the_scalar:
        return None
    producer = scalar.defining_op()
    if producer is None or not is_constant_op(producer):
        return None
    attr = producer.attributes.get("value")
    return float(attr.value) if isinstance(attr, FloatAttr) else None


def _fusable_epilogue(op: Operation, produced: Value, writers: tuple[Operation, ...]) -> bool:
    """Step 3: whether ``op`` is an elementwise epilogue of the temporary ``produced``
    that only ``writers`` (the contraction, its fill) write."""
    if not isinstance(op, GenericOp) or op.reduction_dims() or op.num_outputs != 1:
        return False
    maps = op.indexing_maps()
    if not maps[-1].is_permutation():
        return False
    if op.outputs[0].type.shape != produced.type.shape:  # type: ignore[attr-defined]
        return False
    reads = [i for i, v in enumerate(op.inputs) if v is produced]
    if len(reads) != 1 or maps[reads[0]] != maps[-1] or op.payload_reads(op.num_inputs):
        return False
    if op.outputs[0] is produced:
        return True  # in place: the kernel stores the epilogue's value instead
    allocation = produced.defining_op()
    if allocation is None or allocation.name != "memref.alloc":
        return False
    known = (op, *writers)
    return all(user in known or user.name == "memref.dealloc" for user in produced.users)


class GpuBlockTilesPass(Pass):
    """Contractions on buffers as block-tiled GEMM kernels (see the module docstring)."""

    name = "gpu-contraction-block-tiles"
    summary = "contractions as block-tiled GEMM kernels: shared-memory tiles, register tiles"

    def __init__(self, sm_count: int = 108) -> None:
        super().__init__()
        self.sm_count = sm_count
        """SMs of the GPU the tiles are chosen for (a grid should fill them)."""

    def run(self, op: Operation) -> None:
        rewriter = PatternRewriter()
        for function in [f for f in op.walk() if f.name == "func.func"]:
            found = 0
            for candidate in list(function.regions[0].blocks[0].ops):
                roles = contraction_roles(candidate)  # step 1
                if isinstance(roles, str) or not roles.op.is_buffer_semantics:
                    continue
                name = f"{symbol_name(function)}_gemm" + (f"_{found}" if found else "")
                self._replace(op, function, roles, name, rewriter)
                found += 1
        if self.statistics["contractions block-tiled"]:
            op.attributes["gpu.container_module"] = UnitAttr()

    def _replace(self, module, function, roles, name: str, rewriter: PatternRewriter) -> None:
        contraction = roles.op
        tiles = choose_tiles(roles, self.sm_count)
        output = contraction.outputs[0]
        before = contraction.prev_op
        while before is not None and not _touches(before, output):
            before = before.prev_op
        initial = fill_value(before, output) if before is not None else None  # step 2
        after = contraction.next_op
        while after is not None and not _touches(after, output):
            after = after.next_op
        writers = (contraction, before) if initial is not None else (contraction,)
        fusable = after is not None and _fusable_epilogue(after, output, writers)  # step 3
        epilogue = after if fusable else None
        kernel = build_gemm_kernel(name, roles, tiles, initial, epilogue)  # step 4
        gpu_module = GPUModuleOp.build(name)
        gpu_module.body.append(kernel.func)
        module.regions[0].blocks[0].insert_before(gpu_module, function)
        host = Builder.before(contraction)
        sizes = [
            [host.insert(ConstantOp.build(n, index)).result for n in dims]
            for dims in (kernel.grid, (THREADS, 1, 1))
        ]
        host.insert(LaunchFuncOp.build(name, name, sizes[0], sizes[1], list(kernel.arguments)))
        rewriter.erase_op(contraction)
        if initial is not None and before is not None:
            rewriter.erase_op(before)
            self.statistics["fills folded"] += 1
        if epilogue is not None and epilogue.outputs[0] is output:
            rewriter.erase_op(epilogue)
            self.statistics["epilogues fused"] += 1
        elif epilogue is not None:
            rewriter.erase_op(epilogue)
            allocation = output.defining_op()
            for user in list(output.users):
                rewriter.erase_op(user)  # the deallocation of the temporary
            rewriter.erase_op(allocation)
            self.statistics["epilogues fused"] += 1
        self.statistics["contractions block-tiled"] += 1


register_pass(GpuBlockTilesPass)

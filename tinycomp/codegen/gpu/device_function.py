"""``gpu.func`` to an LLVM function: the kernel ABI, shared and private buffers.

The kernel ABI is MLIR's (``-convert-gpu-to-nvvm`` / ``-convert-gpu-to-rocdl``): every
argument is passed as ``func.func`` passes it on the CPU (``codegen/llvm/emit_func.py``),
a memref as its descriptor's fields unpacked, its pointers in *global* memory::

    gpu.func @scale(%x: memref<?xf32>, %s: f32) kernel
    define ptx_kernel void @scale(ptr addrspace(1) %x.allocated, ptr addrspace(1) %x.aligned,
                                  i64 %x.offset, i64 %x.size0, i64 %x.stride0, float %s)

so a launcher passes ``(pointer, pointer, 0, n, 1, s)`` for a contiguous array of ``n``.

Steps of ``emit_gpu_func``:

1. The signature: a parameter per scalar, the descriptor's fields per memref; the
   kernel keyword from the target (``ptx_kernel``, ``amdgpu_kernel``).
2. Workgroup attributions (``workgroup(%tile : memref<32x33xf32, #gpu.address_space<workgroup>>)``)
   become module globals in address space 3, one per buffer, named ``@<kernel>.<name>``:
   ``@transpose.tile = internal addrspace(3) global [1056 x float] poison, align 16``
   (shared memory has no initial value; PTX ``.shared .align 16 .b8 transpose_tile[4224]``).
3. Private attributions become ``alloca``s in the entry block, in the target's private
   address space (``alloca [8 x float]`` on NVPTX, ``..., addrspace(5)`` on AMDGPU);
   LLVM's SROA then keeps them in registers when every index is known.
4. The body, block by block, through the emitter registry; ``gpu.return`` is ``ret``.
   A few ops are emitted differently on a GPU than on the CPU: ``DEVICE_EMITTERS``
   (``register_device_emitter``) is consulted before the shared registry.

>>> from tinycomp.ir import parse
>>> from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm
>>> text = emit_device_llvm(parse('''gpu.module @m {
...   gpu.func @k(%x: memref<4xf32>)
...       workgroup(%t : memref<4xf32, #gpu.address_space<workgroup>>) kernel {
...     gpu.return
...   }
... }'''), NVPTXHooks()).text
>>> print("\\n".join(text.splitlines()[3:6]))  # doctest: +NORMALIZE_WHITESPACE
@k.t = internal addrspace(3) global [4 x float] poison, align 16
<BLANKLINE>
define ptx_kernel void @k(ptr addrspace(1) %x.allocated, ptr addrspace(1) %x.aligned,
                          i64 %x.offset, i64 %x.size0, i64 %x.stride0) {
"""

from __future__ import annotations

from collections.abc import Callable

from tinycomp.codegen.errors import CodegenError
from tinycomp.codegen.llvm.descriptor import MemRefDescriptor, descriptor_part_names
from tinycomp.codegen.llvm.registry import FunctionEmitter, describe_op
from tinycomp.codegen.llvm.renderer import FunctionText, ModuleText
from tinycomp.codegen.llvm.types import element_size
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import DYNAMIC, MemRefType
from tinycomp.ir.values import BlockArgument

__all__ = ["DEVICE_EMITTERS", "DeviceFunctionEmitter", "emit_gpu_func", "register_device_emitter"]

DeviceEmitterFn = Callable[[FunctionEmitter, Operation], None]
DEVICE_EMITTERS: dict[str, DeviceEmitterFn] = {}
"""Op name -> its emitter on a GPU, where it differs from the shared one (step 4)."""
SHARED_ALIGNMENT = 16
"""Bytes every shared buffer is aligned to: enough for ``ld.shared.v4.f32``."""


def register_device_emitter(op_name: str) -> Callable[[DeviceEmitterFn], DeviceEmitterFn]:
    """Decorator: ``fn(emitter, op)`` emits ``op_name`` in GPU functions (step 4)."""

    def decorate(fn: DeviceEmitterFn) -> DeviceEmitterFn:
        DEVICE_EMITTERS[op_name] = fn
        return fn

    return decorate


class DeviceFunctionEmitter(FunctionEmitter):
    """A ``FunctionEmitter`` that tries ``DEVICE_EMITTERS`` first (step 4)."""

    def emit_op(self, op: Operation) -> None:
        """Emit ``op`` with its device emitter, or as ``FunctionEmitter`` would."""
        emitter = DEVICE_EMITTERS.get(op.name)
        if emitter is None:
            super().emit_op(op)
            return
        previous, self.current_op = self.current_op, op
        try:
            emitter(self, op)
        except CodegenError as error:
            if error.op is not None:
                raise
            raise self.op_error(op, error.message) from None
        except Exception as error:
            raise self.op_error(
                op, f"the LLVM emitter failed: {type(error).__name__}: {error}"
            ) from error
        finally:
            self.current_op = previous


def emit_gpu_func(module: ModuleText, func: Operation) -> None:
    """Emit one ``gpu.func`` into ``module`` (steps 1-4 of the module docstring)."""
    try:
        _emit_gpu_func(module, func)
    except CodegenError as error:
        if error.op is not None:
            raise
        raise CodegenError(f"{describe_op(func)}: {error.message}", func) from None


def _emit_gpu_func(module: ModuleText, func: Operation) -> None:
    name = func.sym_name
    results = func.function_type.results
    em = DeviceFunctionEmitter(module, FunctionText(name, "void", [], op=func))
    em.current_op = func
    if len(results) > 1:
        raise em.op_error(func, f"expected at most one result, got {len(results)}")
    em.function.return_type = em.llvm_type(results[0]) if results else "void"
    for position, argument in enumerate(func.arguments):  # step 1
        _bind_parameter(em, argument, argument.name_hint or f"arg{position}")
    em.function.prefix = module.hooks.function_prefix(func)
    em.function.attributes = module.hooks.function_attributes(func)
    em.names.fresh("entry")
    em.start_block("entry")
    for buffer in func.workgroup_attributions:  # step 2
        _bind_shared_buffer(em, module, name, buffer)
    for buffer in func.private_attributions:  # step 3
        _bind_private_buffer(em, buffer)
    blocks = func.regions[0].blocks
    if len(blocks) > 1:
        _emit_blocks(em, blocks)
    else:
        leftover = em.emit_block(blocks[0])  # step 4
        if leftover is not None:
            raise em.op_error(leftover, "expected gpu.return to end the kernel")
    em.current_op = func
    em.finish()
    module.functions.append(em.function)


def _emit_blocks(em: FunctionEmitter, blocks) -> None:
    """Step 4 for a body of several blocks (early exits with ``cf.cond_br``)."""
    entry, *later = blocks
    labels = {block: em.fresh_label(f"bb{i}") for i, block in enumerate(later, 1)}
    for block, label in labels.items():
        phis = []
        for position, argument in enumerate(block.arguments):
            hint = argument.name_hint or f"{label}.arg{position}"
            names = [em.fresh(hint) for _ in em.part_types(argument.type)]
            for phi, type_ in zip(names, em.part_types(argument.type), strict=True):
                em.add_phi(label, phi, type_)
            em.bind_parts(argument, names)
            phis.append(names)
        em.block_targets[block] = (label, phis)
    for block in [entry, *later]:
        if block is not entry:
            em.start_block(labels[block])
        leftover = em.emit_block(block)
        if leftover is not None:
            raise em.op_error(leftover, "expected gpu.return or a branch to end a block")


def _bind_parameter(em: FunctionEmitter, argument: BlockArgument, base: str) -> None:
    """Step 1: one parameter, or a memref's descriptor fields."""
    if isinstance(argument.type, MemRefType):
        names = [em.fresh(f"{base}.{f}") for f in descriptor_part_names(argument.type.rank)]
    else:
        names = [em.fresh(base)]
    types = em.part_types(argument.type)
    em.function.params += [(t, n.lstrip("%")) for t, n in zip(types, names, strict=True)]
    em.bind_parts(argument, names)


def _static_buffer(em: FunctionEmitter, buffer: BlockArgument) -> tuple[MemRefType, str, int]:
    """The buffer's type, its LLVM array type and element count; it must be static."""
    memref_type = buffer.type
    if not isinstance(memref_type, MemRefType) or DYNAMIC in memref_type.shape:
        raise CodegenError(f"expected a buffer of static shape, got {buffer.type}")
    count = 1
    for size in memref_type.shape:
        count *= size
    return memref_type, f"[{count} x {em.llvm_type(memref_type.element_type)}]", count


def _bind_descriptor(em: FunctionEmitter, buffer: BlockArgument, pointer: str) -> None:
    memref_type = buffer.type
    sizes = [str(size) for size in memref_type.shape]
    descriptor = MemRefDescriptor.with_static_fields(
        memref_type, em.llvm_type(memref_type), pointer, pointer, "0", sizes, ["0"] * len(sizes)
    )
    em.bind(buffer, descriptor)


def _bind_shared_buffer(
    em: FunctionEmitter, module: ModuleText, kernel: str, buffer: BlockArgument
) -> None:
    """Step 2: a global in the workgroup address space."""
    memref_type, array, _ = _static_buffer(em, buffer)
    space = em.hooks.address_space(memref_type.memory_space)
    name = f"{kernel}.{buffer.name_hint or 'shared'}"
    while name in module.declarations:
        name += ".1"
    module.declarations[name] = (
        f"@{name} = internal addrspace({space}) global {array} poison, align {SHARED_ALIGNMENT}"
    )
    _bind_descriptor(em, buffer, f"@{name}")


def _bind_private_buffer(em: FunctionEmitter, buffer: BlockArgument) -> None:
    """Step 3: an ``alloca`` in the private address space."""
    memref_type, array, _ = _static_buffer(em, buffer)
    space = em.hooks.address_space(memref_type.memory_space)
    pointer = em.fresh(buffer.name_hint or "private")
    where = f", addrspace({space})" if space else ""
    align = max(element_size(memref_type.element_type), SHARED_ALIGNMENT)
    em.emit(f"{pointer} = alloca {array}, align {align}{where}")
    _bind_descriptor(em, buffer, pointer)

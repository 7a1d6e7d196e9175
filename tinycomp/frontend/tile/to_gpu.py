"""A tile program as a GPU kernel: one program instance runs as one block, and each tile
lives spread over the block's threads as its blocked layout says (``layout.py``).

``lower_to_gpu(module, num_warps)`` turns the ``func.func`` that ``TileKernel.specialize``
gives into a ``gpu.module`` with one ``gpu.func ... kernel`` run by ``32 * num_warps``
threads per block. A tile of shape ``S`` is held as registers: thread ``t`` keeps the
elements ``layout.elements_of(t, S)``, one SSA value each. The lowering walks the
program once, in order:

1. The program ids become ``gpu.block_id``, the program counts ``gpu.grid_dim``.
2. Scalar ops are copied as they are.
3. An elementwise ``linalg.generic`` becomes its payload once per register, on the
   thread's own elements (written out: the loop over registers has constant bounds,
   so it is unrolled, as ``nvcc -O3`` would); ``linalg.index`` is the register's
   position in the tile, so ``arange`` gives each thread its own indices. A rank-0
   tile (a reduced value) is held by every thread.
4. ``tile.load`` / ``tile.store`` become per-thread accesses under ``scf.if`` on the
   mask, as vector accesses where a thread's elements are consecutive; a replicated
   element is stored once (``gpu_memory.py``).
5. A reduction along the tile's axis: per-thread partials, ``gpu.shuffle xor`` across
   the lanes of a warp, then shared memory across the warps with ``gpu.barrier``;
   every thread holds the result (``gpu_reduction.py``).
6. ``scf.for`` carries each tile as its registers.

Every tile of one shape has the same layout (``default_layout``, or the caller's
``layout_for(shape, num_warps)``, checked by ``layout_choice.py``), so the operands of an
elementwise op line up register by register and no layout conversion is ever needed.

Tiles of rank 2 (``x[:, None]``, ``dot``) are not lowered: an error names the op and
the ``interp`` target, which runs them (``kernel[grid](...)``).

>>> import numpy as np
>>> from tinycomp.frontend.tile import kernel, constexpr
>>> from tinycomp.frontend.tile import tile_builtins as tl, memory_builtins as tm
>>> @kernel
... def double(x, n, BLOCK: constexpr):
...     offs = tm.program_id(0) * BLOCK + tl.arange(0, BLOCK)
...     tm.store(x + offs, tm.load(x + offs, mask=offs < n) * 2.0, mask=offs < n)
>>> gpu_module = lower_to_gpu(double.specialize(np.zeros(4, np.float32), 4, BLOCK=256), 2)
>>> names = [op.name for op in gpu_module.walk()]
>>> names.count("memref.load"), names.count("memref.store"), names.count("gpu.block_id")
(4, 4, 1)
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddIOp, MulIOp, RemUIOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.func import FuncOp
from tinycomp.dialects.gpu import (
    BlockIdOp,
    GPUFuncOp,
    GPUModuleOp,
    GridDimOp,
    ReturnOp,
    ThreadIdOp,
    address_space,
)
from tinycomp.dialects.linalg.generic import GenericOp, IndexOp
from tinycomp.dialects.linalg.named import FillOp
from tinycomp.dialects.scf import ForOp, YieldOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.dialects.tile import LoadOp as TileLoadOp
from tinycomp.dialects.tile import StoreOp as TileStoreOp
from tinycomp.frontend.tile.gpu_memory import lower_load, lower_store
from tinycomp.frontend.tile.gpu_reduction import is_reduction, lower_reduction
from tinycomp.frontend.tile.layout import BlockedLayout
from tinycomp.frontend.tile.layout_choice import LayoutFor, choose_layout
from tinycomp.frontend.tile.values import TileError
from tinycomp.ir import ModuleOp
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FunctionType, MemRefType, RankedTensorType, Type, index
from tinycomp.ir.values import Value

__all__ = ["GRID_PREFIXES", "TileLowering", "lower_to_gpu", "lowering_error"]

GRID_PREFIXES = ("program_id_", "num_programs_")
"""The names of the trailing ``index`` arguments that say where a program is."""


Shape = tuple[int, ...]


def lowering_error(op: Operation, what: str) -> TileError:
    """The error for an op the lowering does not handle: its name, its source line, what
    is wrong, and the target that runs it.

    >>> from tinycomp.dialects.gpu import BarrierOp
    >>> print(lowering_error(BarrierOp.build(), "an example"))
    tile to gpu: 'gpu.barrier': an example; the 'interp' target runs it (kernel[grid](...))
    """
    return TileError(
        f"tile to gpu: '{op.name}'{describe_location(op.location)}: {what}; "
        "the 'interp' target runs it (kernel[grid](...))"
    )


class TileLowering:
    """The state of one lowering: the new kernel, where ops go, and what each value of
    the program is in it (a scalar, or a tile's registers)."""

    def __init__(self, source: FuncOp, num_warps: int, layout_for: LayoutFor | None = None) -> None:
        self.source = source
        self.num_warps = num_warps
        self.layout_for = layout_for
        self.layouts: dict[Shape, BlockedLayout] = {}
        """The layout of each shape, chosen once (``layout_choice.py``)."""
        arguments = source.entry_block.arguments
        self.grid_arguments = [
            a for a in arguments if (a.name_hint or "").startswith(GRID_PREFIXES)
        ]
        self.inputs = [a for a in arguments if a not in self.grid_arguments]
        reductions = [op for op in source.walk() if is_reduction(op)]
        self.shared_types = [
            MemRefType((num_warps,), op.results[0].type.element_type, None,
                       address_space("workgroup"))
            for op in reductions
        ]  # fmt: skip
        self.kernel = GPUFuncOp.build(
            source.sym_name,
            FunctionType([a.type for a in self.inputs], []),
            kernel=True,
            workgroup=self.shared_types if num_warps > 1 else (),
        )
        entry = self.kernel.entry_block
        self.shared = dict(zip(reductions, entry.arguments[len(self.inputs) :], strict=False))
        self.values: dict[Value, Value] = {}
        """Scalars of the program -> their values in the kernel."""
        self.tiles: dict[Value, list[Value]] = {}
        """Tiles of the program -> the thread's registers."""
        for old, new in zip(self.inputs, entry.arguments, strict=False):
            new.name_hint = old.name_hint
            self.values[old] = new
        self.builder = Builder.at_end(entry)
        self.tid = self.insert(ThreadIdOp.build("x")).result
        self.coordinates: dict[tuple[int, ...], list[tuple[Value, Value | None]]] = {}
        for argument in self.grid_arguments:
            kind, axis = argument.name_hint.rsplit("_", 1)
            op = BlockIdOp.build(axis) if kind == "program_id" else GridDimOp.build(axis)
            self.values[argument] = self.insert(op).result

    # -- building blocks -------------------------------------------------------------------
    def insert(self, op: Operation) -> Operation:
        """Insert ``op`` where the kernel is being built."""
        return self.builder.insert(op)

    @contextmanager
    def building_at(self, builder: Builder) -> Iterator[None]:
        """Build somewhere else (inside an ``scf.if``) for the ``with`` block."""
        saved, self.builder = self.builder, builder
        try:
            yield
        finally:
            self.builder = saved

    def constant(self, value: int | float, type: Type = index) -> Value:
        return self.insert(ConstantOp.build(value, type)).result

    def error(self, op: Operation, what: str) -> TileError:
        return lowering_error(op, what)

    def shape(self, value: Value) -> Shape | None:
        """The tile's shape, or None for a scalar."""
        return tuple(value.type.shape) if isinstance(value.type, RankedTensorType) else None

    def layout(self, shape: Shape) -> BlockedLayout:
        """The layout of every tile of ``shape`` (one per shape, so elementwise operands
        line up register by register): ``default_layout``, or the caller's
        ``layout_for``."""
        if shape not in self.layouts:
            self.layouts[shape] = choose_layout(shape, self.num_warps, self.layout_for)
        return self.layouts[shape]

    def registers(self, shape: Shape) -> int:
        return 1 if not shape else self.layout(shape).registers(shape)

    def scalar(self, value: Value) -> Value:
        return self.values[value]

    def coordinates_of(
        self, op: Operation, shape: tuple[int, ...]
    ) -> list[tuple[Value, Value | None]]:
        """Per register: its index in a 1-D tile, and whether it is the element's first
        copy (None when no element is replicated). Built in the kernel's entry block."""
        if len(shape) != 1:
            raise self.error(op, f"a tile of shape {shape} (only 1-D tiles are lowered)")
        if shape not in self.coordinates:
            with self.building_at(Builder.after(self.tid.defining_op())):
                layout, size = self.layout(shape), shape[0]
                spt, covered = layout.size_per_thread[0], layout.layout_tile[0]
                base = self.insert(MulIOp.build(self.tid, self.constant(spt))).result
                found = []
                for register in range(layout.registers(shape)):
                    repeat, within = divmod(register, spt)
                    unwrapped = self.insert(
                        AddIOp.build(base, self.constant(repeat * covered + within))
                    ).result
                    if size >= covered:
                        found.append((unwrapped, None))
                        continue
                    wrapped = self.insert(RemUIOp.build(unwrapped, self.constant(size))).result
                    first = self.insert(CmpIOp.build("ult", unwrapped, self.constant(size))).result
                    found.append((wrapped, first))
            self.coordinates[shape] = found
        return self.coordinates[shape]

    def first_copy(self, op: Operation, shape: tuple[int, ...], register: int) -> Value | None:
        """Whether this thread holds the first copy of the element in ``register``."""
        if not shape:
            return self.insert(CmpIOp.build("eq", self.tid, self.constant(0))).result
        return self.coordinates_of(op, shape)[register][1]

    # -- the walk ----------------------------------------------------------------------------
    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        if isinstance(op, EmptyOp):
            return
        if isinstance(op, FillOp):
            shape = self.shape(op.results[0])
            self.tiles[op.results[0]] = [self.scalar(op.inputs[0])] * self.registers(shape)
        elif is_reduction(op):
            lower_reduction(self, op)
        elif isinstance(op, GenericOp):
            self.elementwise(op)
        elif isinstance(op, TileLoadOp):
            lower_load(self, op)
        elif isinstance(op, TileStoreOp):
            lower_store(self, op)
        elif isinstance(op, ForOp):
            self.loop(op)
        elif op.name == "func.return":
            self.insert(ReturnOp.build())
        elif any(self.shape(v) is not None for v in [*op.operands, *op.results]) or op.regions:
            raise self.error(
                op, "this op on tiles is not lowered to the GPU (1-D tiles and scalars are)"
            )
        else:
            copy = op.clone(ChainMap({}, self.values))
            self.insert(copy)
            for old, new in zip(op.results, copy.results, strict=True):
                self.values[old] = new

    def payload(
        self, op: GenericOp, arguments: list[Value], coordinate: Value | None
    ) -> list[Value]:
        """``op``'s payload on one register's ``arguments``; the yielded values."""
        local: dict[Value, Value] = dict(zip(op.body.arguments, arguments, strict=False))
        mapping = ChainMap(local, self.values)
        for inner in op.body.ops:
            if isinstance(inner, IndexOp):
                if coordinate is None:
                    raise self.error(op, "linalg.index in a rank-0 generic")
                local[inner.results[0]] = coordinate
            elif inner.name == "linalg.yield":
                return [mapping[v] if v in mapping else v for v in inner.operands]
            else:
                copy = inner.clone(mapping)
                self.insert(copy)
        raise self.error(op, "a payload without linalg.yield")

    def elementwise(self, op: GenericOp) -> None:
        """Step 3."""
        shape = self.shape(op.results[0])
        coordinates = self.coordinates_of(op, shape) if shape else None
        results: list[list[Value]] = [[] for _ in op.results]
        for register in range(self.registers(shape)):
            arguments = []
            for value, map_ in zip(op.inputs, op.indexing_maps(), strict=False):
                held = self.tiles[value] if self.shape(value) is not None else [self.scalar(value)]
                if map_.num_results == 0:
                    arguments.append(held[0])
                elif map_.num_results == map_.num_dims == len(shape) and map_.is_identity():
                    arguments.append(held[register])
                else:
                    raise self.error(
                        op, f"an operand read through {map_} (a broadcast of a 2-D tile)"
                    )
            coordinate = coordinates[register][0] if coordinates else None
            for i, value in enumerate(self.payload(op, arguments, coordinate)):
                results[i].append(value)
        for old, registers in zip(op.results, results, strict=True):
            self.tiles[old] = registers

    def flat(self, values: Sequence[Value]) -> list[Value]:
        """Scalars and tiles' registers, in order (what an ``scf.for`` carries)."""
        found = []
        for value in values:
            found += self.tiles[value] if self.shape(value) is not None else [self.scalar(value)]
        return found

    def unflatten(self, old_values: Sequence[Value], new_values: Sequence[Value]) -> None:
        """The inverse of ``flat``: map ``old_values`` to their part of ``new_values``."""
        position = 0
        for old in old_values:
            count = self.registers(self.shape(old)) if self.shape(old) is not None else 1
            taken = list(new_values[position : position + count])
            if self.shape(old) is None:
                self.values[old] = taken[0]
            else:
                self.tiles[old] = taken
            position += count

    def loop(self, op: ForOp) -> None:
        """Step 6."""
        bounds = [self.scalar(v) for v in (op.lower_bound, op.upper_bound, op.step)]
        new = self.insert(ForOp.build(*bounds, self.flat(op.init_args)))
        self.values[op.induction_var] = new.induction_var
        self.unflatten(op.region_iter_args, new.region_iter_args)
        body = new.body
        inside = Builder.before(body.terminator) if body.terminator else Builder.at_end(body)
        with self.building_at(inside):
            for inner in op.body.ops:
                if inner is not op.body.terminator:
                    self.lower_op(inner)
                elif op.init_args:
                    self.insert(YieldOp.build(self.flat(inner.operands)))
        self.unflatten(op.results, new.results)


def lower_to_gpu(
    module: ModuleOp, num_warps: int = 4, layout_for: LayoutFor | None = None
) -> ModuleOp:
    """A module holding ``gpu.module @kernels`` with the program of ``module`` as a kernel
    for blocks of ``32 * num_warps`` threads (module docstring); ``layout_for(shape,
    num_warps)``, when given, replaces ``default_layout`` (``layout_choice.py``)."""
    source = module.body.first_op
    if not isinstance(source, FuncOp):
        raise TileError(f"tile to gpu: expected a module holding one func.func, got {source}")
    for op in source.walk():  # the op out of scope first, before what it needs
        if op.name == "linalg.matmul":
            raise lowering_error(op, "dot is not lowered to the GPU")
    lowering = TileLowering(source, num_warps, layout_for)
    lowering.lower_block(source.entry_block)
    container = GPUModuleOp.build("kernels")
    container.body.append(lowering.kernel)
    return ModuleOp.build([container])

"""A tile program as a GPU kernel: one program instance runs as one block, and each tile
lives spread over the block's threads as its blocked layout says (``layout.py``).

``lower_to_gpu(module, num_warps)`` turns the ``func.func`` that ``TileKernel.specialize``
gives into a ``gpu.module`` with one ``gpu.func ... kernel`` run by ``32 * num_warps``
threads per block. A tile that has to exist (a load, a ``dot``, a reduction, what a
loop carries, and what is computed from them) is **held**: thread ``t`` keeps the
elements ``layout.elements_of(t, S)`` of a tile of shape ``S``, one SSA value each. A
tile computed from indices and scalars alone (``arange``, offsets, masks, splats,
``x[:, None]``) is never held: it is computed where it is read, at the element the
reader needs, as Triton rematerialises index arithmetic rather than convert its
layout. The lowering walks the program once, in order:

1. The program ids become ``gpu.block_id``, the program counts ``gpu.grid_dim``.
2. Scalar ops are copied as they are.
3. An elementwise ``linalg.generic`` on a held tile becomes its payload once per
   register (written out: the loop over registers has constant bounds, as ``nvcc -O3``
   unrolls it), each operand read at the element its indexing map names
   (``gpu_points.py``); ``linalg.index`` is the register's position in the tile. An
   operand whose element another thread holds goes through shared memory
   (``gpu_conversion.py``). A rank-0 tile (a reduced value) is held by every thread.
4. ``tile.load`` / ``tile.store`` become per-thread accesses under ``scf.if`` on the
   mask, as vector accesses where a thread's elements are consecutive; a replicated
   element is stored once (``gpu_memory.py``).
5. A reduction: per-thread partials, ``gpu.shuffle xor`` across the lanes of a warp,
   then shared memory across the warps (``gpu_reduction.py``, ``gpu_axis_reduction.py``).
6. ``tile.dot`` stages its operands in shared memory and accumulates in each thread's
   registers (``gpu_dot.py``).
7. ``scf.for`` carries each tile as its registers.

Every held tile of one shape has the same layout (``default_layout``, or the caller's
``layout_for(shape, num_warps)``, checked by ``layout_choice.py``), so the operands of
an elementwise op of one shape line up register by register.

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
from tinycomp.dialects.arith.binary import AndIOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.common.reassociation import reassociation_groups
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
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.linalg.map_reduce import TransposeOp
from tinycomp.dialects.linalg.named import FillOp, MatmulOp
from tinycomp.dialects.scf import ForOp
from tinycomp.dialects.tensor import EmptyOp
from tinycomp.dialects.tensor.reshape import ExpandShapeOp
from tinycomp.dialects.tile import LoadOp as TileLoadOp
from tinycomp.dialects.tile import StoreOp as TileStoreOp
from tinycomp.frontend.tile.dot_layout import dot_layout
from tinycomp.frontend.tile.gpu_conversion import read_elsewhere
from tinycomp.frontend.tile.gpu_dot import lower_dot
from tinycomp.frontend.tile.gpu_elementwise import lower_elementwise, operands_at, payload
from tinycomp.frontend.tile.gpu_loop import lower_loop
from tinycomp.frontend.tile.gpu_memory import lower_load, lower_store
from tinycomp.frontend.tile.gpu_points import (
    ZERO,
    Along,
    Coordinates,
    Point,
    full_point,
    through_reshape,
)
from tinycomp.frontend.tile.gpu_reduction import is_reduction, lower_reduction
from tinycomp.frontend.tile.gpu_thread_places import ThreadPlaces
from tinycomp.frontend.tile.layout import WARP_SIZE, BlockedLayout
from tinycomp.frontend.tile.layout_choice import LayoutFor, choose_layout
from tinycomp.frontend.tile.values import TileError
from tinycomp.ir import ModuleOp
from tinycomp.ir.attributes import IntegerAttr
from tinycomp.ir.block import Block
from tinycomp.ir.builder import Builder
from tinycomp.ir.location import describe_location
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FunctionType, MemRefType, RankedTensorType, Type, i64, index
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
    the program is in it (a scalar, a held tile's registers, or a tile computed where it
    is read)."""

    def __init__(self, source: FuncOp, num_warps: int, layout_for: LayoutFor | None = None) -> None:
        self.source = source
        self.num_warps = num_warps
        self.num_threads = WARP_SIZE * num_warps
        self.layout_for = layout_for
        self.layouts: dict[Shape, BlockedLayout] = {}
        """The layout of each shape, chosen once (``layout_choice.py``); a ``dot``'s
        accumulator's is ``dot_layout``'s unless the caller chooses."""
        if layout_for is None:
            for op in source.walk():
                if isinstance(op, MatmulOp):
                    shape = tuple(op.outputs[0].type.shape)
                    self.layouts.setdefault(shape, dot_layout(shape, num_warps))
        arguments = source.entry_block.arguments
        self.grid_arguments = [
            a for a in arguments if (a.name_hint or "").startswith(GRID_PREFIXES)
        ]
        self.inputs = [a for a in arguments if a not in self.grid_arguments]
        self.kernel = GPUFuncOp.build(
            source.sym_name, FunctionType([a.type for a in self.inputs], []), kernel=True
        )
        entry = self.kernel.entry_block
        self.values: dict[Value, Value] = {}
        """Scalars of the program -> their values in the kernel."""
        self.tiles: dict[Value, list[Value]] = {}
        """Held tiles of the program -> the thread's registers."""
        self.computed: dict[Value, Operation] = {}
        """Tiles computed where they are read -> the op that computes them."""
        self.index_only: set[Value] = set()
        """The computed tiles made from indices and scalars alone."""
        self.memo: ChainMap = ChainMap()
        """(tile, point) -> its value, for the reads already built in scope."""
        for old, new in zip(self.inputs, entry.arguments, strict=False):
            new.name_hint = old.name_hint
            self.values[old] = new
        self.builder = Builder.at_end(entry)
        self.tid = self.insert(ThreadIdOp.build("x")).result
        self.zero = self.insert(ConstantOp.build(0, index)).result
        prologue = Builder.before(self.zero.defining_op())
        self.places = ThreadPlaces(prologue, self.tid, self.layout)
        """The registers' coordinates, built after ``gpu.thread_id``."""
        self.points = Coordinates(self.layout, self.num_threads, self.places.coordinate)
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
        """The layout of every held tile of ``shape``: ``default_layout``, or the caller's
        ``layout_for``."""
        if shape not in self.layouts:
            self.layouts[shape] = choose_layout(shape, self.num_warps, self.layout_for)
        return self.layouts[shape]

    def registers(self, shape: Shape) -> int:
        return 1 if not shape else self.layout(shape).registers(shape)

    def scalar(self, value: Value) -> Value:
        return self.values[value]

    def shared_buffer(self, size: int, element: Type) -> Value:
        """A new ``workgroup`` buffer of ``size`` elements, declared on the kernel."""
        buffer_type = MemRefType((size,), element, None, address_space("workgroup"))
        argument = self.kernel.entry_block.add_argument(buffer_type)
        count = self.kernel.attributes["workgroup_attributions"].value + 1
        self.kernel.attributes["workgroup_attributions"] = IntegerAttr(count, i64)
        return argument

    # -- where the registers are (gpu_thread_places.py) -------------------------------------
    def coordinate(self, coordinate: Along | object) -> Value:
        """A coordinate of a point as an ``index`` value."""
        return self.zero if coordinate is ZERO else self.points.value(coordinate)

    def first_copy(
        self, op: Operation, shape: Shape, register: int, dims: Sequence[int] | None = None
    ) -> Value | None:
        """Whether this thread holds the first copy of the element in ``register`` (along
        ``dims``, all by default); None when no element is replicated."""
        if not shape:
            return self.insert(CmpIOp.build("eq", self.tid, self.constant(0))).result
        flags = [
            self.places.first_copy(shape, register, d)
            for d in (dims if dims is not None else range(len(shape)))
        ]
        flags = [f for f in flags if f is not None]
        if not flags:
            return None
        combined = flags[0]
        for flag in flags[1:]:
            combined = self.insert(AndIOp.build(combined, flag)).result
        return combined

    # -- reading tiles ---------------------------------------------------------------------
    def value_at(self, value: Value, point: Point) -> Value:
        """``value``'s element at ``point`` in this thread: a scalar, a register, a read
        through shared memory, or the element computed here."""
        if self.shape(value) is None:
            return self.scalar(value)
        if value in self.tiles:
            shape = self.shape(value)
            if not shape:
                return self.tiles[value][0]
            for register in range(self.registers(shape)):
                if point == full_point(shape, register):
                    return self.tiles[value][register]
            register = self.points.register_holding(shape, point)
            if register is not None:
                return self.tiles[value][register]
            return read_elsewhere(self, value, point)
        key = (value, point)
        if key in self.memo:
            return self.memo[key]
        op = self.computed.get(value)
        if op is None:
            raise TileError(f"tile to gpu: {value} has no value in the kernel")
        if isinstance(op, FillOp):
            found = self.scalar(op.inputs[0])
        elif isinstance(op, ExpandShapeOp):
            inner = through_reshape(point, reassociation_groups(op), self.shape(value))
            if inner is None:
                raise self.error(op, f"a reshape into {self.shape(value)} that splits a dimension")
            found = self.value_at(op.operands[0], inner)
        elif isinstance(op, TransposeOp):
            inverse = sorted(range(len(op.dims)), key=lambda d: op.dims[d])
            found = self.value_at(op.inputs[0], tuple(point[d] for d in inverse))
        else:
            results = payload(self, op, operands_at(self, op, point), point)
            for result, new in zip(op.results, results, strict=True):
                self.memo[(result, point)] = new
            found = results[op.results.index(value)]
        self.memo[key] = found
        return found

    def held(self, value: Value) -> list[Value]:
        """``value``'s registers in the layout of its shape (computing them if it was
        computed where read)."""
        if value in self.tiles:
            return self.tiles[value]
        shape = self.shape(value)
        if not shape:
            return [self.value_at(value, ())]
        return [self.value_at(value, full_point(shape, r)) for r in range(self.registers(shape))]

    def registers_of(self, value: Value | None, shape: Shape) -> list[Value] | None:
        """``value`` read at every register of a tile of ``shape`` (None stays None)."""
        if value is None:
            return None
        if self.shape(value) is None:
            return [self.scalar(value)] * self.registers(shape)
        if not shape:
            return [self.value_at(value, ())]
        return [self.value_at(value, full_point(shape, r)) for r in range(self.registers(shape))]

    # -- the walk ----------------------------------------------------------------------------
    def lower_block(self, block: Block) -> None:
        for op in block.ops:
            self.lower_op(op)

    def is_index_only(self, value: Value) -> bool:
        """Whether ``value`` is a scalar or a tile made from indices and scalars alone."""
        return self.shape(value) is None or value in self.index_only

    def lower_op(self, op: Operation) -> None:
        if isinstance(op, EmptyOp):
            return
        if isinstance(op, FillOp | ExpandShapeOp | TransposeOp):
            self.computed[op.results[0]] = op
            sources = [op.operands[0]] if isinstance(op, ExpandShapeOp) else op.inputs
            if all(self.is_index_only(v) for v in sources):
                self.index_only.add(op.results[0])
        elif is_reduction(op):
            lower_reduction(self, op)
        elif isinstance(op, GenericOp):
            lower_elementwise(self, op)
        elif isinstance(op, MatmulOp):
            lower_dot(self, op)
        elif isinstance(op, TileLoadOp):
            lower_load(self, op)
        elif isinstance(op, TileStoreOp):
            lower_store(self, op)
        elif isinstance(op, ForOp):
            lower_loop(self, op)
        elif op.name == "func.return":
            self.insert(ReturnOp.build())
        elif any(self.shape(v) is not None for v in [*op.operands, *op.results]) or op.regions:
            raise self.error(op, "this op on tiles is not lowered to the GPU")
        else:
            copy = op.clone(ChainMap({}, self.values))
            self.insert(copy)
            for old, new in zip(op.results, copy.results, strict=True):
                self.values[old] = new


def lower_to_gpu(
    module: ModuleOp, num_warps: int = 4, layout_for: LayoutFor | None = None
) -> ModuleOp:
    """A module holding ``gpu.module @kernels`` with the program of ``module`` as a kernel
    for blocks of ``32 * num_warps`` threads (module docstring); ``layout_for(shape,
    num_warps)``, when given, replaces ``default_layout`` (``layout_choice.py``)."""
    source = module.body.first_op
    if not isinstance(source, FuncOp):
        raise TileError(f"tile to gpu: expected a module holding one func.func, got {source}")
    lowering = TileLowering(source, num_warps, layout_for)
    lowering.lower_block(source.entry_block)
    container = GPUModuleOp.build("kernels")
    container.body.append(lowering.kernel)
    return ModuleOp.build([container])

"""The block-tiled GEMM kernel of one contraction, built op by op (the worklog's
``blocktile_2d``, written for any contraction's loops).

Block ``(bx, by, bz)`` computes the ``BM x BN`` output tile at ``m0 = by * BM``,
``n0 = bx * BN`` of batch ``bz``; thread ``t`` (of 256) owns the ``TM x TN`` register
tile at row ``ty * TM``, column ``tx * TN`` of it (``tx = t % 16``, ``ty = t / 16``):

1. The accumulators (a private ``TM*TN`` array, constant indices: registers) start at
   the value the output was filled with, or at what the output holds.
2. For each step ``k0`` of K, ``BK`` at a time:
   a. every thread copies its share of the A tile (``BM x BK``) and of the B tile
      (``BK x BN``) from global to workgroup memory, neighbouring threads at neighbouring
      addresses (``contraction_roles`` step 4). An element's indices are its input's
      indexing map at the loops its ``m`` (``n``) and ``k`` stand for (a convolution's
      window: implicit GEMM); the factor the payload computes from those inputs (a
      prologue: mlp2's gelu) is computed once per element here, in the payload's own
      type, then widened to f32. Outside the problem (a partial tile) it is 0.
      Both tiles are stored K-major (``As[k][m]``, ``Bs[k][n]``) so that a thread's
      ``TM`` (``TN``) values are adjacent: vector loads of up to 4.
   b. ``gpu.barrier``: the tiles are complete.
   c. for each ``k`` of the step (a constant-bound loop: unrolled), the thread loads its
      ``TM`` values of A and ``TN`` of B into registers and does ``TM x TN`` FMAs in f32.
   d. ``gpu.barrier``: nobody overwrites a tile another thread still reads.
3. Each accumulator is narrowed to the output's type and, inside the problem, stored;
   a fused elementwise epilogue (mlp2's bias) is applied first and stored to its output.

>>> import numpy as np, tinycomp
>>> a = np.random.default_rng(0).standard_normal((20, 9)).astype(np.float32)
>>> program = tinycomp.compile(lambda a, b: a @ b, a, a.T.copy(), target="gpu-sim")
>>> bool(np.allclose(program(a, a.T.copy()), a @ a.T, atol=1e-5))
True
>>> text = program.stages["loops"]
>>> text.count("gpu.barrier"), "vector.load" in text
(2, True)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tinycomp.affine.expr import AffineBinaryExpr, AffineConstantExpr, AffineDimExpr, AffineExpr
from tinycomp.dialects.arith import ConstantOp
from tinycomp.dialects.arith.binary import AddFOp, AddIOp, AndIOp, DivUIOp, MulFOp, MulIOp, RemUIOp
from tinycomp.dialects.arith.cast import ExtFOp, TruncFOp
from tinycomp.dialects.arith.compare import CmpIOp
from tinycomp.dialects.gpu import (
    BarrierOp,
    BlockIdOp,
    GPUFuncOp,
    ReturnOp,
    ThreadIdOp,
    address_space,
)
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref.access import LoadOp, StoreOp
from tinycomp.dialects.scf.control import IfOp, YieldOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.dialects.vector.memory import LoadOp as VectorLoadOp
from tinycomp.dialects.vector.position import ExtractOp
from tinycomp.ir.builder import Builder
from tinycomp.ir.operation import Operation
from tinycomp.ir.types import FunctionType, MemRefType, Type, f32, index
from tinycomp.ir.values import Value
from tinycomp.passes.gpu.contraction_roles import THREADS, BlockTiles, ContractionRoles

__all__ = ["GemmKernel", "build_gemm_kernel"]


@dataclass(frozen=True)
class GemmKernel:
    """A built kernel and what its launch needs."""

    func: GPUFuncOp
    arguments: tuple[Value, ...]
    """The host's memrefs, in the kernel's argument order."""
    grid: tuple[int, int, int]
    """Blocks along x (N tiles), y (M tiles), z (batch)."""


class _Writer:
    """Inserts ops at one point of the kernel, with index arithmetic made short."""

    def __init__(self, builder: Builder, constants: Builder) -> None:
        self.b = builder
        self.constants = constants
        self.cache: dict[tuple[float, Type], Value] = {}

    def at(self, builder: Builder) -> _Writer:
        writer = _Writer(builder, self.constants)
        writer.cache = self.cache
        return writer

    def const(self, value: float, type_: Type = index) -> Value:
        key = (value, type_)
        if key not in self.cache:
            self.cache[key] = self.constants.insert(ConstantOp.build(value, type_)).result
        return self.cache[key]

    def op(self, op: Operation) -> Value:
        return self.b.insert(op).results[0]

    def add(self, x: Value, y: Value | int) -> Value:
        if isinstance(y, int):
            if y == 0:
                return x
            y = self.const(y)
        return self.op(AddIOp.build(x, y))

    def mul(self, x: Value, y: int) -> Value:
        return x if y == 1 else self.op(MulIOp.build(x, self.const(y)))

    def div(self, x: Value, y: int) -> Value:
        return x if y == 1 else self.op(DivUIOp.build(x, self.const(y)))

    def rem(self, x: Value, y: int) -> Value:
        return self.op(RemUIOp.build(x, self.const(y)))

    def below(self, x: Value, bound: int) -> Value:
        return self.op(CmpIOp.build("ult", x, self.const(bound)))

    def both(self, conditions: list[Value]) -> Value | None:
        """The conjunction of ``conditions`` (``None`` when there are none)."""
        if not conditions:
            return None
        result = conditions[0]
        for other in conditions[1:]:
            result = self.op(AndIOp.build(result, other))
        return result

    def loop(self, trip_count: int, step: int = 1) -> tuple[Value, _Writer]:
        """A constant-bound ``scf.for`` (the simulator takes it as unrolled when short)."""
        loop = self.b.insert(
            ForOp.build(self.const(0), self.const(trip_count * step), self.const(step))
        )
        return loop.induction_var, self.at(Builder.before(loop.body.terminator))

    def delinearize(self, linear: Value, loops: tuple[int, ...], sizes: tuple[int, ...]):
        """The value of each loop in ``loops`` (outermost first) for a linear index."""
        values: dict[int, Value] = {}
        for position, loop in enumerate(reversed(loops)):
            outermost = position == len(loops) - 1
            values[loop] = linear if outermost else self.rem(linear, sizes[loop])
            if not outermost:
                linear = self.div(linear, sizes[loop])
        return values

    def expr(self, e: AffineExpr, dims: dict[int, Value]) -> Value:
        """An indexing map's result, as arith ops on the loops' values."""
        if isinstance(e, AffineDimExpr):
            return dims[e.position]
        if isinstance(e, AffineConstantExpr):
            return self.const(e.value)
        assert isinstance(e, AffineBinaryExpr) and e.kind in ("add", "mul", "floordiv", "mod")
        lhs, rhs = self.expr(e.lhs, dims), self.expr(e.rhs, dims)
        kinds = {"add": AddIOp, "mul": MulIOp, "floordiv": DivUIOp, "mod": RemUIOp}
        return self.op(kinds[e.kind].build(lhs, rhs))

    def guarded(self, condition: Value | None, compute: Callable[[_Writer], Value]) -> Value:
        """``compute``'s f32 value where ``condition`` holds, else 0.0."""
        if condition is None:
            return compute(self)
        branch = self.b.insert(IfOp.build(condition, [f32]))
        then_block, else_block = (region.blocks[0] for region in branch.regions)
        value = compute(self.at(Builder.at_end(then_block)))
        then_block.append(YieldOp.build([value]))
        else_block.append(YieldOp.build([self.const(0.0, f32)]))
        return branch.results[0]

    def when(self, condition: Value | None) -> _Writer:
        """A writer inside ``scf.if condition`` (here, without one)."""
        if condition is None:
            return self
        branch = self.b.insert(IfOp.build(condition))
        return self.at(Builder.before(branch.regions[0].blocks[0].terminator))

    def payload(self, op: GenericOp, result: Value, known: dict[Value, Value]) -> Value:
        """The payload ops of ``op`` that ``result`` needs, copied here; ``known`` maps
        the payload's block arguments to their values in the kernel."""
        needed: set[Operation] = set()
        stack = [result]
        while stack:
            producer = stack.pop().defining_op()
            if producer is not None and op.is_ancestor_of(producer) and producer not in needed:
                needed.add(producer)
                stack.extend(producer.operands)
        mapping = dict(known)
        for payload_op in op.body.ops:
            if payload_op not in needed:
                continue
            for operand in payload_op.operands:  # a constant of the host function
                owner = operand.defining_op()
                if operand not in mapping and owner is not None and not op.is_ancestor_of(owner):
                    mapping[operand] = self.constants.insert(owner.clone()).results[0]
            self.b.insert(payload_op.clone(mapping))
        return mapping.get(result, result)

    def widened(self, value: Value) -> Value:
        return value if value.type == f32 else self.op(ExtFOp.build(value, f32))


def build_gemm_kernel(
    name: str,
    roles: ContractionRoles,
    tiles: BlockTiles,
    initial: float | None,
    epilogue: GenericOp | None,
) -> GemmKernel:
    """Steps 1-3: the ``gpu.func`` for ``roles.op`` (on memrefs) with ``tiles``.
    ``initial``: the value the output was filled with (``None``: read the output);
    ``epilogue``: an elementwise op on the output, applied before the store."""
    op = roles.op
    out_buffer = op.outputs[0]
    host_values: list[Value] = [*op.inputs]
    if epilogue is not None:
        host_values += [v for v in epilogue.inputs if v is not out_buffer]
        host_values.append(epilogue.outputs[0])
    if epilogue is None or initial is None:
        host_values.append(out_buffer)
    arguments = tuple(dict.fromkeys(host_values))  # unique, in order
    workgroup = address_space("workgroup")
    private = address_space("private")
    a_tile = MemRefType((tiles.bk, tiles.bm), f32, memory_space=workgroup)
    b_tile = MemRefType((tiles.bk, tiles.bn), f32, memory_space=workgroup)
    registers = [
        MemRefType((tiles.tm * tiles.tn,), f32, memory_space=private),
        MemRefType((tiles.tm,), f32, memory_space=private),
        MemRefType((tiles.tn,), f32, memory_space=private),
    ]
    func = GPUFuncOp.build(
        name,
        FunctionType([v.type for v in arguments], []),
        kernel=True,
        workgroup=[a_tile, b_tile],
        private=registers,
    )
    entry = func.entry_block
    inside = dict(zip(arguments, entry.arguments, strict=False))
    a_shared, b_shared = func.workgroup_attributions
    acc, reg_a, reg_b = func.private_attributions
    entry.append(ReturnOp.build())
    tid_op = Builder.before(entry.terminator).insert(ThreadIdOp.build("x"))
    w = _Writer(Builder.before(entry.terminator), Builder.before(tid_op))
    tid = tid_op.result
    batch, m_size, n_size, k_size = roles.gemm_shape
    sizes = roles.sizes
    tx, ty = w.rem(tid, 16), w.div(tid, 16)
    n0 = w.mul(w.op(BlockIdOp.build("x")), tiles.bn)
    m0 = w.mul(w.op(BlockIdOp.build("y")), tiles.bm)
    batch_dims = w.delinearize(w.op(BlockIdOp.build("z")), roles.batch, sizes)
    m_thread, n_thread = w.add(m0, w.mul(ty, tiles.tm)), w.add(n0, w.mul(tx, tiles.tn))
    partial_m, partial_n = m_size % tiles.bm != 0, n_size % tiles.bn != 0

    def output_point(x: _Writer, i: Value, j: Value):
        """Step 1/3's element (i, j) of the thread's tile: its loops and whether it is in."""
        g_m, g_n = x.add(m_thread, i), x.add(n_thread, j)
        inside_problem = x.both(
            [x.below(g_m, m_size)] * partial_m + [x.below(g_n, n_size)] * partial_n
        )
        return g_m, g_n, inside_problem

    def loops_at(x: _Writer, g_m: Value, g_n: Value) -> dict[int, Value]:
        dims = dict(batch_dims)
        dims.update(x.delinearize(g_m, roles.m, sizes))
        dims.update(x.delinearize(g_n, roles.n, sizes))
        return dims

    out_map = op.indexing_maps()[-1]
    i, wi = w.loop(tiles.tm)  # step 1
    j, wj = wi.loop(tiles.tn)
    slot = wj.add(wj.mul(i, tiles.tn), j)
    if initial is None:
        g_m, g_n, ok = output_point(wj, i, j)

        def read_output(x: _Writer) -> Value:
            at = [x.expr(e, loops_at(x, g_m, g_n)) for e in out_map.results]
            return x.widened(x.op(LoadOp.build(inside[out_buffer], at)))

        start = wj.guarded(ok, read_output)
    else:
        start = wj.const(float(initial), f32)
    wj.b.insert(StoreOp.build(start, acc, [slot]))

    sides = []
    for inputs, factor, along_k, loops, origin, extent, width, shared in (
        (roles.a_inputs, roles.a_factor, roles.a_along_k, roles.m, m0, m_size, tiles.bm, a_shared),
        (roles.b_inputs, roles.b_factor, roles.b_along_k, roles.n, n0, n_size, tiles.bn, b_shared),
    ):  # where each thread starts copying, before the loop over K
        if along_k:
            start_at = (w.div(tid, tiles.bk), w.rem(tid, tiles.bk), THREADS // tiles.bk, 0)
        else:
            start_at = (w.rem(tid, width), w.div(tid, width), 0, THREADS // width)
        sides.append((inputs, factor, loops, origin, extent, width, shared, start_at))
    a_first, b_first = w.mul(ty, tiles.tm), w.mul(tx, tiles.tn)
    k0, wk = w.loop(-(-k_size // tiles.bk), tiles.bk)  # step 2
    for inputs, factor, loops, origin, extent, width, shared, start_at in sides:  # step 2a
        row, col, row_step, col_step = start_at
        it, wc = wk.loop(width * tiles.bk // THREADS)
        row_here, col_here = wc.add(row, wc.mul(it, row_step)), wc.add(col, wc.mul(it, col_step))
        g_mn, g_k = wc.add(origin, row_here), wc.add(k0, col_here)
        ok = wc.both(
            [wc.below(g_mn, extent)] * (extent % width != 0)
            + [wc.below(g_k, k_size)] * (k_size % tiles.bk != 0)
        )

        def element(x: _Writer, inputs=inputs, factor=factor, loops=loops, g_mn=g_mn, g_k=g_k):
            dims = dict(batch_dims)
            dims.update(x.delinearize(g_mn, loops, sizes))
            dims.update(x.delinearize(g_k, roles.k, sizes))
            known = {}
            for position in inputs:
                at = [x.expr(e, dims) for e in op.indexing_maps()[position].results]
                value = x.op(LoadOp.build(inside[op.inputs[position]], at))
                known[op.body.arguments[position]] = value
            return x.widened(x.payload(op, factor, known))

        value = wc.guarded(ok, element)
        wc.b.insert(StoreOp.build(value, shared, [col_here, row_here]))
    wk.b.insert(BarrierOp.build())  # step 2b
    kk, wkk = wk.loop(tiles.bk)  # step 2c
    for shared, registers_of, first, count in (
        (a_shared, reg_a, a_first, tiles.tm),
        (b_shared, reg_b, b_first, tiles.tn),
    ):
        lanes = min(4, count)
        for start_at in range(0, count, lanes):
            at = [kk, wkk.add(first, start_at)]
            if lanes == 1:
                wkk.b.insert(StoreOp.build(wkk.op(LoadOp.build(shared, at)), registers_of,
                                           [wkk.const(start_at)]))  # fmt: skip
                continue
            vector = wkk.op(VectorLoadOp.build(shared, at, lanes))
            for lane in range(lanes):
                part = wkk.op(ExtractOp.build(vector, [lane]))
                wkk.b.insert(StoreOp.build(part, registers_of, [wkk.const(start_at + lane)]))
    ci, wci = wkk.loop(tiles.tm)
    a_value = wci.op(LoadOp.build(reg_a, [ci]))
    cj, wcj = wci.loop(tiles.tn)
    b_value = wcj.op(LoadOp.build(reg_b, [cj]))
    slot = wcj.add(wcj.mul(ci, tiles.tn), cj)
    product = wcj.op(MulFOp.build(a_value, b_value))
    total = wcj.op(AddFOp.build(wcj.op(LoadOp.build(acc, [slot])), product))
    wcj.b.insert(StoreOp.build(total, acc, [slot]))
    wk.b.insert(BarrierOp.build())  # step 2d

    i, wi = w.loop(tiles.tm)  # step 3
    j, wj = wi.loop(tiles.tn)
    slot = wj.add(wj.mul(i, tiles.tn), j)
    g_m, g_n, ok = output_point(wj, i, j)
    ws = wj.when(ok)
    value = ws.op(LoadOp.build(acc, [slot]))
    element_type = out_buffer.type.element_type  # type: ignore[attr-defined]
    if element_type != f32:
        value = ws.op(TruncFOp.build(value, element_type))
    at = [ws.expr(e, loops_at(ws, g_m, g_n)) for e in out_map.results]
    target = out_buffer
    if epilogue is not None:
        value, at, target = _apply_epilogue(ws, epilogue, out_buffer, value, at, inside)
    ws.b.insert(StoreOp.build(value, inside[target], at))
    return GemmKernel(func, arguments, (-(-n_size // tiles.bn), -(-m_size // tiles.bm), batch))


def _apply_epilogue(
    w: _Writer,
    epilogue: GenericOp,
    produced: Value,
    value: Value,
    at: list[Value],
    inside: dict[Value, Value],
) -> tuple[Value, list[Value], Value]:
    """Step 3's epilogue: its loops from the output element's indices (its output map is
    a permutation), its other inputs loaded, its payload copied; the value, where it
    goes and the buffer."""
    maps = epilogue.indexing_maps()
    loops = {e.position: index_value for e, index_value in zip(maps[-1].results, at, strict=True)}
    known = {}
    for position, operand in enumerate(epilogue.inputs):
        argument = epilogue.body.arguments[position]
        if operand is produced:
            known[argument] = value
            continue
        indices = [w.expr(e, loops) for e in maps[position].results]  # type: ignore[arg-type]
        known[argument] = w.op(LoadOp.build(inside[operand], indices))
    result = w.payload(epilogue, epilogue.body.terminator.operands[0], known)
    return result, at, epilogue.outputs[0]

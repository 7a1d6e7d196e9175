"""``cpu-contraction-to-blis``: contractions on buffers become calls to a generated BLIS GEMM.

The pass runs after bufferization (memrefs, ``bufferize.result`` out-params) and before
``convert-linalg-to-loops``. What it does to a function, in order:

1. Find the contractions: each ``linalg.generic`` that ``match_contraction`` accepts
   (matmul, batch matmul, either operand transposed, f32, a payload of exactly
   ``out + a * b``), or accepts once ``split_fused_producers`` has computed a producer
   fused into its payload into a buffer (attention's ``softmax(s) @ v``, mlp2's
   ``gelu(h + b1) @ w2``). One that looks like a contraction but is not taken (bf16, a
   convolution window) is left alone for the loops and recorded as a fallback, with the
   reason. A convolution (NHWC x HWCF) becomes im2col + matmul first (``im2col.py``).
2. Choose the blocking from the machine model (``choose_blocking(machine)``; the
   machine is a parameter, so a test can use a preset), once per pass.
3. The init: a ``linalg.fill`` of 0 (or the generic form of one) of the output just
   before the contraction is BLIS's ``beta = 0``: the fill goes, and the driver stores
   the first KC block instead of adding it. Anything else is ``beta = 1``: the driver
   adds to what the output holds.
4. Replace the contraction, in place: allocate the packed A block and B panel (sized
   for these shapes, 64-byte aligned), then, for each batch index (an ``scf.for`` per
   batch loop), view A, B and C as 2-D strided matrices (``memref.reinterpret_cast``:
   a transposed operand is the same buffer with its strides swapped, a batch is an
   offset) and call the driver; free the packed buffers after the loops.
5. Insert the driver, the packing functions and the micro-kernel that the calls need
   into the module as private ``func.func``s, named by their blocking
   (``blis/functions.py``), once: two matmuls with one blocking share them.
6. Record one ``StrategyDecision`` per contraction found in step 1.

>>> import numpy as np, tinycomp
>>> from tinycomp.compiler import CompileOptions
>>> from tinycomp.targets.cpu.machine import PRESETS
>>> blis = CpuContractionToBlisPass(PRESETS["laptop-avx2"])
>>> options = CompileOptions(extra_passes={"bufferized": [blis]})
>>> a, b = np.ones((7, 13), np.float32), np.ones((13, 5), np.float32)
>>> program = tinycomp.compile(lambda a, b: a @ b, a, b, options=options)
>>> print(blis.decisions[0].reason)
f32 matmul 7x5x13, beta=0 (the fill of 0 folded), blocking MR=6 NR=16 KC=168 MC=192 NC=2720
>>> [line.split("(")[0].strip() for line in program.stages["loops"].splitlines()
...  if "call @blis" in line and "_gemm_" in line]
['call @blis_6x16_kc168_mc192_nc2720_gemm_bn']
>>> bool(np.allclose(program(a, b), a @ b))
True
"""

from __future__ import annotations

import math

from tinycomp.dialects.arith import AddIOp, ConstantOp, MulIOp
from tinycomp.dialects.func import CallOp, FuncOp
from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.dialects.linalg.generic import GenericOp
from tinycomp.dialects.memref import AllocOp, CollapseShapeOp, DeallocOp, ReinterpretCastOp
from tinycomp.dialects.scf.for_op import ForOp
from tinycomp.ir import parse
from tinycomp.ir.builder import Builder
from tinycomp.ir.naming import SSANames
from tinycomp.ir.op_names import op_name
from tinycomp.ir.operation import Operation
from tinycomp.ir.printer import naming_root
from tinycomp.ir.type_helpers import strides_and_offset
from tinycomp.ir.types import DYNAMIC, MemRefType, f32, index
from tinycomp.ir.values import OpResult, Value
from tinycomp.passes.pass_base import Pass
from tinycomp.passes.registry import register_pass
from tinycomp.passes.strategy import StrategyDecision, StrategyPass
from tinycomp.targets.cpu.blis.blocking import Blocking, choose_blocking
from tinycomp.targets.cpu.blis.functions import ROWS, STRIDED, driver_name, gemm_functions
from tinycomp.targets.cpu.contraction import Contraction, NotAContraction, match_contraction
from tinycomp.targets.cpu.fused_producers import split_fused_producers
from tinycomp.targets.cpu.im2col import conv_to_matmul
from tinycomp.targets.cpu.machine import CpuMachine, detect_machine

__all__ = ["CpuContractionToBlisPass"]

ALIGNMENT = 64
"""Packed buffers start on a cache line (one zmm register)."""


def _kernel_name(generic: GenericOp) -> str:
    """A kernel on buffers has no result to be named by: name it by the buffer it writes
    (``linalg.generic into %arg2``), as the printer names that buffer."""
    names = SSANames(naming_root(generic), use_asm_names=True)
    written = ", ".join(names.value_name(value) for value in generic.outputs)
    return f"{op_name(generic, names)} into {written}" if written else op_name(generic, names)


class CpuContractionToBlisPass(StrategyPass, Pass):
    """Lower f32 contractions on buffers through the BLIS strategy (module docstring).

    ``machine`` (default: this machine, ``detect_machine()``) gives the blocking;
    ``blocking`` overrides it (an experiment, or a test of the edges);
    ``split_producers=False`` leaves contractions with a fused producer to the loops.
    """

    name = "cpu-contraction-to-blis"
    summary = "lower f32 contractions on memrefs to calls of a generated BLIS GEMM"

    def __init__(
        self,
        machine: CpuMachine | None = None,
        blocking: Blocking | None = None,
        split_producers: bool = True,
    ) -> None:
        super().__init__()
        self.split_producers = split_producers
        """Compute a producer fused into a contraction's payload into a buffer first
        (``fused_producers.py``); ``False`` leaves such a contraction to the loops."""
        self.machine = machine
        """The machine model the blocking comes from (``None``: detected when run)."""
        self.blocking = blocking
        """A fixed blocking instead of the machine's."""

    def run(self, op: Operation) -> None:
        self.decisions = []
        generics = [g for g in op.walk() if isinstance(g, GenericOp) and g.is_buffer_semantics]
        blocking = self.blocking
        needed: dict[str, str] = {}
        for generic in generics:  # step 1
            kernel = _kernel_name(generic)
            found, note = self._match(generic)
            if not isinstance(found, Contraction):
                if found.contraction_like:
                    self.decisions.append(
                        StrategyDecision(kernel, "loops", found.reason, chosen=False)
                    )
                    self.statistics["contractions left to loops"] += 1
                continue
            problem = _layout_problem(found)
            if problem is not None:
                self.decisions.append(StrategyDecision(kernel, "loops", problem, chosen=False))
                self.statistics["contractions left to loops"] += 1
                continue
            if blocking is None:  # step 2
                machine = self.machine if self.machine is not None else detect_machine()
                blocking = choose_blocking(machine)
            fill = _zero_fill_before(found.op)  # step 3
            beta = "beta=0 (the fill of 0 folded)" if fill is not None else "beta=1 (accumulates)"
            if fill is not None:
                fill.erase()
            needed.update(_replace(found, blocking, accumulate=fill is None))  # step 4
            b = blocking
            reason = (
                f"{found.describe()}{note}, {beta}, blocking MR={b.mr} NR={b.nr} KC={b.kc} "
                f"MC={b.mc} NC={b.nc}"
            )
            self.decisions.append(StrategyDecision(kernel, "blis", reason))  # step 6
            self.statistics["contractions lowered to blis"] += 1
        if needed:
            _insert_functions(op, needed)  # step 5

    def _match(self, generic: GenericOp) -> tuple[Contraction | NotAContraction, str]:
        """Step 1 for one op: the contraction (after im2col or a split, said in the
        note), or why not."""
        found = match_contraction(generic)
        if isinstance(found, Contraction) or not found.contraction_like and generic.num_inputs < 3:
            return found, ""
        if "convolution" in found.reason:
            matmul = conv_to_matmul(generic)
            if isinstance(matmul, str):
                return NotAContraction(f"conv2d: {matmul}", contraction_like=True), ""
            rows, cols = matmul.inputs[0].type.shape
            return match_contraction(matmul), f" (conv2d by im2col into a {rows}x{cols} buffer)"
        unfused = split_fused_producers(generic, apply=self.split_producers)
        if isinstance(unfused, str):
            if unfused.endswith("the micro-kernel is f32"):  # a contraction, of another type
                return NotAContraction(unfused, contraction_like=True), ""
            return found, ""
        if not self.split_producers:
            reason = "a producer is fused into the payload (split_producers=False)"
            return NotAContraction(reason, contraction_like=True), ""
        return match_contraction(unfused), ", its fused producer computed into a buffer first"


def _layout_problem(c: Contraction) -> str | None:
    """Why the operands' layouts keep ``c`` from the strategy (static strides needed,
    and C's rows contiguous), or ``None``."""
    a, b, out = c.op.operands
    for name, value in (("A", a), ("B", b), ("C", out)):
        strides, offset = strides_and_offset(value.type)
        if offset is DYNAMIC or DYNAMIC in strides:
            return f"{name} has a dynamic layout (a tile of a buffer?): the views need its strides"
    if strides_and_offset(out.type)[0][-1] != 1:
        return "the rows of C are not contiguous"
    m, n, k = c.mnk
    if 0 in (m, n, k):
        return f"an empty contraction ({m}x{n}x{k})"
    return None


def _zero_fill_before(generic: GenericOp) -> Operation | None:
    """Step 3: the op just before ``generic`` when it fills ``generic``'s output with 0."""
    fill = generic.prev_op
    output = generic.operands[-1]
    if isinstance(output, OpResult) and isinstance(output.op, CollapseShapeOp):
        output = output.op.operands[0]  # a conv2d's output seen as a matrix
    if not isinstance(fill, StructuredOp) or list(fill.outputs) != [output]:
        return None
    if fill.name == "linalg.fill":
        value = fill.inputs[0]
    elif isinstance(fill, GenericOp) and fill.num_inputs == 1:
        body = list(fill.body.ops)
        if len(body) != 1 or list(body[0].operands) != [fill.body.arguments[0]]:
            return None
        if fill.reduction_dims() or fill.indexing_maps()[0].num_results:
            return None
        value = fill.inputs[0]
    else:
        return None
    constant = value.op if isinstance(value, OpResult) else None
    if not isinstance(constant, ConstantOp) or value.type != f32:
        return None
    number = getattr(constant.value, "value", None)
    return fill if number == 0.0 else None


def _replace(c: Contraction, blocking: Blocking, accumulate: bool) -> dict[str, str]:
    """Step 4; returns the functions the call needs (name -> text)."""
    generic = c.op
    a, b, out = generic.operands
    a_dims, b_dims, c_dims = ([r.position for r in m.results] for m in generic.indexing_maps())
    a_strides, a_offset = strides_and_offset(a.type)
    b_strides, b_offset = strides_and_offset(b.type)
    c_strides, c_offset = strides_and_offset(out.type)
    m, n, k = c.mnk
    rows_contiguous = b_strides[b_dims.index(c.n)] == 1
    driver = driver_name(blocking, rows_contiguous, accumulate)
    functions = gemm_functions(blocking, rows_contiguous, accumulate)

    builder = Builder.before(generic)
    constants: dict[int, Value] = {}

    def const(value: int) -> Value:
        if value not in constants:
            constants[value] = builder.insert(ConstantOp.build(value, index)).result
        return constants[value]

    kc = min(blocking.kc, k)
    a_size = math.ceil(min(blocking.mc, m) / blocking.mr) * blocking.mr * kc
    b_size = math.ceil(min(blocking.nc, n) / blocking.nr) * blocking.nr * kc
    packed_type = MemRefType((DYNAMIC,), f32)
    a_packed = builder.insert(AllocOp.build(packed_type, [const(a_size)], alignment=ALIGNMENT))
    b_packed = builder.insert(AllocOp.build(packed_type, [const(b_size)], alignment=ALIGNMENT))
    a_packed.result.name_hint, b_packed.result.name_hint = "a_packed", "b_packed"
    for value in (m, n, k, 1, *(s for s in (*a_strides, *b_strides, *c_strides))):
        const(value)
    zero = const(0)
    inner = builder
    batch_ivs: list[Value] = []
    for size in c.batch_sizes:
        loop = inner.insert(ForOp.build(zero, const(size), const(1)))
        loop.induction_var.name_hint = "batch"
        batch_ivs.append(loop.induction_var)
        inner = Builder.before(loop.body.last_op)

    def view(
        source: Value,
        dims: list[int],
        strides,
        offset: int,
        rows: int,
        cols: int,
        logical: tuple[int, int],
        contiguous: bool,
    ) -> Value:
        at: Value = const(offset)
        for iv, loop_dim in zip(batch_ivs, c.batch, strict=True):
            step = inner.insert(MulIOp.build(iv, const(strides[dims.index(loop_dim)]))).result
            at = inner.insert(AddIOp.build(at, step)).result
        row_stride = const(strides[dims.index(logical[0])])
        col_stride = 1 if contiguous else const(strides[dims.index(logical[1])])
        result_type = parse_memref_type(ROWS if contiguous else STRIDED)
        cast = ReinterpretCastOp.build(
            source, at, [const(rows), const(cols)], [row_stride, col_stride], result_type
        )
        return inner.insert(cast).result

    a_view = view(a, a_dims, a_strides, a_offset, m, k, (c.m, c.k), False)
    b_view = view(b, b_dims, b_strides, b_offset, k, n, (c.k, c.n), rows_contiguous)
    c_view = view(out, c_dims, c_strides, c_offset, m, n, (c.m, c.n), True)
    args = [a_view, b_view, c_view, a_packed.result, b_packed.result]
    inner.insert(CallOp.build(driver, args, result_types=[]))
    after = Builder.after(generic)
    after.insert(DeallocOp.build(b_packed.result))
    after.insert(DeallocOp.build(a_packed.result))
    generic.erase()
    return functions


_TYPES: dict[str, MemRefType] = {}


def parse_memref_type(text: str) -> MemRefType:
    """The memref type written ``text`` (parsed once)."""
    if text not in _TYPES:
        function = parse(f"func.func private @t(%x: {text})").body.first_op
        _TYPES[text] = function.function_type.inputs[0]
    return _TYPES[text]


def _insert_functions(op: Operation, needed: dict[str, str]) -> None:
    """Step 5: the functions ``needed`` that the module lacks, appended to it."""
    module = op
    while module.name != "builtin.module" and module.parent_op() is not None:
        module = module.parent_op()
    present = {f.sym_name for f in module.regions[0].blocks[0].ops if isinstance(f, FuncOp)}
    missing = [text for name, text in needed.items() if name not in present]
    if not missing:
        return
    functions = parse("module {\n" + "\n\n".join(missing) + "\n}")
    block = module.regions[0].blocks[0]
    for function in list(functions.regions[0].blocks[0].ops):
        block.append(function.detach())


register_pass(CpuContractionToBlisPass)

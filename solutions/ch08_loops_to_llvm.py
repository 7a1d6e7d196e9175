"""Chapter 08: loops to LLVM IR, native code and vector instructions.

tinycomp writes LLVM IR as text, one small emitter function per op; LLVM (through
llvmlite, in this process) optimizes it and makes machine code. Three tasks:

1. ``emit_fpowi``: the LLVM emitter of ``math.fpowi`` (a float raised to an integer
   power), the one math op the emitter lacks. Graded by JIT-compiling kernels that use
   it and comparing them with numpy.
2. ``cache_blocking``: the block sizes KC, MC and NC of a BLIS GEMM for a cache
   hierarchy, by the analytical model of Low et al. (2016). Graded on named and random
   hierarchies.
3. ``microkernel_ir`` and ``choose_tile``: a register-blocked GEMM micro-kernel in
   tinycomp IR with the vector dialect, and the tile shape that lets it do the most
   work per load. Graded by the interpreter and native code against numpy, and by
   counting the instructions of its inner loop in the assembly LLVM makes for an AVX2
   and an AVX-512 core.

The worked example ``axpy_vector_ir`` shows the vector dialect on a simpler loop. Fill in
each TODO, then run ``tinycomp grade ch08``. The last cells of
``chapters/08_loops_to_llvm.ipynb`` run your code.
"""

from __future__ import annotations

import math

# The building blocks the tasks need are imported for you ("noqa: F401" keeps the linter
# quiet about the names your code does not use yet).
from tinycomp.codegen.llvm import FunctionEmitter  # noqa: F401
from tinycomp.ir import Operation

__all__ = [
    "NC_WITHOUT_L3",
    "Cache",
    "axpy_vector_ir",
    "cache_blocking",
    "choose_tile",
    "emit_fpowi",
    "microkernel_ir",
]


# -- worked example ----------------------------------------------------------------------
def axpy_vector_ir(lanes: int = 8) -> str:
    """``y[i] += a * x[i]`` over ``memref<?xf32>`` with ``vector<LANESxf32>`` steps.

    The loop runs ``lanes`` elements per iteration (callers pass lengths that are a
    multiple of ``lanes``): one ``vector.load`` of each operand, one ``vector.fma``
    with the broadcast scalar, one ``vector.store``. LLVM turns each vector op into one
    instruction on a ``ymm`` (8 floats) or ``zmm`` (16 floats) register.

    >>> import numpy as np, tinycomp
    >>> from tinycomp.ir import parse
    >>> x = np.arange(16, dtype=np.float32)
    >>> y = np.ones(16, dtype=np.float32)
    >>> _ = tinycomp.interpret(parse(axpy_vector_ir()), np.float32(2), x, y, entry="axpy")
    >>> y[:4]
    array([1., 3., 5., 7.], dtype=float32)
    """
    vec = f"vector<{lanes}xf32>"
    return f"""func.func @axpy(%a: f32, %x: memref<?xf32>, %y: memref<?xf32>) {{
  %c0 = arith.constant 0 : index
  %step = arith.constant {lanes} : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %va = vector.broadcast %a : f32 to {vec}
  scf.for %i = %c0 to %n step %step {{
    %vx = vector.load %x[%i] : memref<?xf32>, {vec}
    %vy = vector.load %y[%i] : memref<?xf32>, {vec}
    %r = vector.fma %va, %vx, %vy : {vec}
    vector.store %r, %y[%i] : memref<?xf32>, {vec}
  }}
  return
}}"""


# -- Task 08.1 ---------------------------------------------------------------------------
def emit_fpowi(em: FunctionEmitter, op: Operation) -> None:
    """The LLVM emitter of ``math.fpowi``: a float ``x`` to a signed integer power ``n``.

    **Input.** ``op`` is ``%r = "math.fpowi"(%x, %n) : (F, I) -> F`` (MLIR's generic
    form: tinycomp has no custom syntax for it), where ``F`` is a scalar float type
    (``f16``, ``bf16``, ``f32`` or ``f64``) and ``I`` a signless integer type (``i32``,
    ``i64``). ``em`` is the ``FunctionEmitter`` of the function being written: its API
    (how an operand becomes LLVM text, how a line is written, how an intrinsic is declared
    and called, how a result is bound) is in ``tinycomp/codegen/llvm/registry.py``.

    **Output.** Nothing returned: the op's LLVM instructions are written through ``em``,
    and the op's result is bound to the LLVM value that holds ``x ** n``.

    **Invariants** (what the grader checks, at ``-O0`` and ``-O3``):

    * for every ``n``, zero and negative included, the native code computes ``x ** n`` as
      numpy does, to the precision of ``F``;
    * the code runs in this JIT: the C math library is linked, a compiler runtime is not
      (LLVM's own ``@llvm.powi`` becomes a call of ``__powisf2`` from libgcc or
      compiler-rt, which is missing here, so the call would jump to address 0);
    * every overloaded intrinsic the IR declares is named for the types it is declared
      with (LLVM's LangRef, "Intrinsic Functions": ``@llvm.sqrt.f16`` takes and returns
      ``half``, ``@llvm.sqrt.f32`` ``float``).

    **Example.** Registered as the emitter of ``math.fpowi``, it lets the function
    ``@cube`` of the chapter's section 6 compile and run:

    >>> from tinycomp.codegen.cpu import jit
    >>> from tinycomp.codegen.llvm import EMITTERS, register_emitter
    >>> _ = register_emitter("math.fpowi", replace=True)(emit_fpowi)
    >>> cube = jit('''func.func @cube(%x: f32) -> f32 {
    ...   %three = arith.constant 3 : i32
    ...   %p = "math.fpowi"(%x, %three) : (f32, i32) -> f32
    ...   return %p : f32
    ... }''')
    >>> float(cube["cube"](2.0)), float(cube["cube"](-0.5))
    (8.0, -0.125)
    >>> del EMITTERS["math.fpowi"]

    **Where.** Section 1 (one emitter per op, how a value becomes LLVM text), section 6
    (the error this task removes); ``tinycomp/codegen/llvm/emit_math.py`` shows how the
    other math ops are lowered to intrinsics and to the C library.
    """
    base, exponent = op.operands
    float_type = em.llvm_type(base.type)
    int_type = em.llvm_type(exponent.type)
    short = {"float": "f32", "half": "f16", "bfloat": "bf16", "double": "f64"}
    if float_type not in short:
        raise em.op_error(op, f"expected a scalar float base (f32, f16, bf16), found {base.type}")
    as_float = em.fresh("n")
    em.emit(f"{as_float} = sitofp {int_type} {em.value(exponent)} to {float_type}")
    callee = em.intrinsic(f"llvm.pow.{short[float_type]}", float_type, [float_type, float_type])
    hint = op.results[0].name_hint or "powi"
    arguments = [(float_type, em.value(base)), (float_type, as_float)]
    em.bind(op.results[0], em.call(callee, float_type, arguments, hint))


# -- Task 08.2 ---------------------------------------------------------------------------
Cache = tuple[int, int, int]
"""A cache level as ``(size_bytes, ways, line_bytes)``: ``ways`` slices of
``size_bytes // ways`` bytes each (one *way*)."""

NC_WITHOUT_L3 = 4096
"""NC (before rounding to a multiple of NR) for a core without an L3."""


def cache_blocking(
    mr: int, nr: int, l1: Cache, l2: Cache, l3: Cache | None, itemsize: int = 4
) -> tuple[int, int, int]:
    """``(KC, MC, NC)`` of a BLIS GEMM with an ``MR x NR`` micro-kernel, for these caches.

    **Input.** The micro-tile ``mr x nr``, the caches of one core (``l3`` is this core's
    share, or None without an L3) and the element size ``S = itemsize`` in bytes.

    **Output.** Three positive ints, the largest block sizes that satisfy the model below
    (Low, Igual, Smith and Quintana-Orti, *Analytical Modeling Is Enough for
    High-Performance BLIS*, 2016). In it a cache of ``W`` ways is ``W`` slices of one
    way each; a block of ``b`` contiguous bytes occupies ``ceil(b / way)`` of them, and
    one way of every level is kept for the lines of C.

    * **KC (L1).** The ``KC x NR`` sliver of B stays in L1 while ``MR x KC`` slivers of A
      stream through it. A's sliver may use ``a`` ways, B's sliver ``NR / MR`` times as
      many, and with C's way they fit in ``W1``: ``a`` is the largest whole number of
      ways with ``a * (1 + NR / MR) + 1 <= W1`` (at least 1). KC is the largest depth
      whose A sliver (``MR * KC * S`` bytes) fits in ``a`` ways and is a whole number of
      L1 lines; if no depth fits, the smallest one that is whole lines.
    * **MC (L2).** The ``MC x KC`` block of A stays in L2 beside one B sliver (the ways
      its ``NR * KC * S`` bytes occupy) and C's way. MC is the largest multiple of MR
      whose block fits in the ways left (at least one way), and at least MR.
    * **NC (L3).** The ``KC x NC`` panel of B stays in L3 beside the A block (the ways its
      ``MC * KC * S`` bytes occupy) and C's way. NC is the largest multiple of NR whose
      panel fits in the ways left (at least one), and at least NR. Without an L3, NC is
      ``NC_WITHOUT_L3`` rounded down to a multiple of NR.

    **Example.** A laptop core with BLIS's AVX2 micro-tile: L1 is 32 KiB in 8 ways of
    4 KiB, so ``a = 1`` (two ways would need ``2 * (1 + 16/6) + 1 = 8.3`` of 8); a 6-row A
    sliver of KC floats fits 4096 bytes up to KC = 170, and is whole 64-byte lines when
    KC is a multiple of 8: KC = 168.

    >>> cache_blocking(6, 16, (32768, 8, 64), (262144, 4, 64), (2097152, 16, 64))
    (168, 192, 2720)

    **Where.** Section 7: the five loops around the micro-kernel, what each cache level
    holds, and the library's derivation for the three presets (``explain()``).
    """
    S = itemsize
    size1, ways1, line1 = l1
    way1 = size1 // ways1
    a_ways = max(1, math.floor((ways1 - 1) / (1 + nr / mr)))
    quantum = line1 // math.gcd(line1, mr * S)
    kc = a_ways * way1 // (mr * S)
    kc = max(quantum, kc // quantum * quantum)

    size2, ways2, _ = l2
    way2 = size2 // ways2
    b_ways = math.ceil(nr * kc * S / way2)
    a_block_ways = max(1, ways2 - 1 - b_ways)
    mc = max(mr, a_block_ways * way2 // (kc * S) // mr * mr)

    if l3 is None:
        return kc, mc, max(nr, NC_WITHOUT_L3 // nr * nr)
    size3, ways3, _ = l3
    way3 = size3 // ways3
    a_l3_ways = math.ceil(mc * kc * S / way3)
    panel_ways = max(1, ways3 - 1 - a_l3_ways)
    nc = max(nr, panel_ways * way3 // (kc * S) // nr * nr)
    return kc, mc, nc


# -- Task 08.3 ---------------------------------------------------------------------------
def microkernel_ir(mr: int, nr: int, lanes: int = 8) -> str:
    """A register-blocked GEMM micro-kernel, ``C += A @ B`` on one ``MR x NR`` tile.

    **Input.** The tile ``mr x nr`` (``nr`` a multiple of ``lanes``) and the vector width
    ``lanes`` in f32 elements.

    **Output.** The MLIR text of one function, in tinycomp's dialects (``scf``,
    ``memref``, ``arith``, ``vector``)::

        func.func @tile(%a: memref<MRx?xf32>, %b: memref<?xNRxf32>, %c: memref<MRxNRxf32>)

    that adds ``A @ B`` to ``C`` in place, for any depth ``k`` (the dynamic size).

    **Invariants.**

    * The result equals numpy's ``C + A @ B`` (within f32 rounding), in the reference
      interpreter and as native code, for every ``k`` from 1 up.
    * The tile of C lives in registers while the kernel runs over ``k``: no loop of the
      function reads or writes ``%c``; C is read once before and written once after.
    * The arithmetic is on ``vector<LANESxf32>`` values: no scalar float arithmetic.

    **Example.** ``microkernel_ir(2, 16)`` adds the product of a ``2 x k`` and a
    ``k x 16`` matrix to a ``2 x 16`` tile, which it holds in four ``vector<8xf32>``
    values:

    >>> import numpy as np, tinycomp
    >>> from tinycomp.ir import parse
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.random((2, 5), np.float32), rng.random((5, 16), np.float32)
    >>> c = np.zeros((2, 16), np.float32)
    >>> _ = tinycomp.interpret(parse(microkernel_ir(2, 16)), a, b, c, entry="tile")
    >>> bool(np.allclose(c, a @ b, rtol=1e-5))
    True

    **Where.** Section 4 (the vector dialect, ``iter_args`` as values carried in
    registers), section 7 (the micro-kernel inside BLIS's five loops) and the worked
    example ``axpy_vector_ir``.
    """
    if nr % lanes:
        raise ValueError(f"microkernel_ir: NR={nr} is not a multiple of lanes={lanes}")
    v = nr // lanes
    vec = f"vector<{lanes}xf32>"
    a_type, b_type, c_type = f"memref<{mr}x?xf32>", f"memref<?x{nr}xf32>", f"memref<{mr}x{nr}xf32>"
    lines = [
        f"func.func @tile(%a: {a_type}, %b: {b_type}, %c: {c_type}) {{",
        "  %c0 = arith.constant 0 : index",
        "  %c1 = arith.constant 1 : index",
        "  %k = memref.dim %a, %c1 : " + a_type,
    ]
    for i in range(mr):
        lines.append(f"  %r{i} = arith.constant {i} : index")
    for j in range(v):
        lines.append(f"  %col{j} = arith.constant {j * lanes} : index")
    accs = [(i, j) for i in range(mr) for j in range(v)]
    for i, j in accs:
        lines.append(f"  %c_{i}_{j} = vector.load %c[%r{i}, %col{j}] : {c_type}, {vec}")
    args = ", ".join(f"%acc_{i}_{j} = %c_{i}_{j}" for i, j in accs)
    types = ", ".join([vec] * len(accs))
    results = ", ".join(f"%out_{i}_{j}" for i, j in accs)
    lines.append(f"  {results} = scf.for %p = %c0 to %k step %c1 iter_args({args}) -> ({types}) {{")
    for j in range(v):
        lines.append(f"    %b{j} = vector.load %b[%p, %col{j}] : {b_type}, {vec}")
    for i in range(mr):
        lines.append(f"    %s{i} = memref.load %a[%r{i}, %p] : {a_type}")
        lines.append(f"    %a{i} = vector.broadcast %s{i} : f32 to {vec}")
        for j in range(v):
            lines.append(f"    %n_{i}_{j} = vector.fma %a{i}, %b{j}, %acc_{i}_{j} : {vec}")
    lines.append(f"    scf.yield {', '.join(f'%n_{i}_{j}' for i, j in accs)} : {types}")
    lines.append("  }")
    for i, j in accs:
        lines.append(f"  vector.store %out_{i}_{j}, %c[%r{i}, %col{j}] : {c_type}, {vec}")
    lines += ["  return", "}"]
    return "\n".join(lines)


def choose_tile(registers: int, lanes: int) -> tuple[int, int]:
    """The tile ``(MR, NR)`` for ``microkernel_ir`` on a core with ``registers`` vector
    registers of ``lanes`` f32 elements each.

    **Budget** (an open question: any tile that meets it passes). The grader compiles
    ``microkernel_ir(MR, NR, lanes)`` for a named CPU and counts the instructions of
    every loop of ``@tile`` that does arithmetic, in the assembly LLVM makes (the same
    counts as the chapter's explorer):

    * ``choose_tile(16, 8)``, for ``haswell`` (AVX2, 16 ``ymm`` registers): no spills
      (no access through the stack pointer), no stores, every arithmetic instruction a
      vector FMA on ``ymm``, and at least **1.7 FMAs per load**;
    * ``choose_tile(32, 16)``, for ``skylake-avx512`` (32 ``zmm`` registers): the same
      on ``zmm``, and at least **2.0 FMAs per load**.

    BLIS's own tiles, 6 x 16 and 14 x 32 (the library's ``choose_blocking``), reach 1.5
    and 1.75 FMAs per load: the budget asks for better.

    A *load* is any instruction that reads memory: a vector load of B, a broadcast of an
    element of A, an FMA with a memory operand. The result must have ``NR`` a multiple of
    ``lanes``.

    **Example** (a core that is not graded). With 8 registers of 4 lanes, the tile 2 x 8
    holds 2 x 2 accumulators; one step of ``k`` loads 2 vectors of B and broadcasts 2
    elements of A into 1 register at a time, so it needs 4 + 2 + 1 = 7 registers and does
    4 FMAs for 4 loads: 1.0 FMAs per load, without spills.

    **Where.** Section 7: what one step of ``k`` loads and computes, the register rule in
    the library's ``explain()``, and the explorer, which counts a kernel's hot loop.
    """
    best: tuple[float, int, int, int] | None = None
    for vectors in range(1, registers):  # v vectors of B make one row of the tile
        rows = (registers - vectors - 1) // vectors  # MR * v + v + 1 <= registers
        if rows < 1:
            break
        fmas_per_load = rows * vectors / (rows + vectors)  # one k step: MR + v loads
        candidate = (fmas_per_load, rows * vectors, rows, vectors)
        if best is None or candidate > best:
            best = candidate
    if best is None:
        raise ValueError(f"choose_tile: {registers} registers hold no tile")
    _, _, rows, vectors = best
    return rows, vectors * lanes

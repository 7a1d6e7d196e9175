"""Chapter 08: loops to LLVM IR, native code and vector instructions.

tinycomp writes LLVM IR as text, one small emitter function per op; LLVM (through
llvmlite, in this process) optimizes it and makes machine code. Three tasks:

1. ``emit_fpowi``: the LLVM emitter of ``math.fpowi`` (a float raised to an integer
   power), the one math op the emitter lacks; lowered through
   LLVM's ``@llvm.pow`` intrinsic. Graded by JIT-compiling a kernel that uses it and comparing
   with numpy.
2. ``cache_blocking``: the BLIS block sizes KC, MC and NC of a GEMM for a given cache
   hierarchy, by the analytical rules stated in its docstring (Low et al., 2016).
   Graded against those rules on several machines.
3. ``microkernel_ir``: a register-blocked GEMM micro-kernel in tinycomp IR with the
   vector dialect, ``C[MR x NR] += A[MR x k] @ B[k x NR]``. Graded by the interpreter
   against numpy, by its structure (every FMA a ``vector.fma``) and by the x86 assembly
   LLVM makes of it (vector FMAs on ``ymm``/``zmm`` registers).

The worked example ``axpy_vector_ir`` shows the vector dialect on a simpler loop. Fill in
each TODO, then run ``tinycomp grade ch08``. The last cells of
``chapters/08_loops_to_llvm.ipynb`` run your code.
"""

from __future__ import annotations

import math

# Everything the tasks need is imported for you ("noqa: F401" keeps the linter quiet about
# the names your code does not use yet).
from tinycomp.codegen.llvm import FunctionEmitter  # noqa: F401
from tinycomp.ir import Operation

__all__ = [
    "NC_WITHOUT_L3",
    "Cache",
    "axpy_vector_ir",
    "cache_blocking",
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
    """The LLVM emitter of ``math.fpowi``: ``x`` to the integer power ``n``.

    tinycomp has no custom syntax for this op, so it is written in MLIR's generic form:
    ``%r = "math.fpowi"(%x, %n) : (f32, i32) -> f32``.

    LLVM has an intrinsic for exactly this, ``@llvm.powi.f32.i32``, but on x86 it becomes
    a call to ``__powisf2`` of the compiler's runtime library (libgcc, compiler-rt), which
    this JIT does not link: the call would jump to address 0. So lower it the way
    ``math.powf`` is lowered, through ``@llvm.pow``, whose library function ``powf`` is
    in every process:

    1. take the LLVM types of the base and the exponent (``em.llvm_type``: ``"float"``,
       ``"i32"``);
    2. convert the exponent to the base's type: ``%n.f = sitofp i32 %n to float``
       (a fresh name from ``em.fresh``, the line written with ``em.emit``);
    3. declare ``llvm.pow.<f>`` (``f32``, ``f16``, ``bf16`` for float, half, bfloat) with
       ``em.intrinsic(name, ret, [arg types])``, which returns ``"@name"``;
    4. call it with ``em.call(callee, ret, [(type, operand text), ...], hint)``, which
       returns the result's name, on ``em.value`` of the base and the converted exponent;
    5. bind the op's result to that name (``em.bind``).

    Only scalar bases are asked for; anything else is ``raise em.op_error(op, "...")``.

    >>> from tinycomp.codegen.llvm import emit_llvm, register_emitter, EMITTERS
    >>> from tinycomp.ir import parse
    >>> _ = register_emitter("math.fpowi", replace=True)(emit_fpowi)
    >>> print(emit_llvm(parse('''func.func @cube(%x: f32) -> f32 {
    ...   %c3 = arith.constant 3 : i32
    ...   %r = "math.fpowi"(%x, %c3) : (f32, i32) -> f32
    ...   return %r : f32
    ... }''')).text)
    declare float @llvm.pow.f32(float, float)
    <BLANKLINE>
    define float @cube(float %x) {
    entry:
      %n = sitofp i32 3 to float
      %r = call float @llvm.pow.f32(float %x, float %n)
      ret float %r
    }
    >>> del EMITTERS["math.fpowi"]
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
"""A cache level as ``(size_bytes, ways, line_bytes)``; its sets are ``size / (ways * line)``."""

NC_WITHOUT_L3 = 4096
"""NC (before rounding to a multiple of NR) for a core without an L3."""


def cache_blocking(
    mr: int, nr: int, l1: Cache, l2: Cache, l3: Cache | None, itemsize: int = 4
) -> tuple[int, int, int]:
    """``(KC, MC, NC)`` of a BLIS GEMM with an ``mr x nr`` micro-kernel, by these rules.

    ``S`` is ``itemsize``; a cache of ``W`` ways has ``way = size // W`` bytes per way.
    ``ways(c, b) = ceil(b / way_of_c)`` is the number of ways ``b`` bytes occupy.

    1. **KC (L1).** The KC x NR sliver of B must stay in L1 while MR x KC slivers of A
       stream through. A's sliver gets ``a = max(1, floor((W1 - 1) / (1 + NR / MR)))``
       ways and fills them: ``KC = a * way1 // (MR * S)``; then KC is rounded DOWN to a
       multiple of ``q = L1 // gcd(L1, MR * S)`` (so an A sliver is whole cache lines),
       and is at least ``q``.
    2. **MC (L2).** The MC x KC block of A stays in L2 next to one B sliver
       (``b = ways(l2, NR * KC * S)`` ways) and one way for C: A gets
       ``c = max(1, W2 - 1 - b)`` ways, ``MC = c * way2 // (KC * S)`` rounded DOWN to a
       multiple of MR, and at least MR.
    3. **NC (L3).** The KC x NC panel of B stays in L3 next to the A block
       (``d = ways(l3, MC * KC * S)`` ways) and one way for C: B gets
       ``e = max(1, W3 - 1 - d)`` ways, ``NC = e * way3 // (KC * S)`` rounded DOWN to a
       multiple of NR, and at least NR. Without an L3 (``l3 is None``):
       ``NC = NC_WITHOUT_L3`` rounded down to a multiple of NR.

    >>> cache_blocking(6, 16, (32768, 8, 64), (262144, 4, 64), (2097152, 16, 64))
    (168, 192, 2720)
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
    """``func.func @tile(%a: memref<MRx?xf32>, %b: memref<?xNRxf32>, %c: memref<MRxNRxf32>)``
    computing ``C += A @ B`` with the MR x NR tile of C in registers.

    ``nr`` is a multiple of ``lanes``; ``v = nr // lanes`` vectors make one row of the
    tile. The shape (BLIS's micro-kernel, written with MLIR's vector dialect):

    1. load the ``mr * v`` accumulators ``C[i, j*lanes : (j+1)*lanes]`` (``vector.load``);
    2. one ``scf.for %p`` over ``k`` (``memref.dim %a, %c1``) carrying all accumulators
       as ``iter_args``; in its body, fully unrolled (no loop over i or j): the ``v``
       vectors ``B[p, j*lanes : ...]``, for each row ``i`` the broadcast of ``A[i, p]``
       (``memref.load`` then ``vector.broadcast``), and ``mr * v`` ``vector.fma`` ops
       ``acc[i][j] = fma(a_i, b_j, acc[i][j])``; ``scf.yield`` the new accumulators;
    3. store the accumulators back into C (``vector.store``).

    >>> import numpy as np, tinycomp
    >>> from tinycomp.ir import parse
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.random((2, 5), np.float32), rng.random((5, 16), np.float32)
    >>> c = np.zeros((2, 16), np.float32)
    >>> _ = tinycomp.interpret(parse(microkernel_ir(2, 16)), a, b, c, entry="tile")
    >>> bool(np.allclose(c, a @ b, rtol=1e-5))
    True
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

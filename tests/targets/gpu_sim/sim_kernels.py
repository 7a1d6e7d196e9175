"""Kernels as IR text for the simulator's tests, and a helper that runs one."""

from __future__ import annotations

from typing import Any

from tinycomp.ir import parse
from tinycomp.targets.gpu_sim.simulator import SimulationRun, simulate

SHARED = "#gpu.address_space<workgroup>"
PRIVATE = "#gpu.address_space<private>"


def kernel(body: str, params: str, name: str = "k", attributions: str = "") -> str:
    """A ``gpu.module`` holding one kernel with this body (ending in ``gpu.return``)."""
    return (
        f"gpu.module @kernels {{\n  gpu.func @{name}({params}){attributions} kernel {{\n"
        f"{body}\n    gpu.return\n  }}\n}}"
    )


def line_of(text: str, needle: str) -> int:
    """The 1-based line of the first line of ``text`` containing ``needle``."""
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line:
            return number
    raise AssertionError(f"{needle!r} is not in the kernel")


def run(text: str, grid: Any, block: Any, args: list[Any], **options: Any) -> SimulationRun:
    """Parse and simulate."""
    return simulate(parse(text), grid=grid, block=block, args=args, **options)


GLOBAL_INDEX = """\
    %bx = gpu.block_id  x
    %bd = gpu.block_dim  x
    %tx = gpu.thread_id  x
    %o = arith.muli %bx, %bd : index
    %i = arith.addi %o, %tx : index"""

VECTOR_ADD = kernel(
    f"""{GLOBAL_INDEX}
    %ok = arith.cmpi slt, %i, %n : index
    scf.if %ok {{
      %x = memref.load %a[%i] : memref<?xf32>
      %y = memref.load %b[%i] : memref<?xf32>
      %z = arith.addf %x, %y : f32
      memref.store %z, %c[%i] : memref<?xf32>
    }}""",
    "%a: memref<?xf32>, %b: memref<?xf32>, %c: memref<?xf32>, %n: index",
    name="vector_add",
)

NAIVE_MATMUL = kernel(
    """\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %zero = arith.constant 0.0 : f32
    %bx = gpu.block_id  x
    %by = gpu.block_id  y
    %tx = gpu.thread_id  x
    %ty = gpu.thread_id  y
    %bdx = gpu.block_dim  x
    %bdy = gpu.block_dim  y
    %r0 = arith.muli %by, %bdy : index
    %row = arith.addi %r0, %ty : index
    %q0 = arith.muli %bx, %bdx : index
    %col = arith.addi %q0, %tx : index
    %k = memref.dim %a, %c1 : memref<?x?xf32>
    %sum = scf.for %kk = %c0 to %k step %c1 iter_args(%acc = %zero) -> (f32) {
      %x = memref.load %a[%row, %kk] : memref<?x?xf32>
      %y = memref.load %b[%kk, %col] : memref<?x?xf32>
      %s = math.fma %x, %y, %acc : f32
      scf.yield %s : f32
    }
    memref.store %sum, %c[%row, %col] : memref<?x?xf32>""",
    "%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>",
    name="matmul",
)

TILE = f"memref<16x16xf32, {SHARED}>"
TILED_MATMUL = kernel(
    f"""\
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    %zero = arith.constant 0.0 : f32
    %bx = gpu.block_id  x
    %by = gpu.block_id  y
    %tx = gpu.thread_id  x
    %ty = gpu.thread_id  y
    %r0 = arith.muli %by, %c16 : index
    %row = arith.addi %r0, %ty : index
    %q0 = arith.muli %bx, %c16 : index
    %col = arith.addi %q0, %tx : index
    %sum = scf.for %t = %c0 to %k step %c16 iter_args(%acc = %zero) -> (f32) {{
      %ac = arith.addi %t, %tx : index
      %x = memref.load %a[%row, %ac] : memref<?x?xf32>
      memref.store %x, %as[%ty, %tx] : {TILE}
      %br = arith.addi %t, %ty : index
      %y = memref.load %b[%br, %col] : memref<?x?xf32>
      memref.store %y, %bs[%ty, %tx] : {TILE}
      gpu.barrier
      %part = scf.for %kk = %c0 to %c16 step %c1 iter_args(%a2 = %acc) -> (f32) {{
        %u = memref.load %as[%ty, %kk] : {TILE}
        %w = memref.load %bs[%kk, %tx] : {TILE}
        %p = arith.mulf %u, %w : f32
        %s = arith.addf %a2, %p : f32
        scf.yield %s : f32
      }}
      gpu.barrier
      scf.yield %part : f32
    }}
    memref.store %sum, %c[%row, %col] : memref<?x?xf32>""",
    "%a: memref<?x?xf32>, %b: memref<?x?xf32>, %c: memref<?x?xf32>, %k: index",
    name="tiled",
    attributions=f" workgroup(%as: {TILE}, %bs: {TILE})",
)

TRANSPOSE_TILE = f"memref<32x33xf32, {SHARED}>"
TRANSPOSE = kernel(
    f"""\
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c32 = arith.constant 32 : index
    %bx = gpu.block_id  x
    %by = gpu.block_id  y
    %tx = gpu.thread_id  x
    %ty = gpu.thread_id  y
    %x0 = arith.muli %bx, %c32 : index
    %y0 = arith.muli %by, %c32 : index
    %x = arith.addi %x0, %tx : index
    scf.for %j = %c0 to %c32 step %c8 {{
      %r = arith.addi %ty, %j : index
      %y = arith.addi %y0, %r : index
      %v = memref.load %in[%y, %x] : memref<?x?xf32>
      memref.store %v, %tile[%r, %tx] : {TRANSPOSE_TILE}
    }}
    gpu.barrier
    %xo = arith.addi %y0, %tx : index
    scf.for %j = %c0 to %c32 step %c8 {{
      %r = arith.addi %ty, %j : index
      %yo = arith.addi %x0, %r : index
      %v = memref.load %tile[%tx, %r] : {TRANSPOSE_TILE}
      memref.store %v, %out[%yo, %xo] : memref<?x?xf32>
    }}""",
    "%in: memref<?x?xf32>, %out: memref<?x?xf32>",
    name="transpose",
    attributions=f" workgroup(%tile: {TRANSPOSE_TILE})",
)

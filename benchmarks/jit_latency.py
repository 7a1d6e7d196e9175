"""How long the CPU JIT takes per kernel, how fast the code it makes runs, and what a call
from Python costs.

Three tables, measured in one run; the first two for every kernel of the catalogue
(``tinycomp.testing.KERNELS``) at the shapes of ``BENCH_SHAPES`` (large enough that a
run takes longer than a Python call), f32, untiled:

1. **JIT compile latency** at O0 and O3: ``tinycomp.codegen.cpu.jit`` on the module of
   the ``loops`` stage, best of ``--repeats``, with its phases: ``emit`` (tinycomp
   writes the LLVM IR text), ``parse`` (LLVM reads and verifies it), ``opt`` (LLVM's
   O0/O3 pipeline for the host CPU) and ``codegen`` (MCJIT: instruction selection,
   register allocation, object code, linking into memory).
2. **Run time**, best of ``--repeats`` calls, of the O0 and O3 native code (the
   Python call included: argument checks, out-param allocation) next to numpy on the
   same f32 inputs (``NUMPY_PEERS``: the textbook formula in numpy, computing in
   f32), with the ratio tinycomp / numpy (below 1: tinycomp is faster). Each native
   output is checked against the float64 reference first.

3. **Call overhead** (``--call-overhead`` measures only this one, and stores it in
   ``benchmarks/results/jit_call_overhead_<cpu>.json``): a kernel with five
   ``memref<16xf32>`` arguments that does almost nothing (adds one element of each
   input into the out-param), called through ``CpuFunction`` on numpy arrays, against
   the same native code called directly with ctypes: the packed entry point
   ``@_mlir_main`` with its array of pointers built beforehand (the least any Python
   caller can do), and ``@main`` itself through a ctypes prototype of its 25
   descriptor parameters. The overhead is tinycomp's time minus the packed call's, in
   microseconds, with the ratio; each time is the best of ``--repeats`` runs of a loop
   of calls, per call. The result is checked against numpy first.

numpy's BLAS (``matmul``, ``einsum``) may use several threads; the JIT'ed loops use
one. This script asks OpenBLAS for one thread (``OPENBLAS_NUM_THREADS=1``, set before
numpy is imported, unless already set) so the comparison is core for core.

Usage::

    python benchmarks/jit_latency.py
    python benchmarks/jit_latency.py --repeats 5 --kernels matmul softmax
    python benchmarks/jit_latency.py --call-overhead

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp.codegen.cpu import host_cpu, jit  # noqa: E402
from tinycomp.codegen.cpu.packed import PACKED_PREFIX  # noqa: E402
from tinycomp.codegen.cpu.program import CpuProgram  # noqa: E402
from tinycomp.testing import KERNELS, check_against_reference  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

BENCH_SHAPES: dict[str, dict[str, int]] = {
    "softmax": {"rows": 256, "cols": 512},
    "layernorm": {"rows": 256, "cols": 512},
    "rmsnorm": {"rows": 256, "cols": 512},
    "matmul": {"m": 128, "k": 256, "n": 128},
    "batch_matmul": {"batch": 4, "m": 64, "k": 128, "n": 64},
    "conv2d": {"n": 1, "h": 56, "w": 56, "c": 16, "f": 32, "kh": 3, "kw": 3},
    "conv2d_plain": {"n": 1, "h": 30, "w": 30, "c": 16, "f": 32, "kh": 3, "kw": 3},
    "attention": {"batch": 2, "l": 64, "s": 128, "d": 64, "dv": 64},
    "mlp2": {"m": 64, "k": 128, "hidden": 256, "n": 64},
}


# -- numpy peers: each kernel in numpy, computing in the inputs' dtype -----------------------
def _softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def _layernorm(x, gamma, beta):
    centered = x - x.mean(axis=-1, keepdims=True)
    variance = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(variance + np.float32(1e-5)) * gamma + beta


def _rmsnorm(x, gamma):
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(1e-6)) * gamma


def _conv(x, w, stride: int, padding: int):
    x = np.pad(x, [(0, 0), (padding, padding), (padding, padding), (0, 0)])
    windows = np.lib.stride_tricks.sliding_window_view(x, w.shape[:2], axis=(1, 2))
    windows = windows[:, ::stride, ::stride]  # (n, oh, ow, c, kh, kw)
    return np.einsum("nhwcij,ijcf->nhwf", windows, w, optimize=True)


def _attention(q, k, v):
    scores = q @ np.swapaxes(k, -1, -2) / np.float32(math.sqrt(q.shape[-1]))
    return _softmax(scores) @ v


def _mlp2(x, w1, b1, w2, b2):
    h = x @ w1 + b1
    c = np.float32(math.sqrt(2.0 / math.pi))
    h = np.float32(0.5) * h * (np.float32(1.0) + np.tanh(c * (h + np.float32(0.044715) * h**3)))
    return h @ w2 + b2


NUMPY_PEERS: dict[str, Callable[..., np.ndarray]] = {
    "softmax": _softmax,
    "layernorm": _layernorm,
    "rmsnorm": _rmsnorm,
    "matmul": lambda a, b: a @ b,
    "batch_matmul": lambda a, b: a @ b,
    "conv2d": lambda x, w: _conv(x, w, stride=2, padding=1),
    "conv2d_plain": lambda x, w: _conv(x, w, stride=1, padding=0),
    "attention": _attention,
    "mlp2": _mlp2,
}


def best_seconds(action: Callable[[], object], repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``action()``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def jit_latency(module, opt_level: int, repeats: int) -> dict[str, float]:
    """Best-of ``repeats`` JIT timings (the phases of the fastest run), in seconds."""
    best: dict[str, float] | None = None
    for _ in range(repeats):
        timings = jit(module, opt_level=opt_level).timings
        if best is None or sum(timings.values()) < sum(best.values()):
            best = timings
    assert best is not None
    return best


def measure(name: str, repeats: int) -> tuple[dict, dict]:
    """One kernel: its JIT latencies and run times."""
    kernel = KERNELS[name]
    shape = BENCH_SHAPES[name]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32", **shape)
    loops = tinycomp.compile(kernel.trace("f32", **shape), stop_after="loops")
    latency = {level: jit_latency(loops.module, level, repeats) for level in (0, 3)}
    shapes = tuple(s for s, _ in loops.result_shapes)
    runs = {}
    for level in (0, 3):
        program = CpuProgram(jit(loops.module, opt_level=level), "main", shapes)
        check_against_reference(kernel, program(*inputs), inputs, "f32")
        runs[f"O{level}"] = best_seconds(lambda program=program: program(*inputs), repeats)
    peer = NUMPY_PEERS[name]
    check_against_reference(kernel, peer(*inputs), inputs, "f32")
    runs["numpy"] = best_seconds(lambda: peer(*inputs), repeats)
    return latency, runs


def report(names: list[str], repeats: int) -> str:
    """Both tables, as text."""
    latency_rows, run_rows = [], []
    for name in names:
        latency, runs = measure(name, repeats)
        cells = []
        for level in (0, 3):
            phases = latency[level]
            total = sum(phases.values())
            cells.append(
                f"{total * 1e3:7.1f} {phases['emit'] * 1e3:6.1f} {phases['parse'] * 1e3:6.1f} "
                f"{phases['optimize'] * 1e3:6.1f} {phases['codegen'] * 1e3:7.1f}"
            )
        latency_rows.append(f"  {name:<13} {cells[0]}   {cells[1]}")
        shape = "x".join(str(v) for v in BENCH_SHAPES[name].values())
        run_rows.append(
            f"  {name:<13} {shape:<18} {runs['O0'] * 1e6:10.0f} {runs['O3'] * 1e6:10.0f} "
            f"{runs['numpy'] * 1e6:10.0f} {runs['O0'] / runs['numpy']:8.2f} "
            f"{runs['O3'] / runs['numpy']:8.2f}"
        )
    phases = f"{'total':>7} {'emit':>6} {'parse':>6} {'opt':>6} {'codegen':>7}"
    cpu, _ = host_cpu()
    return "\n".join(
        [
            f"JIT compile latency, ms (best of {repeats}; host CPU {cpu})",
            f"  {'':<13} {'O0':^36}   {'O3':^36}",
            f"  {'kernel':<13} {phases}   {phases}",
            *latency_rows,
            "",
            f"Run time, us (best of {repeats}; f32; one numpy/BLAS thread: "
            f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')})",
            f"  {'kernel':<13} {'sizes':<18} {'O0':>10} {'O3':>10} {'numpy':>10} "
            f"{'O0/np':>8} {'O3/np':>8}",
            *run_rows,
        ]
    )


FIVE_MEMREFS = """func.func @main(%a: memref<16xf32>, %b: memref<16xf32>, %c: memref<16xf32>,
    %d: memref<16xf32>, %out: memref<16xf32> {bufferize.result}) {
  %i = arith.constant 3 : index
  %va = memref.load %a[%i] : memref<16xf32>
  %vb = memref.load %b[%i] : memref<16xf32>
  %vc = memref.load %c[%i] : memref<16xf32>
  %vd = memref.load %d[%i] : memref<16xf32>
  %ab = arith.addf %va, %vb : f32
  %cd = arith.addf %vc, %vd : f32
  %sum = arith.addf %ab, %cd : f32
  memref.store %sum, %out[%i] : memref<16xf32>
  return
}"""
"""The kernel of the call-overhead table: five memrefs, four loads and a store."""


def per_call_seconds(action: Callable[[], object], calls: int, repeats: int) -> float:
    """The best of ``repeats`` loops of ``calls`` calls of ``action()``, per call."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(calls):
            action()
        best = min(best, (time.perf_counter() - start) / calls)
    return best


def call_overhead(repeats: int, calls: int = 2_000) -> dict:
    """Table 3: the seconds per call of each way to call ``FIVE_MEMREFS``."""
    module = jit(FIVE_MEMREFS, opt_level=3)
    function = module["main"]
    rng = np.random.default_rng(0)
    a, b, c, d = (rng.standard_normal(16).astype(np.float32) for _ in range(4))
    out = np.full(16, np.nan, np.float32)
    function(a, b, c, d, out)
    np.testing.assert_allclose(out[3], a[3] + b[3] + c[3] + d[3], rtol=1e-6)
    arrays = (a, b, c, d, out)
    # the packed entry point with its pointer array built once: 5 descriptors of 5 slots
    slots = (ctypes.c_int64 * 25)()
    for k, array in enumerate(arrays):
        slots[5 * k : 5 * k + 5] = [array.ctypes.data, array.ctypes.data, 0, 16, 1]
    pointers = (ctypes.c_void_p * 25)(*[ctypes.addressof(slots) + 8 * i for i in range(25)])
    packed = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(
        module._engine.get_function_address(PACKED_PREFIX + "main")
    )
    address = ctypes.addressof(pointers)
    # @main itself: (ptr, ptr, i64, i64, i64) per memref
    descriptor = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64]
    unpacked = ctypes.CFUNCTYPE(None, *descriptor * 5)(module._engine.get_function_address("main"))
    values = [v for array in arrays for v in (array.ctypes.data, array.ctypes.data, 0, 16, 1)]
    out[:] = np.nan
    unpacked(*values)
    np.testing.assert_allclose(out[3], a[3] + b[3] + c[3] + d[3], rtol=1e-6)
    seconds = {
        "tinycomp": per_call_seconds(lambda: function(a, b, c, d, out), calls, repeats),
        "tinycomp_run": per_call_seconds(lambda: function.run(a, b, c, d), calls, repeats),
        "packed_ctypes": per_call_seconds(lambda: packed(address), calls, repeats),
        "unpacked_ctypes": per_call_seconds(lambda: unpacked(*values), calls, repeats),
    }
    return {
        "cpu": host_cpu()[0],
        "kernel": "five memref<16xf32> arguments, 4 loads, 3 adds, 1 store (O3)",
        "calls_per_timing": calls,
        "repeats": repeats,
        "us_per_call": {name: round(value * 1e6, 3) for name, value in seconds.items()},
        "overhead_us": round((seconds["tinycomp"] - seconds["packed_ctypes"]) * 1e6, 3),
        "ratio": round(seconds["tinycomp"] / seconds["packed_ctypes"], 2),
        "budget_us": 10.0,
    }


def overhead_report(measured: dict) -> str:
    """Table 3 as text."""
    us = measured["us_per_call"]
    rows = [
        ("CpuFunction(a, b, c, d, out)", us["tinycomp"]),
        ("CpuFunction.run(a, b, c, d)", us["tinycomp_run"]),
        ("ctypes: @_mlir_main(args)", us["packed_ctypes"]),
        ("ctypes: @main(25 params)", us["unpacked_ctypes"]),
    ]
    lines = [
        f"Call overhead, us per call (best of {measured['repeats']} loops of "
        f"{measured['calls_per_timing']} calls; {measured['kernel']}; {measured['cpu']})",
        *(f"  {name:<30} {value:8.2f}" for name, value in rows),
        f"  overhead over the packed ctypes call: {measured['overhead_us']:.2f} us "
        f"(x{measured['ratio']:.1f}; budget {measured['budget_us']:.0f} us)",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of how many runs")
    parser.add_argument(
        "--kernels", nargs="*", default=sorted(KERNELS), choices=sorted(KERNELS), metavar="NAME"
    )
    parser.add_argument(
        "--call-overhead", action="store_true", help="only table 3, stored in results/"
    )
    arguments = parser.parse_args()
    if not arguments.call_overhead:
        print(report(arguments.kernels, arguments.repeats))
        print()
    measured = call_overhead(max(arguments.repeats, 60))
    print(overhead_report(measured))
    if arguments.call_overhead:
        path = RESULTS / f"jit_call_overhead_{measured['cpu']}.json"
        path.write_text(json.dumps(measured, indent=2) + "\n")
        print(f"stored in benchmarks/results/{path.name}")


if __name__ == "__main__":
    main()

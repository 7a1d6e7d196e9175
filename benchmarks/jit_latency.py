"""How long the CPU JIT takes per kernel, and how fast the code it makes runs.

Two tables, measured in one run, for every kernel of the catalogue
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

numpy's BLAS (``matmul``, ``einsum``) may use several threads; the JIT'ed loops use
one. This script asks OpenBLAS for one thread (``OPENBLAS_NUM_THREADS=1``, set before
numpy is imported, unless already set) so the comparison is core for core.

Usage::

    python benchmarks/jit_latency.py
    python benchmarks/jit_latency.py --repeats 5 --kernels matmul softmax

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # before numpy loads its BLAS

import argparse  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402

import numpy as np  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp.codegen.cpu import host_cpu, jit  # noqa: E402
from tinycomp.codegen.cpu.program import CpuProgram  # noqa: E402
from tinycomp.testing import KERNELS, check_against_reference  # noqa: E402

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3, help="best of how many runs")
    parser.add_argument(
        "--kernels", nargs="*", default=sorted(KERNELS), choices=sorted(KERNELS), metavar="NAME"
    )
    arguments = parser.parse_args()
    print(report(arguments.kernels, arguments.repeats))


if __name__ == "__main__":
    main()

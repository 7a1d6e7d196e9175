"""Contractions through ``tinycomp.compile(..., target="cpu")`` against numpy, in one run.

Every program is compiled with the CPU target's default options: its BLIS strategy (the
``cpu-contraction-to-blis`` pass after bufferization, blocking from this machine's
model) and compared with the same computation in numpy f32, whose BLAS runs on ONE
thread (``OPENBLAS_NUM_THREADS``, ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` are set to 1
before numpy is imported; ``OPENBLAS_CORETYPE`` is removed, as ``gemm.py`` does). In order:

1. For each case (``CASES``: matmul 256^3 and 1024^3, batch matmul, conv2d, attention,
   mlp2), make random f32 inputs, compile the program at O3 and time the compilation.
2. Check the compiled program and the numpy version against the float64 reference of
   the kernel catalogue (``tinycomp.testing``), and that the strategy ran (its
   decisions say ``blis`` for every contraction); stop if not.
3. Time both: best of ``--repeats`` rounds, the two taking turns in each round.
4. Print GFLOPS (the contractions' FLOPs, ``2 m n k`` each, over the time), the ratio
   tinycomp / numpy against its target (at least this ratio), and the compile time; write it all
   as JSON to ``benchmarks/results/cpu_contractions_<cpu>.json`` (unless ``--no-write``).

Usage::

    python benchmarks/cpu_contractions.py
    python benchmarks/cpu_contractions.py --quick --no-write    # fewer rounds

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import os

for _variable in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"
REMOVED_CORETYPE = os.environ.pop("OPENBLAS_CORETYPE", None)

import argparse  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from gemm import best_seconds_interleaved, numpy_blas  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp.frontend import conv2d  # noqa: E402
from tinycomp.targets.cpu.blis import choose_blocking  # noqa: E402
from tinycomp.targets.cpu.machine import detect_machine  # noqa: E402
from tinycomp.testing import KERNELS, check_against_reference  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def _softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_attention(q, k, v):
    """``softmax(q @ k^T / sqrt(d)) @ v`` in f32, as a numpy user writes it."""
    scores = q @ np.swapaxes(k, -1, -2) * np.float32(1.0 / math.sqrt(q.shape[-1]))
    return _softmax(scores) @ v


def numpy_mlp2(x, w1, b1, w2, b2):
    """``gelu(x @ w1 + b1) @ w2 + b2`` (tanh GELU) in f32."""
    h = x @ w1 + b1
    c = np.float32(math.sqrt(2.0 / math.pi))
    g = np.float32(0.5) * h * (np.float32(1.0) + np.tanh(c * (h + np.float32(0.044715) * h**3)))
    return g @ w2 + b2


def numpy_conv2d(x, w, stride: int = 1, padding: int = 1):
    """NHWC x HWCF by im2col and one BLAS call, as numpy users write a convolution."""
    x = np.pad(x, ((0, 0), (padding, padding), (padding, padding), (0, 0)))
    kh, kw, c, f = w.shape
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(1, 2))
    windows = windows[:, ::stride, ::stride]  # n, oh, ow, c, kh, kw
    n, oh, ow = windows.shape[:3]
    columns = windows.transpose(0, 1, 2, 4, 5, 3).reshape(n * oh * ow, kh * kw * c)
    return (columns @ w.reshape(kh * kw * c, f)).reshape(n, oh, ow, f)


def conv2d_same(x, w):
    """``conv2d(x, w, padding=1)``: a ResNet 3x3 layer."""
    return conv2d(x, w, stride=1, padding=1)


@dataclass(frozen=True)
class Case:
    """One program: the catalogue kernel, its sizes, its numpy twin and its target ratio."""

    name: str
    kernel: str
    shape: dict[str, int]
    numpy_fn: Callable[..., np.ndarray]
    flops: int
    target: float
    fn: Callable | None = None
    """The traced function when it is not the kernel's own (another stride or padding)."""


CASES = (
    Case("matmul 256^3", "matmul", {"m": 256, "k": 256, "n": 256}, np.matmul, 2 * 256**3, 0.6),
    Case("matmul 1024^3", "matmul", {"m": 1024, "k": 1024, "n": 1024}, np.matmul,
         2 * 1024**3, 0.8),
    Case("batch matmul 16 x 256x256x256", "batch_matmul",
         {"batch": 16, "m": 256, "k": 256, "n": 256}, np.matmul, 16 * 2 * 256**3, 0.5),
    Case("conv2d 4x56x56x64 * 3x3x64x64, pad 1", "conv2d",
         {"n": 4, "h": 56, "w": 56, "c": 64, "f": 64, "kh": 3, "kw": 3}, numpy_conv2d,
         2 * 4 * 56 * 56 * 64 * 9 * 64, 0.5, conv2d_same),
    Case("attention batch 8, 512x64", "attention",
         {"batch": 8, "l": 512, "s": 512, "d": 64, "dv": 64}, numpy_attention,
         2 * 2 * 8 * 512 * 512 * 64, 0.7),
    Case("mlp2 256x512 -> 2048 -> 512", "mlp2",
         {"m": 256, "k": 512, "hidden": 2048, "n": 512}, numpy_mlp2,
         2 * 2 * 256 * 512 * 2048, 0.7),
)  # fmt: skip
"""The programs measured, with their FLOPs (the contractions') and the ratio each aims at."""


def run_case(case: Case, repeats: int, rng: np.random.Generator) -> dict:
    """Steps 1-3 for one case."""
    kernel = KERNELS[case.kernel]
    inputs = kernel.make_inputs(rng, "f32", **case.shape)
    start = time.perf_counter()
    program = tinycomp.compile(case.fn or kernel.fn, *inputs, target="cpu")  # the defaults
    compile_seconds = time.perf_counter() - start
    if case.fn is None:  # step 2 (the catalogue's reference has the catalogue's stride)
        check_against_reference(kernel, program(*inputs), inputs, "f32")
        check_against_reference(kernel, case.numpy_fn(*inputs), inputs, "f32")
    else:
        expected = case.numpy_fn(*(a.astype(np.float64) for a in inputs))
        np.testing.assert_allclose(program(*inputs), expected, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(case.numpy_fn(*inputs), expected, rtol=1e-4, atol=1e-4)
    blis = [d for d in program.decisions if d.strategy == "blis" or not d.chosen]
    left = [str(d) for d in blis if not d.chosen]
    if left or not blis:
        raise SystemExit(f"{case.name}: not every contraction went through BLIS: {left}")
    seconds = best_seconds_interleaved(  # step 3
        {"tinycomp": lambda: program(*inputs), "numpy": lambda: case.numpy_fn(*inputs)},
        repeats,
        set(),
    )
    ours, theirs = (case.flops / seconds[n] / 1e9 for n in ("tinycomp", "numpy"))
    return {
        "case": case.name,
        "tinycomp_gflops": round(ours, 2),
        "numpy_gflops": round(theirs, 2),
        "ratio": round(seconds["numpy"] / seconds["tinycomp"], 3),
        "target": case.target,
        "compile_seconds_o3": round(compile_seconds, 3),
        "decisions": [str(d) for d in program.decisions],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help="3 rounds")
    parser.add_argument("--only", nargs="*", default=None, help="case names to run")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    repeats = 3 if args.quick else args.repeats
    machine = detect_machine()
    blocking = choose_blocking(machine)
    print(machine.describe())
    print(f"numpy: {numpy_blas()}, one thread; blocking {blocking!r}\n")
    rng = np.random.default_rng(0)
    rows = []
    header = (
        f"  {'case':<38} {'tinycomp':>9} {'numpy':>8} {'ratio':>6} {'target':>6} {'compile':>8}"
    )
    print(header + "\n  " + " " * 38 + "   GFLOPS   GFLOPS                    s (O3)")
    for case in CASES:
        if args.only and not any(word in case.name for word in args.only):
            continue
        row = run_case(case, repeats, rng)
        rows.append(row)
        print(
            f"  {row['case']:<38} {row['tinycomp_gflops']:>9} {row['numpy_gflops']:>8} "
            f"{row['ratio']:>6} {row['target']:>6} {row['compile_seconds_o3']:>8}",
            flush=True,
        )
    result = {
        "cpu": machine.llvm_cpu,
        "machine": machine.describe(),
        "numpy_blas": numpy_blas(),
        "openblas_coretype_removed": REMOVED_CORETYPE,
        "blocking": {k: getattr(blocking, k) for k in ("mr", "nr", "kc", "mc", "nc")},
        "repeats": repeats,
        "cases": rows,
    }
    if not args.no_write:
        path = args.output or RESULTS / f"cpu_contractions_{machine.llvm_cpu}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

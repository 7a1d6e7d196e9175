"""Softmax, layernorm and rmsnorm on one CPU core: ``tinycomp.compile`` against numpy.

For each kernel of the catalogue (``tinycomp.testing.KERNELS``) and each shape
(f32, ``rows x cols``), in one process:

1. **tinycomp**: ``tinycomp.compile(kernel, ..., target="cpu")`` with its default
   options: O3 and every CPU strategy (``rows`` at stage ``tiled``, ``vector`` and
   ``math`` at stage ``loops``); the compile time is measured once;
2. **numpy**: the same formula in numpy f32 on ONE thread (``OPENBLAS_NUM_THREADS``,
   ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` set to 1, ``OPENBLAS_CORETYPE`` removed
   before numpy is imported, as ``gemm.py`` does).

The staircase below step 1 is timed too, the same ``compile`` call with strategies
turned off (``CompileOptions(strategies={"rows": False, ...})``):
plain ``loops`` (scalar, ``expf`` per element), ``vectorized`` (``vectorize-loops``:
LLVM splits the vector ``exp`` into eight ``expf`` calls), ``polynomial math`` (the
``exp`` stays in vector registers) and ``rows`` (the whole pipeline: one pass over
memory per tile of rows instead of one per kernel). So is the whole pipeline with other
``tile_bytes`` than the row strategy's default (``--tile-sweep``).

Each variant is checked against the float64 reference first, then timed: best of
``--repeats`` rounds, taking turns within each round. It prints milliseconds and the
ratio numpy / tinycomp (above 1: tinycomp is faster), and writes the result as JSON to
``benchmarks/results/cpu_rows_<cpu>.json`` (unless ``--output`` or ``--no-write``).

Usage::

    python benchmarks/cpu_rows.py                          # 2048x2048 and 8192x1024
    python benchmarks/cpu_rows.py --shapes 512x512 --repeats 3 --tile-sweep --no-write

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")

if __name__ == "__main__":
    for _variable in THREAD_VARIABLES:
        os.environ[_variable] = "1"
    REMOVED_CORETYPE = os.environ.pop("OPENBLAS_CORETYPE", None)
else:
    REMOVED_CORETYPE = None

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp import CompileOptions  # noqa: E402
from tinycomp.codegen.cpu.target import host_cpu  # noqa: E402
from tinycomp.passes.row_strategy import RowStrategyPass  # noqa: E402
from tinycomp.testing import KERNELS, check_against_reference  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def numpy_layernorm(x: np.ndarray, gamma: np.ndarray, beta: np.ndarray) -> np.ndarray:
    mean = x.mean(axis=-1, keepdims=True)
    centered = x - mean
    var = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / np.sqrt(var + np.float32(1e-5)) * gamma + beta


def numpy_rmsnorm(x: np.ndarray, gamma: np.ndarray) -> np.ndarray:
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + np.float32(1e-6)) * gamma


NUMPY = {"softmax": numpy_softmax, "layernorm": numpy_layernorm, "rmsnorm": numpy_rmsnorm}


STEP_STRATEGIES = (
    {"rows": False, "vector": False, "math": False},
    {"rows": False, "math": False},
    {"rows": False},
    {},
)
"""The CPU target's strategies turned off at each step of the staircase (0 plain loops,
1 vectorized, 2 polynomial math, 3 rows: the default ``compile(..., target="cpu")``)."""


def cpu_options(steps: int = 3, tile_bytes: int | None = None) -> CompileOptions:
    """The options of step ``steps``: the same ``compile`` call, strategies turned off.
    ``tile_bytes`` replaces the row strategy's tile size (the sweep)."""
    if tile_bytes is None:
        return CompileOptions(strategies=STEP_STRATEGIES[steps])
    return CompileOptions(
        strategies={"rows": False}, extra_passes={"tiled": [RowStrategyPass(tile_bytes)]}
    )


STAIRCASE = ("loops", "vectorized", "polynomial math", "rows")
"""The variants timed besides numpy: ``cpu_options(0)`` ... ``cpu_options(3)``."""


def best_seconds(actions: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The shortest time of each action over ``repeats`` rounds, taking turns; the order
    rotates from round to round, so no action always runs right after the same other
    (one that leaves the caches or the allocator in a state that slows the next)."""
    names = list(actions)
    best = {name: float("inf") for name in names}
    for round_number in range(repeats):
        shift = round_number % len(names)
        for name in names[shift:] + names[:shift]:
            start = time.perf_counter()
            actions[name]()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def measure(
    name: str, rows: int, cols: int, repeats: int, tile_sweep: list[int]
) -> dict[str, object]:
    """Steps 1-2 for one kernel and shape (and the staircase, and other tile sizes)."""
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32", rows=rows, cols=cols)
    actions: dict[str, Callable[[], object]] = {"numpy": lambda: NUMPY[name](*inputs)}
    check_against_reference(kernel, NUMPY[name](*inputs), inputs, "f32")
    compile_seconds = 0.0
    for steps, variant in enumerate(STAIRCASE):
        start = time.perf_counter()
        program = tinycomp.compile(kernel.fn, *inputs, target="cpu", options=cpu_options(steps))
        compile_seconds = time.perf_counter() - start  # the last one: the whole pipeline
        check_against_reference(kernel, program(*inputs), inputs, "f32")
        actions[variant] = lambda program=program: program(*inputs)
    for tile_bytes in tile_sweep:
        program = tinycomp.compile(kernel.fn, *inputs, target="cpu",
                                   options=cpu_options(3, tile_bytes))  # fmt: skip
        check_against_reference(kernel, program(*inputs), inputs, "f32")
        actions[f"tile {tile_bytes}"] = lambda program=program: program(*inputs)
    best = best_seconds(actions, repeats)
    return {
        "kernel": name,
        "shape": [rows, cols],
        "tinycomp_ms": round(best["rows"] * 1e3, 3),
        "numpy_ms": round(best["numpy"] * 1e3, 3),
        "ratio": round(best["numpy"] / best["rows"], 2),
        "compile_s": round(compile_seconds, 2),
        "staircase_ms": {variant: round(best[variant] * 1e3, 3) for variant in STAIRCASE},
        "tile_sweep_ms": {str(t): round(best[f"tile {t}"] * 1e3, 3) for t in tile_sweep},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shapes", nargs="+", default=["2048x2048", "8192x1024"])
    parser.add_argument("--kernels", nargs="+", default=list(NUMPY))
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument(
        "--tile-sweep", type=int, nargs="*", default=[8192, 32768, 262144],
        help="also time the row strategy with these tile_bytes",
    )  # fmt: skip
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if REMOVED_CORETYPE:
        print(f"note: removed OPENBLAS_CORETYPE={REMOVED_CORETYPE} from the environment\n")
    results = []
    steps = "".join(f"{variant:>16}" for variant in STAIRCASE)
    print(f"{'kernel':10} {'shape':>10} {'numpy ms':>9}{steps} {'ratio':>6} compile s")
    for shape in args.shapes:
        rows, cols = (int(n) for n in shape.split("x"))
        for name in args.kernels:
            r = measure(name, rows, cols, args.repeats, args.tile_sweep)
            results.append(r)
            times = "".join(f"{ms:16.2f}" for ms in r["staircase_ms"].values())
            print(
                f"{name:10} {shape:>10} {r['numpy_ms']:9.2f}{times} "
                f"{r['ratio']:6.2f} {r['compile_s']:.2f}"
            )
    print("\nthe row strategy with other tile_bytes (default 65536), ms:")
    for r in results:
        cells = "  ".join(f"{t}: {ms:.2f}" for t, ms in r["tile_sweep_ms"].items())
        print(f"  {r['kernel']:10} {'x'.join(map(str, r['shape'])):>10}  {cells}")
    cpu = host_cpu()[0]
    record = {
        "cpu": cpu,
        "numpy": np.__version__,
        "repeats": args.repeats,
        "staircase_options": {
            variant: (
                f"CompileOptions(strategies={STEP_STRATEGIES[step]!r})"
                if STEP_STRATEGIES[step]
                else "CompileOptions() (the defaults)"
            )
            for step, variant in enumerate(STAIRCASE)
        },
        "tile_bytes": RowStrategyPass().tile_bytes,
        "results": results,
    }
    if not args.no_write:
        path = args.output or RESULTS / f"cpu_rows_{cpu}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record, indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

"""GEMM on one CPU core: the staircase as one ``tinycomp.compile`` call with different options.

For each size n (f32, ``n x n`` times ``n x n``), in one process, ``a @ b`` goes through
``tinycomp.compile(matmul, a, b, target="cpu", options=...)`` with the options of
``staircase_options()`` (``benchmarks/gemm_variants.py``), each step one more thing the
compiler knows about the machine:

1. **naive**: ``CompileOptions(strategies={"blis": False, "vector": False})``: the CPU
   target's strategies off, so the matmul becomes three loops ``(i, j, k)``, ``k``
   innermost, JIT-compiled by LLVM at O3;
2. **tiled**: tile sizes ``TILED_TILE_SIZES`` over ``(i, j, k)``, the point loops
   interchanged to ``(i, k, j)`` after bufferization (``InterchangePass``, an extra pass)
   and the BLIS strategy off: the ``vector`` strategy widens the ``j`` loop to the
   machine's SIMD width with ``vector.fma``;
3. **blocked**: the default options: the ``blis`` strategy (pass
   ``cpu-contraction-to-blis``) lowers the matmul to the generated BLIS GEMM, blocking
   from this machine's model;
4. **numpy**: ``a @ b`` with numpy's BLAS on ONE thread (``OPENBLAS_NUM_THREADS``,
   ``OMP_NUM_THREADS``, ``MKL_NUM_THREADS`` are set to 1 before numpy is imported).
   ``OPENBLAS_CORETYPE``, if set in the environment, is removed first, so OpenBLAS uses
   the kernels it picks for this CPU (a forced older core type would make the peer
   slower than it is); ``--openblas-coretype`` forces one on purpose. The core type
   OpenBLAS chose is reported.

Each step is checked against a float64 product of the same inputs, then timed: best of
``--repeats`` rounds, the steps taking turns within each round (the naive loops only in
the first round above n = 512: at 2048 one run takes tens of seconds). For each step the
result records the options (``options_text``), the passes its ``bufferized`` and
``loops`` stages ran and the strategies ``print(program)`` listed, and the compile time.
It also times the same ``compile`` with the BLIS pass given other KCs than the model's
(``--kc-sweep``, MC and NC re-derived from each), measures the micro-kernel's peak on
L1-resident data and counts what the hot loop of the blocked program (its micro-kernel,
inlined into ``@main`` at O3) is made of (FMAs, loads, broadcasts, spills). It prints
GFLOPS and the ratio of the blocked step to numpy, and writes the result as JSON
(``benchmarks/results/gemm_<cpu>.json`` unless ``--output`` or ``--no-write``), which
``tinycomp.perf.gemm_results.GemmBenchmark`` reads back for chapter 08.

Usage::

    python benchmarks/gemm.py                       # 256 512 1024 2048
    python benchmarks/gemm.py --sizes 256 512 --no-write

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def _pin_blas_before_numpy(coretype: str | None) -> str | None:
    """Step 4's environment, before numpy loads its BLAS; returns a removed core type."""
    for variable in THREAD_VARIABLES:
        os.environ[variable] = "1"
    removed = os.environ.pop("OPENBLAS_CORETYPE", None)
    if coretype:
        os.environ["OPENBLAS_CORETYPE"] = coretype
    return removed


if __name__ == "__main__":
    import sys

    _forced = None
    if "--openblas-coretype" in sys.argv:
        _forced = sys.argv[sys.argv.index("--openblas-coretype") + 1]
    REMOVED_CORETYPE = _pin_blas_before_numpy(_forced)
else:
    REMOVED_CORETYPE = None

import argparse  # noqa: E402
import ctypes  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
from gemm_variants import kc_options, options_text, staircase_options  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp.codegen.cpu.assembly_stats import hot_loop  # noqa: E402
from tinycomp.compiler import CompileOptions  # noqa: E402
from tinycomp.perf.gemm_results import GemmBenchmark  # noqa: E402
from tinycomp.targets.cpu.blis import choose_blocking  # noqa: E402
from tinycomp.targets.cpu.machine import detect_machine  # noqa: E402
from tinycomp.targets.cpu.roofline import measure_microkernel_peak  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"

SHOWN_STAGES = ("bufferized", "loops")
"""The stages whose passes the result records per step (where the strategies act)."""


def matmul(a, b):
    """The program of every step."""
    return a @ b


def numpy_blas() -> str:
    """numpy's BLAS and, for OpenBLAS, the kernels it chose for this CPU."""
    config = np.__config__.CONFIG.get("Build Dependencies", {}).get("blas", {})
    name = f"{config.get('name', 'unknown')} {config.get('version', '')}".strip()
    core = None
    try:
        with open("/proc/self/maps") as maps:
            paths = sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
        for path in paths:
            library = ctypes.CDLL(path)
            for symbol in ("scipy_openblas_get_corename64_", "openblas_get_corename"):
                function = getattr(library, symbol, None)
                if function is not None:
                    function.restype = ctypes.c_char_p
                    core = function().decode()
                    break
    except (OSError, IndexError):
        pass
    return f"{name} ({core} kernels)" if core else name


def best_seconds_interleaved(
    actions: dict[str, Callable[[], object]], repeats: int, once: set[str]
) -> dict[str, float]:
    """The shortest timing of each action over ``repeats`` rounds; each round runs every
    action once, in turn (those in ``once`` only in the first round), so a burst of
    load from other processes hits all of them alike instead of one variant's streak."""
    best = {name: float("inf") for name in actions}
    for round_number in range(repeats):
        for name, action in actions.items():
            if name in once and round_number > 0:
                continue
            start = time.perf_counter()
            action()
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def check(name: str, got: np.ndarray, expected: np.ndarray, k: int) -> None:
    """Stop the benchmark if a step computed something else than the product."""
    scale = np.abs(expected).max() + 1.0
    error = float(np.abs(got.astype(np.float64) - expected).max()) / scale
    if not error < 1e-6 * k:
        raise SystemExit(f"{name}: wrong result, max relative error {error:.3g}")


def compile_step(a: np.ndarray, b: np.ndarray, options: CompileOptions):
    """``(program, seconds)``: ``matmul`` compiled for the CPU with ``options``, timed."""
    start = time.perf_counter()
    program = tinycomp.compile(matmul, a, b, target="cpu", options=options)
    return program, time.perf_counter() - start


def step_record(options: CompileOptions, program) -> dict:
    """What the result keeps of one step: its options, passes and strategies."""
    passes = {
        stage: [step.name for step in program.runs[stage].stages[1:]]
        for stage in SHOWN_STAGES
        if stage in program.runs
    }
    strategies = [str(decision) for decision in program.decisions]
    return {"options": options_text(options), "passes": passes, "strategies": strategies}


def run(sizes: list[int], repeats: int, naive_max: int, kc_sweep: list[int]) -> GemmBenchmark:
    """Steps 1-4 at every size, and the blocked step with other KCs; returns the result."""
    machine = detect_machine()
    blocking = choose_blocking(machine)
    steps = staircase_options()
    sweep = {kc: kc_options(machine, kc) for kc in kc_sweep if kc != blocking.kc}
    print(machine.describe())
    print(blocking.explain(), "\n")
    for name, options in steps.items():
        print(f"{name:8} {options_text(options)}")
    print()
    rng = np.random.default_rng(0)
    gflops: dict[str, list[float | None]] = {name: [] for name in (*steps, "numpy")}
    sweep_gflops: dict[int, list[float]] = {kc: [] for kc in sweep}
    records: dict[str, dict] = {}
    compile_seconds: dict[str, list[float | None]] = {name: [] for name in steps}
    blocked = None
    for n in sizes:
        a = rng.standard_normal((n, n)).astype(np.float32)
        b = rng.standard_normal((n, n)).astype(np.float32)
        expected = a.astype(np.float64) @ b.astype(np.float64)
        programs: dict[str, Callable[[], np.ndarray]] = {}
        for name, options in steps.items():
            if name == "naive" and n > naive_max:
                compile_seconds[name].append(None)
                continue
            program, seconds = compile_step(a, b, options)
            compile_seconds[name].append(round(seconds, 3))
            records.setdefault(name, step_record(options, program))
            programs[name] = lambda program=program, a=a, b=b: program(a, b)
            if name == "blocked":
                blocked = program
        programs["numpy"] = lambda a=a, b=b: a @ b
        for kc, options in sweep.items():
            program, _ = compile_step(a, b, options)
            programs[f"KC={kc}"] = lambda program=program, a=a, b=b: program(a, b)
        for name, program in programs.items():
            check(name, program(), expected, n)
        once = {"naive"} if n > 512 else set()
        seconds = best_seconds_interleaved(programs, repeats, once)
        flops = 2.0 * n**3
        for name in gflops:
            gflops[name].append(round(flops / seconds[name] / 1e9, 2) if name in seconds else None)
        for kc in sweep:
            sweep_gflops[kc].append(round(flops / seconds[f"KC={kc}"] / 1e9, 2))
        row = "  ".join(f"{k} {v[-1] if v[-1] is not None else '-':>7}" for k, v in gflops.items())
        swept = "  ".join(f"KC={kc} {values[-1]:>7}" for kc, values in sweep_gflops.items())
        print(f"n={n:5}  {row}  {swept}", flush=True)
    for name, record in records.items():
        record["compile_seconds"] = compile_seconds[name]
    loop = hot_loop(blocked.assembly())  # the micro-kernel, inlined into @main at O3
    peak = measure_microkernel_peak(blocking)
    extra = {
        "isa": machine.isa,
        "lanes": blocking.lanes,
        "machine": machine.describe(),
        "microkernel_peak_gflops": round(peak / 1e9, 2),
        "microkernel_loop": {
            "fmas": loop.fmas,
            "registers": loop.fma_registers,
            "loads": loop.loads,
            "broadcasts": loop.broadcasts,
            "stores": loop.stores,
            "spills": loop.spills,
            "instructions": loop.instructions,
        },
        "openblas_coretype_removed": REMOVED_CORETYPE,
        "kc_sweep": {str(blocking.kc): gflops["blocked"]}
        | {str(kc): values for kc, values in sweep_gflops.items()},
    }
    blocking_numbers = {k: getattr(blocking, k) for k in ("mr", "nr", "kc", "mc", "nc")}
    return GemmBenchmark(
        machine.llvm_cpu, tuple(sizes), gflops, blocking_numbers, numpy_blas(), records, extra
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[256, 512, 1024, 2048])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--naive-max", type=int, default=2048, help="skip naive above this n")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--openblas-coretype", default=None, help="force OpenBLAS's kernels")
    parser.add_argument(
        "--kc-sweep", type=int, nargs="*", default=[384, 512], help="also time these KCs"
    )
    args = parser.parse_args()
    if REMOVED_CORETYPE:
        print(f"note: removed OPENBLAS_CORETYPE={REMOVED_CORETYPE} from the environment\n")
    result = run(args.sizes, args.repeats, args.naive_max, args.kc_sweep)
    print()
    print(result.table())
    print()
    print(result.steps_table())
    loop = result.extra["microkernel_loop"]
    print(
        f"\nmicro-kernel {result.blocking['mr']}x{result.blocking['nr']}: peak "
        f"{result.extra['microkernel_peak_gflops']} GFLOPS on L1-resident data; inner loop: "
        f"{loop['fmas']} FMAs on {loop['registers']}, {loop['loads']} loads "
        f"({loop['broadcasts']} broadcasts), {loop['spills']} spills, "
        f"{loop['instructions']} instructions"
    )
    print("\nthe blocked step with other KCs (MC, NC derived from each), GFLOPS:")
    for kc, values in result.extra["kc_sweep"].items():
        cells = [f"{n}: {v}" for n, v in zip(args.sizes, values, strict=True)]
        print(f"  KC={kc:>4}: " + "  ".join(cells))
    if not args.no_write:
        path = args.output or RESULTS / f"gemm_{result.cpu}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(result.to_dict(), indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

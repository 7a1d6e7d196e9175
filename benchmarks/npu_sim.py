"""What the NPU simulator costs to run, beside numpy doing the same math.

Every run is checked against numpy before it is timed, with the sanitizer on:

1. **softmax 8192 x 1024** (f32) on all 48 vector cores of the 910b2 preset, 4 rows a
   tile, double-buffered: the simulator's seconds, its instructions, the cost of one
   instruction, and the ratio to numpy's own softmax of the same matrix (how much
   slower it is to simulate the chip than to compute the answer);
2. **cores**: the same softmax at 170 rows a core on 1, 6, 12, 24 and 48 cores (the
   work grows with the cores): the simulator's time should grow with the instructions
   and no faster;
3. **tiles**: 48 cores, 1, 2, 4 and 8 rows a tile: fewer, larger tiles are fewer
   copies and flags, the same vector work;
4. **per op**: the cost of one instruction in three kernels of different kinds
   (``vector_add``: DMAs and one vector op a tile; ``softmax_rows``: mostly vector and
   scalar; ``cube_matmul``: copies in NZ and ``mmad``), split into the functional run
   (the interpreter and numpy) and the schedule (timing and the sanitizer).

Times are medians of ``--repeats`` runs; the record goes to
``benchmarks/results/npu_sim_<cpu>.json``.

Usage::

    python benchmarks/npu_sim.py
    python benchmarks/npu_sim.py --quick --no-write     # a smoke run

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from tinycomp import npu
from tinycomp.codegen.cpu.target import host_cpu
from tinycomp.targets.npu_sim import schedule as schedule_module
from tinycomp.testing.npu_kernels import cube_matmul, softmax_rows, vector_add

RESULTS = Path(__file__).resolve().parent / "results"


def numpy_softmax(x: np.ndarray) -> np.ndarray:
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def timed(repeats: int, run) -> tuple[float, Any]:
    """The median seconds of ``repeats`` calls of ``run`` and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def instructions(result: npu.NpuLaunchResult) -> int:
    return sum(len(core.stream) for core in result.run.cores)


def softmax_run(rows: int, cols: int, blocks: int, rows_per_tile: int, repeats: int) -> dict:
    rng = np.random.default_rng(rows + blocks)
    x = rng.standard_normal((rows, cols)).astype(np.float32)
    y = np.zeros_like(x)

    def run() -> npu.NpuLaunchResult:
        return npu.launch(softmax_rows, (x, y, rows_per_tile, 2), blocks, "910b2")

    seconds, result = timed(repeats, run)
    np.testing.assert_allclose(y, numpy_softmax(x), rtol=1e-5, atol=1e-7)
    numpy_seconds, _ = timed(max(repeats, 5), lambda: numpy_softmax(x))
    count = instructions(result)
    return {
        "rows": rows, "cols": cols, "blocks": blocks, "rows_per_tile": rows_per_tile,
        "sim_s": seconds, "instructions": count, "us_per_instruction": seconds / count * 1e6,
        "numpy_s": numpy_seconds, "ratio_to_numpy": seconds / numpy_seconds,
        "chip_us": result.seconds * 1e6, "bound": result.bound,
    }  # fmt: skip


def split_cost(launch) -> dict:
    """Seconds in the schedule (timing and the sanitizer) and in the rest of a launch."""
    spent = []
    original = schedule_module.schedule

    def timed_schedule(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        out = original(*args, **kwargs)
        spent.append(time.perf_counter() - start)
        return out

    from tinycomp.targets.npu_sim import simulator

    simulator.schedule = timed_schedule
    try:
        start = time.perf_counter()
        result = launch()
        total = time.perf_counter() - start
    finally:
        simulator.schedule = original
    count = instructions(result)
    return {
        "instructions": count, "total_s": total, "schedule_s": spent[0],
        "functional_s": total - spent[0], "us_per_instruction": total / count * 1e6,
    }  # fmt: skip


def per_op(quick: bool) -> list[dict]:
    rng = np.random.default_rng(3)
    size = (8 if quick else 48) * 8 * 8192
    x, y = (rng.standard_normal(size).astype(np.float16) for _ in range(2))
    z = np.zeros_like(x)
    blocks = 8 if quick else 48
    rows = []
    record = split_cost(lambda: npu.launch(vector_add, (x, y, z, 8192, 2), blocks, "910b2"))
    np.testing.assert_array_equal(z, x + y)
    rows.append({"kernel": "vector_add", **record})
    s = rng.standard_normal((blocks * 32, 1024)).astype(np.float32)
    t = np.zeros_like(s)
    record = split_cost(lambda: npu.launch(softmax_rows, (s, t, 4, 2), blocks, "910b2"))
    np.testing.assert_allclose(t, numpy_softmax(s), rtol=1e-5, atol=1e-7)
    rows.append({"kernel": "softmax_rows", **record})
    m, n, k = (256, 512, 512) if quick else (1536, 768, 1024)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    c = np.zeros((m, n), np.float32)
    record = split_cost(lambda: npu.launch(cube_matmul, (a, b, c), 24, "910b2"))
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32), rtol=1e-3,
                               atol=1e-2)  # fmt: skip
    rows.append({"kernel": "cube_matmul", **record})
    return rows


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    parser.add_argument("--no-write", action="store_true", help="print, do not store")
    parser.add_argument("--repeats", type=int, default=3)
    options = parser.parse_args(argv)
    repeats = 1 if options.quick else options.repeats
    rows = 960 if options.quick else 8192
    record: dict[str, Any] = {"quick": options.quick, "cpu": host_cpu()[0]}
    record["softmax"] = softmax_run(rows, 1024, 48, 4, repeats)
    core_counts = (1, 6, 12) if options.quick else (1, 6, 12, 24, 48)
    per_core = 20 if options.quick else 170
    record["cores"] = [softmax_run(per_core * c, 1024, c, 4, 1) for c in core_counts]
    tiles = (1, 4) if options.quick else (1, 2, 4, 8)
    record["tiles"] = [softmax_run(rows, 1024, 48, t, 1) for t in tiles]
    record["per_op"] = per_op(options.quick)
    text = json.dumps(record, indent=1)
    if not options.no_write:
        RESULTS.mkdir(exist_ok=True)
        (RESULTS / f"npu_sim_{record['cpu']}.json").write_text(text + "\n")
    print(text)
    return record


if __name__ == "__main__":
    main(sys.argv[1:])

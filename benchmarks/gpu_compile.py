"""Compiled GPU kernels: their estimates beside the rooflines and the hand-written SGEMMs,
and how long each takes to compile to PTX.

Three measurements of ``tinycomp.compile(..., target="gpu-sim")``, side by side:

* ``rows``: softmax and layernorm at 8192x1024 f32 on the ``a6000`` and ``h100`` presets.
  The program runs with ``sample_blocks`` blocks spread over the grid (the counters
  scaled to the grid, as ``compiled_matmul_estimate`` samples), and the cost model's
  seconds are set beside the memory roofline: every operand read once and the result
  written once, over the preset's DRAM bandwidth. ``ratio`` is estimate / roofline
  (the goal is at most 1.3); ``binding`` and ``breakdown`` (cycles per limit) say what
  holds a kernel back.
* ``matmul``: the compiled f32 matmul at 4096^3 beside the SGEMM worklog's
  ``blocktile_2d``, ``vectorized`` and ``warptile``, each estimated the same way
  (``compiled_against_worklog``: sampled blocks at two depths, extrapolated to K).
* ``tile``: the tile DSL's matmul (Triton's grouped matmul) and fused softmax on the
  same presets and shapes, estimated the same way (``tile_estimates.py``), beside the
  compiled ones: ``ratio`` is tile seconds / compiled seconds (the goal is at most 1.2).
* ``compile``: every catalogue kernel at its default shape, f32, compiled to PTX for
  ``sm_80`` at O3, the median of ``--repeats`` runs of each step: tinycomp's stages and
  passes to gpu IR (``compile_s``), the PTX preparation (clean-up, contraction, unrolling,
  math as polynomials) and the LLVM IR emission (``prepare_s``), LLVM's optimisation
  and NVPTX backend (``llvm_s``), and ``ptxas`` (``ptxas_s``, ``null`` without ptxas).

Usage::

    python benchmarks/gpu_compile.py                    # writes results/gpu_compile_<cpu>.json
    python benchmarks/gpu_compile.py --quick --no-write # a smoke run (small problems)

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import tinycomp
from tinycomp.codegen.cpu.target import host_cpu
from tinycomp.codegen.gpu import NVPTXHooks, emit_device_llvm, ptx, ptxas_report, ptxas_unavailable
from tinycomp.compiler.options import CompileOptions
from tinycomp.gpu.compiled_ptx import kernel_names
from tinycomp.gpu.ptx import prepared_for_ptx
from tinycomp.targets.gpu_sim.preset import lookup_preset
from tinycomp.testing.kernels import KERNELS
from tinycomp.testing.sgemm_staircase import compiled_against_worklog
from tinycomp.testing.tile_estimates import tile_matmul_estimate, tile_softmax_estimate

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

PRESETS = ("a6000", "h100")
ROW_KERNELS = ("softmax", "layernorm")
WORKLOG = ("blocktile_2d", "vectorized", "warptile")
ARCH = "sm_80"


def _median_seconds(step: Callable[[], Any], repeats: int) -> tuple[float, Any]:
    """The median wall time of ``repeats`` calls of ``step``, and its last result."""
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = step()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result


def measure_row_kernel(
    name: str, preset: str, rows: int, cols: int, sample_blocks: int
) -> dict[str, Any]:
    """One row kernel's estimate on ``preset`` beside its memory roofline."""
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32", rows=rows, cols=cols)
    options = CompileOptions(gpu_preset=preset)
    program = tinycomp.compile(kernel.fn, *inputs, target="gpu-sim", options=options)
    program.native.sample_blocks = sample_blocks
    program(*inputs)
    seconds = sum(launch.estimate.seconds for launch in program.launches)
    moved = sum(a.nbytes for a in inputs) + rows * cols * 4  # read once, written once
    roofline = moved / (lookup_preset(preset).dram_gb_per_s * 1e9)
    slowest = max(program.launches, key=lambda launch: launch.estimate.seconds)
    return {
        "kernel": name,
        "preset": preset,
        "shape": [rows, cols],
        "launches": [str(launch) for launch in program.launches],
        "estimate_us": seconds * 1e6,
        "roofline_us": roofline * 1e6,
        "ratio": seconds / roofline,
        "binding": slowest.estimate.binding,
        "breakdown": {k: round(v, 1) for k, v in slowest.estimate.breakdown.items()},
        "dram_bytes": slowest.estimate.dram_bytes,
        "roofline_bytes": moved,
    }


def measure_matmul(preset: str, size: int, sample_blocks: int) -> dict[str, Any]:
    """The compiled matmul beside the worklog's kernels (GFLOP/s and binding each)."""
    rows = compiled_against_worklog(preset, size, sample_blocks, WORKLOG)
    return {
        "preset": preset,
        "size": size,
        "kernels": {
            name: {
                "gflops": est.achieved_gflops,
                "us": est.seconds * 1e6,
                "binding": est.binding,
            }
            for name, est in rows.items()
        },
    }


def measure_tile(
    preset: str, rows: int, cols: int, size: int, sample_blocks: int, record: dict[str, Any]
) -> list[dict[str, Any]]:
    """The tile DSL's softmax and matmul beside the compiled ones already in ``record``."""
    compiled_softmax = next(
        r for r in record["rows"] if r["kernel"] == "softmax" and r["preset"] == preset
    )
    compiled_matmul = next(r for r in record["matmul"] if r["preset"] == preset)
    softmax = tile_softmax_estimate(rows, cols, preset, sample_blocks)
    matmul = tile_matmul_estimate(size, preset, sample_blocks)
    compiled_matmul_us = compiled_matmul["kernels"]["compiled"]["us"]
    return [
        {
            "kernel": "softmax",
            "preset": preset,
            "shape": [rows, cols],
            "tile_us": softmax.seconds * 1e6,
            "compiled_us": compiled_softmax["estimate_us"],
            "ratio": softmax.seconds * 1e6 / compiled_softmax["estimate_us"],
            "binding": softmax.binding,
        },
        {
            "kernel": "matmul",
            "preset": preset,
            "shape": [size, size, size],
            "tile_us": matmul.seconds * 1e6,
            "tile_gflops": matmul.achieved_gflops,
            "compiled_us": compiled_matmul_us,
            "compiled_gflops": compiled_matmul["kernels"]["compiled"]["gflops"],
            "ratio": matmul.seconds * 1e6 / compiled_matmul_us,
            "binding": matmul.binding,
        },
    ]


def measure_compile(name: str, repeats: int) -> dict[str, Any]:
    """Compile time to PTX of one catalogue kernel at its default shape, per step."""
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32")
    compile_s, program = _median_seconds(
        lambda: tinycomp.compile(kernel.fn, *inputs, target="gpu-sim"), repeats
    )
    module = program.ir()

    def prepare() -> Any:
        prepared = prepared_for_ptx(module)
        emit_device_llvm(prepared, NVPTXHooks(ARCH))
        return prepared

    prepare_s, prepared = _median_seconds(prepare, repeats)
    emit_s, _ = _median_seconds(lambda: emit_device_llvm(prepared, NVPTXHooks(ARCH)), repeats)
    ptx_s, text = _median_seconds(lambda: ptx(prepared, ARCH, opt_level=3), repeats)
    ptxas_s = None
    if ptxas_unavailable() is None:
        ptxas_s, _ = _median_seconds(lambda: ptxas_report(text, ARCH), repeats)
    return {
        "kernel": name,
        "kernels": kernel_names(module),
        "compile_s": compile_s,
        "prepare_s": prepare_s,
        "llvm_s": max(ptx_s - emit_s, 0.0),
        "ptxas_s": ptxas_s,
        "ptx_lines": len(text.splitlines()),
    }


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """Every measurement of the module docstring, as one record."""
    rows, cols, size = (512, 1024, 512) if args.quick else (8192, 1024, 4096)
    record: dict[str, Any] = {
        "cpu": host_cpu()[0],
        "quick": args.quick,
        "sample_blocks": args.sample_blocks,
        "arch": ARCH,
        "rows": [],
        "matmul": [],
        "tile": [],
        "compile": [],
    }
    for preset in args.presets:
        for name in ROW_KERNELS:
            row = measure_row_kernel(name, preset, rows, cols, args.sample_blocks)
            print(json.dumps(row), file=sys.stderr, flush=True)
            record["rows"].append(row)
        record["matmul"].append(measure_matmul(preset, size, args.sample_blocks))
        print(json.dumps(record["matmul"][-1]), file=sys.stderr, flush=True)
        for row in measure_tile(preset, rows, cols, size, args.sample_blocks, record):
            print(json.dumps(row), file=sys.stderr, flush=True)
            record["tile"].append(row)
    for name in args.kernels:
        row = measure_compile(name, args.repeats)
        print(json.dumps(row), file=sys.stderr, flush=True)
        record["compile"].append(row)
    return record


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--presets", nargs="+", default=list(PRESETS))
    parser.add_argument("--kernels", nargs="+", default=sorted(KERNELS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--sample-blocks", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="small problems, for a smoke run")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.sample_blocks = 1, 1
        args.presets = args.presets[:1]
        args.kernels = args.kernels[:2]
    record = collect(args)
    print(json.dumps(record, indent=2))
    if not args.no_write:
        path = args.output or RESULTS / f"gpu_compile_{record['cpu']}.json"
        path.write_text(json.dumps(record, indent=2) + "\n")


if __name__ == "__main__":
    main()

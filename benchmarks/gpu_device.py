"""Compiled catalogue kernels on a real NVIDIA GPU, beside the simulator's estimate.

Each catalogue kernel (``tinycomp.testing.kernels``) is compiled with
``tinycomp.compile(fn, *x, target="gpu-sim")`` for the preset that matches the GPU
(``h100``, ``a100`` or ``a6000`` when its name says so, else ``h100``), then:

1. the simulator runs it with ``--sample-blocks`` blocks spread over each grid, and each
   launch's cost-model seconds are kept (``estimate_us``);
2. ``run_program(program, *x, device="cuda")`` runs the same host function with every
   ``gpu.launch_func`` on the GPU (the fastest of ``--repeats`` timed launches each, as
   ``LaunchResult.measured_seconds`` is); the outputs are checked against the float64
   numpy reference with the catalogue's f32 tolerance (``check_against_reference``);
3. the measured seconds (``measured_us``) sit beside the estimate, and ``ratio`` is
   measured / estimate (above 1: the model is optimistic).

Without a usable GPU (no CUDA bindings, driver or device) it prints one line saying why
and exits 0, writing nothing. The record goes to ``results/gpu_device_<gpu>.json``.

Usage::

    python benchmarks/gpu_device.py                     # writes results/gpu_device_<gpu>.json
    python benchmarks/gpu_device.py --quick --no-write  # a smoke run (two small kernels)

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import numpy as np

import tinycomp
from tinycomp.compiler.options import CompileOptions
from tinycomp.gpu.devices import DeviceUnavailable, device_unavailable
from tinycomp.gpu.devices.launching import run_program
from tinycomp.testing.kernels import KERNELS
from tinycomp.testing.tolerances import check_against_reference

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"

DEVICE = "cuda"
DEFAULT_PRESET = "h100"
PRESET_NAMES = ("h100", "a100", "a6000")
FULL_SHAPES: dict[str, dict[str, int]] = {
    "attention": {"batch": 8, "l": 256, "s": 256, "d": 64, "dv": 64},
    "batch_matmul": {"batch": 8, "m": 256, "k": 256, "n": 256},
    "conv2d": {"n": 8, "h": 64, "w": 64, "c": 32, "f": 64},
    "conv2d_plain": {"n": 8, "h": 64, "w": 64, "c": 32, "f": 64},
    "layernorm": {"rows": 4096, "cols": 1024},
    "matmul": {"m": 1024, "k": 1024, "n": 1024},
    "mlp2": {"m": 512, "k": 512, "hidden": 2048, "n": 512},
    "rmsnorm": {"rows": 4096, "cols": 1024},
    "softmax": {"rows": 4096, "cols": 1024},
}
"""The sizes of a full run: large enough that a launch is more than its overhead."""


def preset_for(device_name: str) -> str:
    """The simulator preset matching a GPU's name (``h100`` when none does).

    >>> preset_for("NVIDIA A100-SXM4-40GB"), preset_for("NVIDIA RTX A6000")
    ('a100', 'a6000')
    >>> preset_for("NVIDIA H200")
    'h100'
    """
    lowered = device_name.lower()
    return next((p for p in PRESET_NAMES if p in lowered), DEFAULT_PRESET)


def slug(device_name: str) -> str:
    """A file-name part for a GPU's name.

    >>> slug("NVIDIA RTX A6000")
    'nvidia_rtx_a6000'
    """
    return re.sub(r"[^a-z0-9]+", "_", device_name.lower()).strip("_")


def open_gpu() -> str:
    """The name of the first CUDA GPU, or ``DeviceUnavailable`` saying why there is none.

    >>> try:
    ...     name = open_gpu()
    ... except DeviceUnavailable as error:
    ...     name = str(error)
    >>> isinstance(name, str)
    True
    """
    reason = device_unavailable(DEVICE)
    if reason is not None:
        raise DeviceUnavailable(reason)
    from tinycomp.gpu.devices import cuda

    return cuda.open_device()[2]


def checked_error(name: str, outputs: Any, inputs: tuple[np.ndarray, ...]) -> float:
    """The largest absolute error of ``outputs`` against ``name``'s numpy reference;
    ``AssertionError`` (naming the kernel) when it is outside the f32 tolerance.

    >>> x = KERNELS["softmax"].make_inputs(np.random.default_rng(0), "f32")
    >>> checked_error("softmax", KERNELS["softmax"].reference(*x), x) < 1e-6
    True
    """
    try:
        return check_against_reference(KERNELS[name], outputs, inputs, "f32")
    except AssertionError as error:
        raise AssertionError(f"{name} on {DEVICE}: differs from numpy: {error}") from None


def measure_kernel(
    name: str, shape: dict[str, int], preset: str, sample_blocks: int, repeats: int
) -> dict[str, Any]:
    """One kernel: the simulator's estimate on ``preset``, then checked on the GPU."""
    kernel = KERNELS[name]
    inputs = kernel.make_inputs(np.random.default_rng(0), "f32", **shape)
    options = CompileOptions(gpu_preset=preset)
    program = tinycomp.compile(kernel.fn, *inputs, target="gpu-sim", options=options)
    program.native.sample_blocks = sample_blocks
    program(*inputs)
    estimates = [launch.estimate.seconds for launch in program.launches]
    outputs = run_program(program, *inputs, device=DEVICE, repeats=repeats)
    error = checked_error(name, outputs, inputs)
    runs = program.device_runs
    if len(runs) != len(estimates):
        raise AssertionError(
            f"{name}: expected {len(estimates)} launches on {DEVICE} as on the simulator, "
            f"found {len(runs)}"
        )
    measured = sum(run.seconds for _, run in runs)
    estimate = sum(estimates)
    return {
        "kernel": name,
        "shape": shape,
        "preset": preset,
        "max_abs_error": error,
        "launches": [
            {"kernel": k, "measured_us": run.seconds * 1e6, "estimate_us": est * 1e6}
            for (k, run), est in zip(runs, estimates, strict=True)
        ],
        "measured_us": measured * 1e6,
        "estimate_us": estimate * 1e6,
        "ratio": measured / estimate,
    }


def collect(args: argparse.Namespace, device_name: str) -> dict[str, Any]:
    """Every kernel of ``args.kernels`` measured on the GPU, as one record."""
    preset = args.preset or preset_for(device_name)
    record: dict[str, Any] = {
        "device": device_name,
        "preset": preset,
        "quick": args.quick,
        "repeats": args.repeats,
        "sample_blocks": args.sample_blocks,
        "results": [],
    }
    for name in args.kernels:
        shape = {} if args.quick else FULL_SHAPES.get(name, {})
        row = measure_kernel(name, shape, preset, args.sample_blocks, args.repeats)
        print(json.dumps(row), file=sys.stderr, flush=True)
        record["results"].append(row)
    return record


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kernels", nargs="+", default=sorted(KERNELS), choices=sorted(KERNELS))
    parser.add_argument("--preset", choices=PRESET_NAMES, default=None)
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--sample-blocks", type=int, default=4)
    parser.add_argument("--quick", action="store_true", help="default shapes, two kernels")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if args.quick:
        args.repeats, args.sample_blocks = 1, 1
        args.kernels = args.kernels[:2]
    try:
        device_name = open_gpu()
    except DeviceUnavailable as error:
        print(f"gpu_device: skipped, no GPU to measure on: {error}")
        return 0
    record = collect(args, device_name)
    print(json.dumps(record, indent=2))
    if not args.no_write:
        path = args.output or RESULTS / f"gpu_device_{slug(device_name)}.json"
        path.write_text(json.dumps(record, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

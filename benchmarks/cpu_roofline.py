"""A measured roofline of one CPU core, with the chapter's kernels placed on it.

1. The compute roof: the GEMM micro-kernel (``tinycomp.targets.cpu.blis``), generated for
   this machine's blocking, run on packed data that stays in L1 (best of 5).
2. The memory roof: ``np.copyto`` of a buffer much larger than the last-level cache,
   bytes read + written (best of 5). Both: ``tinycomp.targets.cpu.roofline.measure_machine``.
3. softmax, layernorm, matmul and conv2d of the kernel catalogue at ``ROOFLINE_SHAPES``,
   their FLOPs and compulsory bytes counted from their fused linalg ops
   (``chapter_kernel_costs``, with ``tinycomp.perf.kernel_costs``), placed on the
   roofline: intensity, bound, attainable GFLOP/s.

It prints the table and writes ``benchmarks/results/cpu_roofline_<cpu>.json`` (unless
``--no-write``), which ``tinycomp.perf.roofline.Machine.from_dict`` and
``kernels_from_dict`` read back for the chapter's picture. ``--recount`` only recounts
the kernels of the stored file (their counts are exact, not measured) and keeps its roofs.

Usage::

    python benchmarks/cpu_roofline.py
    python benchmarks/cpu_roofline.py --megabytes 512 --no-write

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import tinycomp
from tinycomp.perf import KernelCost, kernel_costs
from tinycomp.perf.roofline import Machine
from tinycomp.perf.roofline_table import roofline_table
from tinycomp.targets.cpu.blis import choose_blocking
from tinycomp.targets.cpu.machine import detect_machine
from tinycomp.targets.cpu.roofline import measure_machine
from tinycomp.testing import KERNELS

RESULTS = Path(__file__).resolve().parent / "results"

ROOFLINE_SHAPES: dict[str, dict[str, int]] = {
    "softmax": {"rows": 1024, "cols": 1024},
    "layernorm": {"rows": 1024, "cols": 1024},
    "matmul": {"m": 1024, "k": 1024, "n": 1024},
    "conv2d": {"n": 1, "h": 56, "w": 56, "c": 64, "f": 64, "kh": 3, "kw": 3},
}
"""The chapter's kernels at the sizes placed on the roofline: softmax and layernorm
of 1024 x 1024, a 1024^3 matmul, and conv2d a ResNet-like layer (a 56 x 56 x 64 image,
a 3 x 3 x 64 x 64 filter, stride 2, padding 1, as the catalogue's ``conv2d`` is)."""


def chapter_kernel_costs(shapes: dict[str, dict[str, int]] = ROOFLINE_SHAPES) -> list[KernelCost]:
    """One ``KernelCost`` per program, named after the kernel, its fused kernels' FLOPs
    and bytes summed."""
    costs = []
    for name, shape in shapes.items():
        fused = tinycomp.compile(KERNELS[name].trace("f32", **shape), stop_after="fused")
        kernels = kernel_costs(fused.module)
        flops = sum(cost.flops for cost in kernels)
        moved = sum(cost.bytes for cost in kernels)
        costs.append(KernelCost(name, flops=flops, bytes=moved))
    return costs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=256, help="size of the copied buffer")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--recount", type=Path, default=None, help="a stored file to recount")
    args = parser.parse_args()
    kernels = chapter_kernel_costs()
    if args.recount is not None:
        measured = Machine.from_dict(json.loads(args.recount.read_text()))
        path = args.recount
    else:
        machine = detect_machine()
        print(machine.describe(), "\n")
        measured = measure_machine(choose_blocking(machine), megabytes=args.megabytes)
        path = args.output or RESULTS / f"cpu_roofline_{machine.llvm_cpu}.json"
        theoretical = machine.flops_per_cycle()
        print(
            f"micro-kernel {measured.notes['microkernel']}: "
            f"{measured.peak_flops / 1e9:.1f} GFLOP/s "
            f"(= {theoretical} FLOP/cycle at {measured.peak_flops / theoretical / 1e9:.2f} GHz)\n"
        )
    print(roofline_table(measured, kernels))
    for name, shape in ROOFLINE_SHAPES.items():
        print(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in shape.items()))
    if not args.no_write:
        stored = {**measured.to_dict(kernels), "shapes": ROOFLINE_SHAPES}
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(stored, indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

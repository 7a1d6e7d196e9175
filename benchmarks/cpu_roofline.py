"""A measured roofline of one CPU core, with the chapter's kernels placed on it.

1. The compute roof: the GEMM micro-kernel (``tinycomp.codegen.gemm``), generated for
   this machine's blocking, run on packed data that stays in L1 (best of 5).
2. The memory roof: ``np.copyto`` of a buffer much larger than the last-level cache,
   bytes read + written (best of 5).
3. softmax, layernorm, matmul and conv2d of the kernel catalogue, their FLOPs and
   compulsory bytes counted from their fused linalg ops (``tinycomp.perf.kernel_costs``),
   placed on the roofline: intensity, bound, attainable GFLOP/s.

It prints the table and writes ``benchmarks/results/cpu_roofline_<cpu>.json`` (unless
``--no-write``), which ``tinycomp.codegen.gemm.CpuRoofline.from_dict`` reads back for
the chapter's picture.

Usage::

    python benchmarks/cpu_roofline.py
    python benchmarks/cpu_roofline.py --megabytes 512 --no-write

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from tinycomp.codegen.gemm import CpuRoofline, choose_blocking, detect_machine
from tinycomp.codegen.gemm.roofline import ROOFLINE_SHAPES

RESULTS = Path(__file__).resolve().parent / "results"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=256, help="size of the copied buffer")
    parser.add_argument("--output", type=Path, default=None)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    machine = detect_machine()
    print(machine.describe(), "\n")
    roofline = CpuRoofline.measure(choose_blocking(machine), megabytes=args.megabytes)
    print(roofline.table())
    for name, shape in ROOFLINE_SHAPES.items():
        print(f"  {name}: " + ", ".join(f"{k}={v}" for k, v in shape.items()))
    theoretical = machine.flops_per_cycle()
    print(
        f"\nmicro-kernel {roofline.notes['microkernel']}: "
        f"{roofline.machine.peak_flops / 1e9:.1f} GFLOP/s "
        f"(= {theoretical} FLOP/cycle at {roofline.machine.peak_flops / theoretical / 1e9:.2f} GHz)"
    )
    if not args.no_write:
        path = args.output or RESULTS / f"cpu_roofline_{machine.llvm_cpu}.json"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(roofline.to_dict(), indent=2) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()

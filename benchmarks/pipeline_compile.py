"""How long ``tinycomp.compile`` takes, how it grows, and the bytes fusion saves.

Three tables, all measured in one run:

1. **Compile time per kernel.** Every kernel of the catalogue (``tinycomp.testing.KERNELS``)
   goes through the whole pipeline (traced -> generalized -> fused -> tiled ->
   bufferized -> loops), timed best of ``--repeats``. The peer is real MLIR: the very
   text tinycomp traced is handed to ``mlir-opt-22`` with the closest pipeline
   (``PEER_FLAGS``: generalize, fuse, canonicalize, one-shot-bufferize with function
   boundaries, results to out-params, linalg to loops, canonicalize, cse; mlir-opt has
   no tiling pass that takes tile sizes on the command line, so the peer does not tile:
   tinycomp does more work here). Its time is a whole process, so its start-up
   (measured on an empty module) is subtracted in the ``net`` column; ``ratio`` is
   tinycomp / mlir-opt net, shown only where the net time is above 5 ms (a kernel of a
   few dozen ops takes mlir-opt about a millisecond, well inside its start-up noise).
2. **Growth with program size.** A program of ``n`` stacked layers
   (``x = gelu(x @ w) + x``) for n = 1, 10, 100: ops in the traced program and compile
   time, and mlir-opt-22's net time on the same text. ``x10`` is tinycomp's growth
   from the previous row: about 10 means linear.
3. **Bytes moved before and after fusion**, per kernel: the compulsory traffic of all
   kernels (``tinycomp.perf.program_bytes``) after ``generalized`` and after ``fused``.

Usage::

    python benchmarks/pipeline_compile.py
    python benchmarks/pipeline_compile.py --repeats 5 --layers 1 10 100 --tile 4

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from mlir_peer import MLIR_OPT, best_of, startup_seconds  # noqa: E402

import tinycomp  # noqa: E402
from tinycomp.frontend import TensorSpec, gelu  # noqa: E402
from tinycomp.perf import program_bytes  # noqa: E402
from tinycomp.testing import KERNELS  # noqa: E402

PEER_FLAGS = (
    "--linalg-generalize-named-ops",
    "--linalg-fuse-elementwise-ops",
    "--canonicalize",
    "--one-shot-bufferize=bufferize-function-boundaries",
    "--buffer-results-to-out-params",
    "--convert-linalg-to-loops",
    "--canonicalize",
    "--cse",
)


def best_seconds(action, repeats: int) -> float:
    """The shortest of ``repeats`` timings of ``action()``."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - start)
    return best


def peer_seconds(text: str, repeats: int) -> float:
    """Best-of seconds of ``mlir-opt-22`` running ``PEER_FLAGS`` on ``text``."""
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "module.mlir"
        path.write_text(text)
        return best_of([MLIR_OPT, str(path), *PEER_FLAGS, "-o", "/dev/null"], repeats)


def options_for(tile: int) -> tinycomp.CompileOptions:
    return tinycomp.CompileOptions(tile_sizes=(tile, tile) if tile else ())


def kernel_table(repeats: int, tile: int) -> list[str]:
    startup = startup_seconds(repeats) if MLIR_OPT else None
    rows = [
        f"{'kernel':<14} {'ops':>5} {'tinycomp ms':>12} {'mlir-opt ms':>12} {'net ms':>8} "
        f"{'ratio':>7}"
    ]
    options = options_for(tile)
    for name, kernel in KERNELS.items():
        module = kernel.trace("f32")
        text = str(module)
        ops = sum(1 for _ in module.walk()) - 1
        ours = best_seconds(partial(tinycomp.compile, text, options=options), repeats)
        if MLIR_OPT is None:
            rows.append(f"{name:<14} {ops:>5} {ours * 1e3:>12.1f} {'-':>12} {'-':>8} {'-':>7}")
            continue
        theirs = peer_seconds(text, repeats)
        net = theirs - startup
        ratio = f"x{ours / net:.0f}" if net > 0.005 else "-"
        rows.append(
            f"{name:<14} {ops:>5} {ours * 1e3:>12.1f} {theirs * 1e3:>12.1f} "
            f"{net * 1e3:>8.1f} {ratio:>7}"
        )
    if startup is not None:
        rows.append(f"(mlir-opt-22 start-up, subtracted in 'net': {startup * 1e3:.1f} ms)")
    else:
        rows.append("(mlir-opt-22 not found: no peer column; install mlir-22-tools)")
    return rows


def stacked(layers: int):
    def program(x, w):
        for _ in range(layers):
            x = gelu(x @ w) + x
        return x

    return program


def growth_table(layer_counts: list[int], repeats: int, tile: int) -> list[str]:
    startup = startup_seconds(repeats) if MLIR_OPT else None
    rows = [
        f"{'layers':>6} {'ops':>7} {'seconds':>9} {'ms/op':>7} {'x10':>6} "
        f"{'mlir-opt net s':>15} {'ratio':>7}"
    ]
    previous = None
    options = options_for(tile)
    for layers in layer_counts:
        specs = (TensorSpec((8, 16)), TensorSpec((16, 16)))
        module = tinycomp.trace(stacked(layers), *specs)
        text = str(module)
        ops = sum(1 for _ in module.walk()) - 1
        seconds = best_seconds(partial(tinycomp.compile, text, options=options), repeats)
        growth = f"x{seconds / previous:.1f}" if previous else "-"
        peer, ratio = "-", "-"
        if startup is not None:
            net = peer_seconds(text, repeats) - startup
            peer = f"{net:.3f}"
            ratio = f"x{seconds / net:.0f}" if net > 0.005 else "-"
        rows.append(
            f"{layers:>6} {ops:>7} {seconds:>9.3f} {seconds / ops * 1e3:>7.3f} {growth:>6} "
            f"{peer:>15} {ratio:>7}"
        )
        previous = seconds
    rows.append("(ratio only where mlir-opt's net time is above 5 ms: below, start-up noise rules)")
    return rows


def bytes_table() -> list[str]:
    rows = [f"{'kernel':<14} {'unfused B':>10} {'fused B':>10} {'saved':>7}"]
    for name, kernel in KERNELS.items():
        program = tinycomp.compile(str(kernel.trace("f32")), stop_after="fused")
        before = program_bytes(program.ir("generalized"))
        after = program_bytes(program.ir("fused"))
        rows.append(f"{name:<14} {before:>10} {after:>10} {1 - after / before:>7.0%}")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--layers", type=int, nargs="+", default=[1, 10, 100])
    parser.add_argument("--tile", type=int, default=4, help="tile size of the first two loops")
    args = parser.parse_args()
    np.random.seed(0)
    print(f"compile time per kernel (whole pipeline, tile sizes {args.tile}x{args.tile})")
    print("\n".join(kernel_table(args.repeats, args.tile)))
    print("\ncompile time as the program grows (x = gelu(x @ w) + x, per layer)")
    print("\n".join(growth_table(args.layers, args.repeats, args.tile)))
    print("\nbytes moved by all kernels, before and after fusion (f32, default shapes)")
    print("\n".join(bytes_table()))


if __name__ == "__main__":
    main()

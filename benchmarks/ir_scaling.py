"""How the IR core and the passes scale: 1k, 10k and 100k ops.

A compiler's passes should take time proportional to the size of the IR. This script
builds modules of about 1k, 10k and 100k ops, times each stage, and reports the time
per op and the growth factor from one size to the next: about 10x per step means
linear, 100x would mean quadratic.

The modules are built from one repeated *unit* that looks like real code: an arith
chain that feeds the next unit, constants (many equal, for uniquing), identities for
``canonicalize`` (``x + 0``, ``x * 1``), duplicated expressions for ``cse``, ops
nobody uses for ``dce``, and an ``scf.for`` loop with a nested loop. Two layouts are
measured: many functions of about 1000 ops each, and everything in a single function
(one huge block is where quadratic behaviour hides).

Stages: ``print`` (the module to text), ``parse`` (the text back), ``verify``, and the
``canonicalize``, ``cse`` and ``dce`` passes run by the ``PassManager`` on the parsed
module (stages printed and verification off, so each pass is timed alone).

Python's cyclic garbage collector walks every live object now and then, and a module of
100k ops is millions of objects, so the collector alone can make big modules look
slower per op than small ones. ``--gc-off`` switches it off while timing, which shows
the growth of the algorithms themselves.

The peer is real MLIR. Where ``mlir-opt-22`` is on PATH, the very text tinycomp printed
is written to a file and timed there (best of 3 runs each, see ``mlir_peer.py``):
``mlir-opt-22 FILE -o /dev/null`` against tinycomp's parse + verify + print, and
``mlir-opt-22 FILE --canonicalize --cse -o /dev/null`` against tinycomp's parse +
verify + canonicalize + cse + print (tinycomp's print is timed on the module before
the passes). A second table gives both times and the ratio tinycomp/mlir-opt
(``x58``: tinycomp took 58 times as long). Each ``mlir-opt`` figure is a whole process
and so INCLUDES its start-up; the start-up is measured on an empty module, printed, and
subtracted in the ``net`` columns. The row ``canonicalize+cse alone`` compares the
passes only: tinycomp's pass timings against the difference of the two ``mlir-opt``
runs (noisy at small sizes; ``-`` where the difference is not positive). Where
``mlir-opt-22`` is absent the peer table is skipped with a note.

Usage::

    python benchmarks/ir_scaling.py                    # 1k, 10k, 100k ops, both layouts
    python benchmarks/ir_scaling.py --sizes 1000 10000 --layout single
    python benchmarks/ir_scaling.py --gc-off --json scaling.json

This is a measurement, not a test: nothing here asserts on time.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

from mlir_peer import MLIR_OPT, peer_seconds, startup_seconds
from rich.console import Console
from rich.table import Table

import tinycomp.dialects.scf  # noqa: F401  (registers scf: the units contain loops)
from tinycomp.ir import parse, print_ir, verify
from tinycomp.passes import PassManager

STAGES = ("print", "parse", "verify", "canonicalize", "cse", "dce")
OPS_PER_FUNCTION = 1000


def unit_text(k: int) -> str:
    """One unit of 26 ops; ``%acc{k}`` is its result, read by the next unit."""
    return f"""
    %c{k} = arith.constant {k % 17} : i32
    %one{k} = arith.constant 1 : i32
    %zero{k} = arith.constant 0 : i32
    %a{k} = arith.addi %acc{k - 1}, %c{k} : i32
    %b{k} = arith.muli %a{k}, %x : i32
    %b{k}_dup = arith.muli %a{k}, %x : i32
    %d{k} = arith.addi %b{k}, %zero{k} : i32
    %e{k} = arith.muli %d{k}, %one{k} : i32
    %dead{k} = arith.subi %e{k}, %x : i32
    %s{k} = arith.subi %b{k}_dup, %e{k} : i32
    %f{k} = arith.sitofp %s{k} : i32 to f32
    %g{k} = arith.mulf %f{k}, %fx : f32
    %g{k}_dup = arith.mulf %f{k}, %fx : f32
    %h{k} = arith.addf %g{k}, %g{k}_dup : f32
    %lb{k} = arith.constant 0 : index
    %ub{k} = arith.constant 4 : index
    %st{k} = arith.constant 1 : index
    %loop{k} = scf.for %i{k} = %lb{k} to %ub{k} step %st{k} iter_args(%it{k} = %h{k}) -> f32 {{
      %in{k} = scf.for %j{k} = %lb{k} to %ub{k} step %st{k} iter_args(%jt{k} = %it{k}) -> f32 {{
        %m{k} = arith.mulf %jt{k}, %fx : f32
        %n{k} = arith.addf %m{k}, %fx : f32
        scf.yield %n{k} : f32
      }}
      %o{k} = arith.addf %in{k}, %it{k} : f32
      scf.yield %o{k} : f32
    }}
    %back{k} = arith.fptosi %loop{k} : f32 to i32
    %acc{k} = arith.xori %back{k}, %e{k} : i32"""


OPS_PER_UNIT = 26
"""Ops in one unit (loops and their bodies included)."""


def function_text(name: str, units: int, first: int) -> str:
    """A function of ``units`` units, numbered from ``first``."""
    body = "".join(unit_text(k) for k in range(first, first + units))
    return (
        f"  func.func @{name}(%x: i32, %fx: f32) -> i32 {{\n"
        f"    %acc{first - 1} = arith.addi %x, %x : i32{body}\n"
        f"    return %acc{first + units - 1} : i32\n  }}\n"
    )


def module_text(total_ops: int, layout: str) -> str:
    """About ``total_ops`` ops, in functions of ~1000 ops (``many``) or one (``single``)."""
    units = max(1, total_ops // OPS_PER_UNIT)
    per_function = units if layout == "single" else max(1, OPS_PER_FUNCTION // OPS_PER_UNIT)
    functions = []
    first = 1
    while first <= units:
        count = min(per_function, units - first + 1)
        functions.append(function_text(f"f{first}", count, first))
        first += count
    return "module {\n" + "".join(functions) + "}"


def timed(action: Callable[[], object]) -> tuple[float, object]:
    """Seconds taken by ``action()`` and its result."""
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def measure(total_ops: int, layout: str, gc_off: bool = False, peer: bool = False) -> dict:
    """Time every stage on a module of about ``total_ops`` ops (with the garbage
    collector switched off while timing if ``gc_off``); with ``peer``, also time
    ``mlir-opt-22`` on the text tinycomp printed (``row["peer_seconds"]``)."""
    module = parse(module_text(total_ops, layout))
    if gc_off:
        gc.collect()
        gc.disable()
    try:
        return _measure_stages(module, layout, peer)
    finally:
        gc.enable()


def _measure_stages(module, layout: str, peer: bool) -> dict:
    op_count = sum(1 for _ in module.walk()) - 1
    seconds: dict[str, float] = {}
    seconds["print"], text = timed(lambda: print_ir(module))
    seconds["parse"], module = timed(lambda: parse(text))
    seconds["verify"], _ = timed(lambda: verify(module))
    manager = PassManager.parse("canonicalize,cse,dce", verify_each=False, print_after_each=False)
    result = manager.run(module)
    seconds.update((timing.name, timing.seconds) for timing in result.timings)
    ops_after = sum(1 for _ in module.walk()) - 1
    row = {"layout": layout, "ops": op_count, "ops_after": ops_after, "seconds": seconds}
    if peer:
        row["peer_seconds"] = peer_seconds(text)
    return row


def growth(rows: list[dict], stage: str) -> list[str]:
    """Per step, how much the time grew: ``t2/t1`` (``x10.3``)."""
    factors = []
    for smaller, larger in zip(rows, rows[1:], strict=False):
        before, after = smaller["seconds"][stage], larger["seconds"][stage]
        factors.append(f"x{after / before:.1f}" if before > 0 else "-")
    return factors


def report(results: list[dict], console: Console) -> None:
    """One rich table per layout: seconds and microseconds per op, then growth factors."""
    for layout in dict.fromkeys(r["layout"] for r in results):
        rows = [r for r in results if r["layout"] == layout]
        sizes = ", ".join(f"{r['ops']} ops ({r['ops_after']} after the passes)" for r in rows)
        table = Table(title=f"layout '{layout}': {sizes}")
        table.add_column("stage")
        for row in rows:
            table.add_column(f"{_short(row['ops'])} s", justify="right")
            table.add_column("us/op", justify="right")
        for smaller, larger in zip(rows, rows[1:], strict=False):
            table.add_column(f"{_short(smaller['ops'])}->{_short(larger['ops'])}", justify="right")
        for stage in STAGES:
            cells = []
            for row in rows:
                seconds = row["seconds"][stage]
                cells += [f"{seconds:.3f}", f"{1e6 * seconds / row['ops']:.1f}"]
            table.add_row(stage, *cells, *growth(rows, stage))
        console.print(table)


PEER_ROWS: dict[str, tuple[tuple[str, ...], str]] = {
    "parse+verify+print": (("parse", "verify", "print"), "parse+verify+print"),
    "canonicalize+cse": (
        ("parse", "verify", "canonicalize", "cse", "print"),
        "canonicalize+cse",
    ),
}
"""Peer table row -> (tinycomp stages summed, ``mlir-opt`` pipeline it is compared with)."""


def report_peer(results: list[dict], startup: float, console: Console) -> None:
    """One table per layout: tinycomp vs ``mlir-opt-22`` seconds and their ratio."""
    console.print(f"mlir-opt-22 start-up (empty module, best of 3): {startup:.4f} s")
    for layout in dict.fromkeys(r["layout"] for r in results):
        table = Table(title=f"layout '{layout}': tinycomp vs mlir-opt-22 (ratio = tinycomp/peer)")
        for name in ("ops", "pipeline", "tinycomp s", "mlir-opt s", "ratio"):
            table.add_column(name, justify="left" if name == "pipeline" else "right")
        table.add_column("mlir-opt net s", justify="right")
        table.add_column("ratio net", justify="right")
        for row in (r for r in results if r["layout"] == layout):
            peer = row["peer_seconds"]
            for name, (stages, pipeline) in PEER_ROWS.items():
                ours = sum(row["seconds"][stage] for stage in stages)
                theirs = peer[pipeline]
                table.add_row(
                    _short(row["ops"]),
                    name,
                    f"{ours:.3f}",
                    f"{theirs:.4f}",
                    _ratio(ours, theirs),
                    f"{theirs - startup:.4f}",
                    _ratio(ours, theirs - startup),
                )
            ours = row["seconds"]["canonicalize"] + row["seconds"]["cse"]
            theirs = peer["canonicalize+cse"] - peer["parse+verify+print"]
            table.add_row(
                _short(row["ops"]), "canonicalize+cse alone", f"{ours:.3f}", "", "",
                f"{theirs:.4f}", _ratio(ours, theirs),
            )  # fmt: skip
        console.print(table)


def _ratio(ours: float, theirs: float) -> str:
    """``x58`` (tinycomp took 58 times as long), or ``-`` when the peer time is not positive."""
    if theirs <= 0:
        return "-"
    return f"x{ours / theirs:.0f}" if ours / theirs >= 10 else f"x{ours / theirs:.1f}"


def _short(ops: int) -> str:
    """``100302`` -> ``100k``."""
    return f"{round(ops / 1000)}k" if ops >= 500 else str(ops)


def main(argv: list[str] | None = None) -> int:
    """Measure the requested sizes and layouts and print the tables."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10_000, 100_000])
    parser.add_argument("--layout", choices=["many", "single", "both"], default="both")
    parser.add_argument("--gc-off", action="store_true", help="time without the cyclic GC")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)
    layouts = ["many", "single"] if args.layout == "both" else [args.layout]
    console = Console(width=None if sys.stdout.isatty() else 120)
    peer = MLIR_OPT is not None
    if not peer:
        console.print("note: mlir-opt-22 is not on PATH (package mlir-22-tools): no peer columns")
    startup = startup_seconds() if peer else 0.0
    results = []
    for layout in layouts:
        for size in args.sizes:
            console.print(f"measuring {size} ops, layout '{layout}'...")
            results.append(measure(size, layout, gc_off=args.gc_off, peer=peer))
            if peer:
                results[-1]["peer_startup_seconds"] = startup
    report(results, console)
    if peer:
        report_peer(results, startup, console)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

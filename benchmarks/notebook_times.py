"""Time every chapter notebook, top to bottom, as a reader's kernel would run it.

Each chapter should run in well under a minute on a 2-core laptop. This script
executes every notebook in ``chapters/`` with nbclient (a fresh kernel each) and
reports the wall-clock time per notebook next to the 60 s aim, plus the time of
its slowest cell, so a slow chapter points at the cell to look at.

Usage::

    python benchmarks/notebook_times.py              # every chapter
    python benchmarks/notebook_times.py 00 03        # chapters whose name starts with 00 or 03
    python benchmarks/notebook_times.py --json out.json

Nothing here is a test: timings on a shared machine are noisy, so they are
reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from rich.console import Console
from rich.table import Table

CHAPTERS = Path(__file__).resolve().parent.parent / "chapters"
AIM_SECONDS = 60.0


def time_notebook(path: Path) -> dict:
    """Run one notebook in a fresh kernel; return its total and slowest-cell times.

    Example::

        >>> time_notebook(CHAPTERS / "00_welcome.ipynb")["seconds"] > 0  # doctest: +SKIP
        True
    """
    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(
        notebook,
        timeout=600,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    cell_times: list[tuple[float, int]] = []
    original_execute_cell = client.async_execute_cell

    async def timed_execute_cell(cell, cell_index, *args, **kwargs):
        start = time.perf_counter()
        result = await original_execute_cell(cell, cell_index, *args, **kwargs)
        cell_times.append((time.perf_counter() - start, cell_index))
        return result

    client.async_execute_cell = timed_execute_cell
    start = time.perf_counter()
    client.execute()
    total = time.perf_counter() - start
    slowest_seconds, slowest_index = max(cell_times, default=(0.0, -1))
    return {
        "notebook": path.name,
        "seconds": round(total, 2),
        "slowest_cell": slowest_index,
        "slowest_cell_seconds": round(slowest_seconds, 2),
    }


def main(argv: list[str] | None = None) -> int:
    """Time the selected chapters and print a table; return a process exit code."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefixes", nargs="*", help="chapter number prefixes, e.g. 00 03")
    parser.add_argument("--json", type=Path, help="also write the results to this file")
    args = parser.parse_args(argv)

    notebooks = sorted(CHAPTERS.glob("*.ipynb"))
    if args.prefixes:
        notebooks = [nb for nb in notebooks if nb.name.startswith(tuple(args.prefixes))]
    if not notebooks:
        print(f"no chapter notebook matches {args.prefixes!r} in {CHAPTERS.name}/", file=sys.stderr)
        return 2

    console = Console()
    table = Table(title=f"chapter run times (aim: under {AIM_SECONDS:.0f} s each)")
    for column in ("notebook", "seconds", "vs aim", "slowest cell", "its seconds"):
        table.add_column(column, justify="left" if column == "notebook" else "right")
    results = []
    with console.status("running notebooks...") as status:
        for path in notebooks:
            status.update(f"running {path.name}...")
            row = time_notebook(path)
            results.append(row)
            ratio = row["seconds"] / AIM_SECONDS
            colour = "green" if ratio < 1 else "red"
            table.add_row(
                path.name,
                f"{row['seconds']:.1f}",
                f"[{colour}]{ratio:.2f}x[/]",
                str(row["slowest_cell"]),
                f"{row['slowest_cell_seconds']:.1f}",
            )
    console.print(table)
    if args.json:
        args.json.write_text(json.dumps(results, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

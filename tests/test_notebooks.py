"""Stored chapter notebooks are clean: executed in order, no errors, nothing volatile kept."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

CHAPTERS = sorted((Path(__file__).resolve().parent.parent / "chapters").glob("*.ipynb"))


@pytest.mark.parametrize("path", CHAPTERS, ids=[path.stem for path in CHAPTERS])
def test_chapter_is_stored_executed_in_order_without_errors(path: Path):
    notebook = nbformat.read(path, as_version=4)
    code_cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    counts = [cell.execution_count for cell in code_cells]
    assert counts == list(range(1, len(code_cells) + 1)), (
        f"{path.name}: expected cells executed once, top to bottom (1..{len(code_cells)}), "
        f"found execution counts {counts}; re-run it with Run All"
    )
    for number, cell in enumerate(code_cells, start=1):
        errors = [output for output in cell.outputs if output.output_type == "error"]
        assert not errors, f"{path.name}, code cell {number}: stored error output {errors[0].ename}"
        assert "execution" not in cell.metadata, (
            f"{path.name}, code cell {number}: execution timestamps are stored; run it with "
            "--ExecutePreprocessor.record_timing=False"
        )

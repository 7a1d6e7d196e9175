"""The code is part of the course: it must stay lint-clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def ruff_command() -> list[str] | None:
    """How to run ruff here: the module of this interpreter, else one on PATH."""
    try:
        import ruff  # noqa: F401
    except ImportError:
        found = shutil.which("ruff")
        return [found] if found else None
    return [sys.executable, "-m", "ruff"]


def test_ruff_is_clean():
    command = ruff_command()
    if command is None:
        pytest.skip("ruff is not installed (it comes with the [dev] extra)")
    folders = [
        name
        for name in ("tinycomp", "tests", "exercises", "solutions", "benchmarks")
        if (ROOT / name).exists()
    ]
    result = subprocess.run([*command, "check", *folders], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, f"ruff found problems:\n{result.stdout}{result.stderr}"

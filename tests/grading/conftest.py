"""Fixtures for testing the grader: run `tinycomp`, and build throwaway mini projects.

A mini project is a complete, tiny tinycomp project in a temporary folder: one
chapter, `ch01_mini`, with three tasks (01.2 worth two points), its reference
answers, its graded tests, and a copy of the real `tests/exercises/conftest.py`.
Each test writes the student's file it needs and grades it.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from io import StringIO
from pathlib import Path
from textwrap import dedent
from typing import Any
from unittest import mock

import pytest

from tinycomp.cli import main
from tinycomp.grading.tasks import discover_chapters

ROOT = Path(__file__).resolve().parents[2]

MINI_STUB = """\
def add(a, b):
    # TODO(Task 01.1): add two numbers
    raise NotImplementedError("Task 01.1: return the sum")


def scale(x, factor):
    # TODO(Task 01.2): scale a number
    raise NotImplementedError("Task 01.2: return the product")


def mean(values):
    # TODO(Task 01.3): the mean of a list
    raise NotImplementedError("Task 01.3: return the arithmetic mean")
"""

MINI_SOLUTION = """\
def add(a, b):
    return a + b


def scale(x, factor):
    return x * factor


def mean(values):
    return sum(values) / len(values)
"""

MINI_TESTS = """\
import pytest

from tinycomp.grading.checks import describe_call, expect_close


@pytest.mark.task01_1
def test_add(impl, record_property):
    expect_close(describe_call(impl.add, 2, 3), impl.add(2, 3), 5)
    record_property("tinycomp_note", "a note for the student (not graded)")


@pytest.mark.task01_2(points=2)
def test_scale(impl):
    expect_close(describe_call(impl.scale, 2, 3), impl.scale(2, 3), 6)


@pytest.mark.task01_3
def test_mean(impl):
    expect_close(describe_call(impl.mean, [1, 2, 3]), impl.mean([1, 2, 3]), 2)


@pytest.mark.task01_3
def test_mean_of_one(impl):
    expect_close(describe_call(impl.mean, [4]), impl.mean([4]), 4)
"""


@dataclass
class CliRun:
    """What one `tinycomp ...` command did."""

    exit_code: int
    stdout: str
    stderr: str
    results: dict[str, Any] | None
    """The results.json it wrote, if it was asked to write one."""

    def status(self, task_id: str) -> str:
        """The status of a task, e.g. "not started", as results.json records it."""
        return self._test(task_id)["extra_data"]["status"]

    def feedback(self, task_id: str) -> str:
        """The full feedback of a task, as results.json records it."""
        return self._test(task_id)["output"]

    def _test(self, task_id: str) -> dict[str, Any]:
        assert self.results is not None, "run tinycomp with --json to read task results"
        return next(test for test in self.results["tests"] if test["number"] == task_id)


def run_tinycomp(*args: str | Path, json_path: Path | None = None) -> CliRun:
    """Run `tinycomp ARGS` in this process (with `--json json_path` if given)."""
    argv = [str(arg) for arg in args]
    if json_path is not None:
        argv += ["--json", str(json_path)]
    stdout, stderr = StringIO(), StringIO()
    with mock.patch.dict(os.environ, {"COLUMNS": "200"}):
        with redirect_stdout(stdout), redirect_stderr(stderr):
            exit_code = main(argv)
    results = None
    if json_path is not None and json_path.exists():
        results = json.loads(json_path.read_text())
    return CliRun(exit_code, stdout.getvalue(), stderr.getvalue(), results)


@pytest.fixture(scope="session")
def tinycomp():
    """`run_tinycomp`: call it as `tinycomp("grade", "ch00", json_path=...)`."""
    return run_tinycomp


@dataclass
class MiniProject:
    """A throwaway project with one chapter, `ch01_mini`."""

    root: Path

    def write_student_file(self, source: str) -> None:
        """Replace `exercises/ch01_mini.py` with `source` (dedented)."""
        (self.root / "exercises" / "ch01_mini.py").write_text(dedent(source))

    def grade(self, *args: str) -> CliRun:
        """Run `tinycomp grade ARGS --root ROOT --json ROOT/results.json`."""
        json_path = self.root / "results.json"
        json_path.unlink(missing_ok=True)
        return run_tinycomp("grade", *args, "--root", self.root, json_path=json_path)


@pytest.fixture
def mini_project(tmp_path: Path) -> MiniProject:
    """A fresh mini project whose student file is still the untouched stub."""
    root = tmp_path / "project"
    for folder in ("exercises", "solutions", "tests/exercises"):
        (root / folder).mkdir(parents=True)
    (root / "exercises" / "ch01_mini.py").write_text(MINI_STUB)
    (root / "solutions" / "ch01_mini.py").write_text(MINI_SOLUTION)
    (root / "tests" / "exercises" / "test_ch01_mini.py").write_text(MINI_TESTS)
    shutil.copy(ROOT / "tests" / "exercises" / "conftest.py", root / "tests" / "exercises")
    return MiniProject(root)


def pytest_configure(config: pytest.Config) -> None:
    """The task markers of the real chapters (``tests/exercises/conftest.py`` registers
    them too): the tests of the graders' feedback import the graded tests."""
    for chapter in discover_chapters(ROOT):
        for task in chapter.tasks():
            config.addinivalue_line("markers", f"{task.marker}: Task {task.id}: {task.title}")

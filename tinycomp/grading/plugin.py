"""A pytest plugin that logs what happened to each graded test, one JSON line per event.

The grader runs pytest with `-p tinycomp.grading.plugin --grading-log=FILE`.
Every event is written and flushed at once, so a test process that hangs or
dies still leaves a readable record of everything before it:

    {"event": "collected", "nodeid": "tests/...::test_flops", "tasks": {"task00_1": 2}}
    {"event": "started", "nodeid": "tests/...::test_flops"}
    {"event": "finished", "nodeid": "tests/...::test_flops", "status": "passed", "message": ""}
    {"event": "collect_error", "nodeid": "tests/exercises/test_ch01_ir.py",
     "message": "ModuleNotFoundError: No module named 'hypothesis'\n  tests/..."}
    {"event": "done", "exitstatus": 0}

The grader reads this log (`runner.read_log`); it never parses pytest's
terminal output.
"""

from __future__ import annotations

import json
from collections.abc import Generator
from pathlib import Path
from typing import IO, Any

import pytest

from tinycomp.grading.collect_errors import describe_collect_error
from tinycomp.grading.outcomes import Status, classify
from tinycomp.grading.tasks import marker_to_task_id

__all__ = ["OutcomeLog", "task_markers"]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--grading-log=FILE`: where to write the events."""
    parser.addoption("--grading-log", default=None, help="write graded test outcomes (JSON lines)")


def pytest_configure(config: pytest.Config) -> None:
    """Start logging if `--grading-log` was given."""
    path = config.getoption("grading_log")
    if path:
        config.pluginmanager.register(OutcomeLog(Path(path), config.rootpath), "grading-log")


def task_markers(item: pytest.Item) -> dict[str, Any]:
    """The task markers on a test, each with its declared `points=` (None if it has none)."""
    tasks: dict[str, Any] = {}
    for mark in item.iter_markers():
        if marker_to_task_id(mark.name) is None:
            continue
        points = mark.kwargs.get("points")
        is_number = isinstance(points, (int, float)) and not isinstance(points, bool)
        tasks[mark.name] = points if points is None or is_number else repr(points)
    return tasks


class OutcomeLog:
    """The hooks that write the events of one pytest session to a JSON-lines file."""

    def __init__(self, path: Path, root: Path) -> None:
        self.root = root
        self.file: IO[str] = path.open("a", encoding="utf-8")
        self.outcomes: dict[str, tuple[Status, str]] = {}
        self.collect_causes: dict[str, BaseException] = {}

    def write(self, **event: Any) -> None:
        """Append one event and flush it, so it survives a crash right after."""
        self.file.write(json.dumps(event) + "\n")
        self.file.flush()

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Log every test about to run, with its tasks."""
        for item in session.items:
            self.write(event="collected", nodeid=item.nodeid, tasks=task_markers(item))

    def pytest_exception_interact(
        self, node: pytest.Item | pytest.Collector, call: pytest.CallInfo[Any], report: Any
    ) -> None:
        """Keep the exception of a file that could not be collected: its report is only text."""
        if isinstance(report, pytest.CollectReport) and call.excinfo is not None:
            self.collect_causes[report.nodeid] = call.excinfo.value

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        """Log a test file that could not be collected: the real cause first, then pytest's text."""
        if report.failed:
            error = self.collect_causes.pop(report.nodeid, None)
            message = describe_collect_error(error, self.root, report.longreprtext)
            self.write(event="collect_error", nodeid=report.nodeid, message=message)

    def pytest_runtest_logstart(self, nodeid: str) -> None:
        """Log that a test started: if the process dies now, the grader knows which one."""
        self.write(event="started", nodeid=nodeid)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        """Classify each phase (setup, call, teardown); the first one that did not pass wins."""
        report = yield
        if report.passed:
            outcome = Status.PASSED, passing_note(item)
        elif report.skipped:
            reason = str(call.excinfo.value) if call.excinfo else ""
            outcome = Status.SKIPPED, getattr(report, "wasxfail", "") or reason
        else:
            outcome = classify(call.excinfo.value if call.excinfo else None, self.root)
            if outcome[0] is Status.PASSED:  # a strict xfail that passed
                outcome = Status.FAILED, "expected to fail, but passed"
        if self.outcomes.get(item.nodeid, (Status.PASSED, ""))[0] is Status.PASSED:
            self.outcomes[item.nodeid] = outcome
        return report

    def pytest_runtest_logfinish(self, nodeid: str) -> None:
        """Log the test's outcome once all its phases are done."""
        status, message = self.outcomes.pop(nodeid, (Status.PASSED, ""))
        self.write(event="finished", nodeid=nodeid, status=status.value, message=message)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        """Log that the session ended normally, and close the file."""
        self.write(event="done", exitstatus=int(exitstatus))
        self.file.close()


NOTE_PROPERTY = "tinycomp_note"
"""The ``record_property`` key of a note a passing test leaves for the student (a measured
speed, say): shown as the task's feedback, never graded."""


def passing_note(item: pytest.Item) -> str:
    """The notes a test recorded with ``record_property(NOTE_PROPERTY, text)``, joined.

    >>> class Item:
    ...     user_properties = [("tinycomp_note", "123 GFLOPS"), ("other", "x")]
    >>> passing_note(Item())
    '123 GFLOPS'
    """
    notes = [str(value) for key, value in item.user_properties if key == NOTE_PROPERTY]
    return "; ".join(notes)

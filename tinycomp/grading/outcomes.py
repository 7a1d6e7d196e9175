"""What happened to one graded test, in words a student can act on.

`classify` turns the exception a test raised into a `Status` and a message:

| what the test raised                               | status      |
|----------------------------------------------------|-------------|
| nothing                                            | passed      |
| `GradingFailure` or any `AssertionError`           | failed      |
| `NotImplementedError` from an exercise file        | not started |
| pytest-timeout's failure                           | timed out   |
| `StudentCodeError` (the file did not import)       | error       |
| any other exception                                | error       |

Messages point at the line of the exercise file at fault, the way a compiler
points at the source line of an error.
"""

from __future__ import annotations

import re
import traceback
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path

import pytest

from tinycomp.grading.loader import IMPLEMENTATIONS, StudentCodeError, relative_to_root

__all__ = ["Status", "TestRecord", "classify"]

TIMEOUT_MESSAGE = re.compile(r"Timeout \(>(?P<seconds>[\d.]+)s\) from pytest-timeout")


class Status(str, Enum):
    """The state of one test, and of one task once its tests are combined."""

    PASSED = "passed"
    FAILED = "failed"
    NOT_STARTED = "not started"
    TIMED_OUT = "timed out"
    ERROR = "error"
    SKIPPED = "skipped"
    NOT_RUN = "not run"


@dataclass
class TestRecord:
    """One graded test as the grader saw it."""

    __test__ = False  # not a pytest test class, despite the name

    nodeid: str
    """pytest's id, e.g. `tests/exercises/test_ch00_warmup.py::test_matmul_flops[2-3-4]`."""
    tasks: dict[str, float | None] = field(default_factory=dict)
    """The task markers on the test (`task00_1`), each with its `points=` if it declares one."""
    status: Status = Status.NOT_RUN
    """What happened; `NOT_RUN` until the test reports."""
    message: str = ""
    """The feedback; for a passing test, only a note it chose to leave (a measured speed)."""


def classify(error: BaseException | None, root: Path) -> tuple[Status, str]:
    """Sort a test's exception into a status and a feedback message.

    >>> classify(None, Path("."))
    (<Status.PASSED: 'passed'>, '')
    >>> classify(AssertionError("f(1): expected 2, found 3"), Path("."))
    (<Status.FAILED: 'failed'>, 'f(1): expected 2, found 3')
    """
    if error is None:
        return Status.PASSED, ""
    if isinstance(error, StudentCodeError):
        return Status.ERROR, str(error)
    timeout = TIMEOUT_MESSAGE.search(str(error))
    if isinstance(error, pytest.fail.Exception) and timeout:
        seconds = f"{float(timeout['seconds']):g}"
        return Status.TIMED_OUT, f"timed out after {seconds} s" + _running_at(error, root)
    if isinstance(error, pytest.skip.Exception):
        return Status.SKIPPED, str(error)
    if isinstance(error, NotImplementedError) and _raised_in_exercise(error, root):
        return Status.NOT_STARTED, f"still a stub: {error}"
    if isinstance(error, (AssertionError, pytest.fail.Exception)):
        return Status.FAILED, str(error) or ("assertion failed" + _location(error, root))
    return Status.ERROR, f"{type(error).__name__}: {error}" + _location(error, root)


def _is_exercise_file(filename: str, root: Path) -> bool:
    """True for files under `exercises/` or `solutions/`: the code being graded."""
    return relative_to_root(filename, root).split("/")[0] in IMPLEMENTATIONS


def _raised_in_exercise(error: BaseException, root: Path) -> bool:
    """True if the innermost frame of the traceback lies in an exercise file."""
    frames = traceback.extract_tb(error.__traceback__)
    return bool(frames) and _is_exercise_file(frames[-1].filename, root)


def _blame(error: BaseException, root: Path) -> traceback.FrameSummary | None:
    """The frame to point at: the innermost one in an exercise file, else the innermost."""
    frames = traceback.extract_tb(error.__traceback__)
    exercise = [frame for frame in frames if _is_exercise_file(frame.filename, root)]
    return (exercise or frames or [None])[-1]


def _location(error: BaseException, root: Path) -> str:
    """`\\n  file:line in function\\n    source line`, for the frame at fault."""
    frame = _blame(error, root)
    if frame is None:
        return ""
    where = f"\n  {relative_to_root(frame.filename, root)}:{frame.lineno} in {frame.name}"
    return where + (f"\n    {frame.line}" if frame.line else "")


def _running_at(error: BaseException, root: Path) -> str:
    """Where a timed-out test was when the clock ran out, if that was in an exercise file."""
    frame = _blame(error, root)
    if frame is None or not _is_exercise_file(frame.filename, root):
        return ""
    return "; it was running" + _location(error, root)

"""Run the graded tests in a pytest subprocess, whatever the code under test does.

The algorithm:

1. Start `python -m pytest` on the chapters' test files, with the grading
   plugin logging every event (`plugin.py`) and pytest-timeout stopping any
   test that runs longer than `timeout` seconds.
2. Watch the log. If a test stays silent for `timeout + grace` seconds anyway
   (code that blocks signals, or hangs inside C), kill the process.
3. If the session did not finish (killed, crashed, `os._exit`), blame the test
   that was running, and start again without the tests that already have an
   outcome, so one bad test never hides the others.
4. Return one `TestRecord` per test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tinycomp.grading.outcomes import Status, TestRecord

__all__ = ["GRACE_SECONDS", "RunResult", "pytest_command", "read_log", "run_graded_tests"]

GRACE_SECONDS = 30.0
"""How much longer than the per-test timeout the log may stay silent before a kill."""
IDLE_LIMIT_SECONDS = 600.0
"""How long pytest may stay silent outside any test (collecting, importing) before a kill."""
POLL_SECONDS = 0.05
OUTPUT_TAIL_LINES = 25


@dataclass
class RunResult:
    """What the graded tests did, test by test."""

    tests: dict[str, TestRecord] = field(default_factory=dict)
    """Every test seen, by pytest node id."""
    collect_errors: dict[str, str] = field(default_factory=dict)
    """Test files that could not be collected, with pytest's report."""
    problem: str = ""
    """Why pytest stopped before running all the tests, if it did; else empty."""


def run_graded_tests(
    root: Path,
    test_files: list[Path],
    *,
    implementation: str,
    timeout: float,
    grace: float = GRACE_SECONDS,
) -> RunResult:
    """Run `test_files` on `implementation` ("exercises" or "solutions"); collect outcomes."""
    result = RunResult()
    while True:
        done = [nodeid for nodeid, test in result.tests.items() if test.status != Status.NOT_RUN]
        with tempfile.TemporaryDirectory(prefix="tinycomp-grade-") as scratch:
            log, output = Path(scratch) / "events.jsonl", Path(scratch) / "pytest-output.txt"
            command = pytest_command(test_files, implementation, log, timeout, deselect=done)
            exit_code, killed = _run_watched(command, root, log, output, timeout + grace)
            running, finished = _apply_events(read_log(log), result)
            tail = "\n".join(output.read_text(errors="replace").splitlines()[-OUTPUT_TAIL_LINES:])
        if finished:
            return result
        if running is None or running in done:
            why = "stalled outside any test, and was stopped" if killed else "stopped early"
            result.problem = f"pytest {why} (exit status {exit_code}):\n{tail}".rstrip()
            return result
        test = result.tests.setdefault(running, TestRecord(running))
        test.status, test.message = _blame_running_test(exit_code, killed, timeout + grace)


def pytest_command(
    test_files: list[Path], implementation: str, log: Path, timeout: float, deselect: list[str]
) -> list[str]:
    """The pytest command line the grader runs (from the project root).

    >>> command = pytest_command([Path("tests/exercises/test_ch00_warmup.py")], "exercises",
    ...                          Path("events.jsonl"), 60, deselect=[])
    >>> command[1:5]
    ['-m', 'pytest', 'tests/exercises/test_ch00_warmup.py', '--impl=exercises']
    """
    method = "signal" if hasattr(signal, "SIGALRM") else "thread"
    command = [sys.executable, "-m", "pytest", *map(str, test_files), f"--impl={implementation}"]
    # The grader sets every option itself: the project's own `addopts` (doctests, notebooks,
    # --strict-markers, which would reject a task whose TODO line a student deleted) stay out.
    command += ["-o", "addopts=", "-p", "no:nbval"]  # notebooks are not graded: skip its import
    command += ["-p", "tinycomp.grading.plugin", f"--grading-log={log}"]
    command += [f"--timeout={timeout:g}", f"--timeout-method={method}"]
    command += ["--rootdir=.", "--continue-on-collection-errors", "-p", "no:cacheprovider"]
    command += ["-q", "--color=no"]
    for nodeid in deselect:
        command += ["--deselect", nodeid]
    return command


def read_log(path: Path) -> list[dict[str, Any]]:
    """The events of a grading log; a last line cut short by a crash is dropped.

    >>> read_log(Path("no-such-log.jsonl"))
    []
    """
    if not path.exists():
        return []
    events = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            break
    return events


def _apply_events(events: list[dict[str, Any]], result: RunResult) -> tuple[str | None, bool]:
    """Fold a session's events into `result`; return the test left running and if it finished."""
    running, finished = None, False
    for event in events:
        kind, nodeid = event["event"], event.get("nodeid", "")
        if kind == "collected" and nodeid not in result.tests:
            result.tests[nodeid] = TestRecord(nodeid, event["tasks"])
        elif kind == "collect_error":
            result.collect_errors[nodeid] = event["message"]
        elif kind == "started":
            running = nodeid
        elif kind == "finished":
            test = result.tests.setdefault(nodeid, TestRecord(nodeid))
            test.status, test.message = Status(event["status"]), event["message"]
            running = None
        elif kind == "done":
            finished = True
    return running, finished


def _run_watched(
    command: list[str], root: Path, log: Path, output: Path, test_limit: float
) -> tuple[int, bool]:
    """Run `command` under the watchdog (`_watch`); return (exit code, whether it was killed)."""
    env = {key: value for key, value in os.environ.items() if key != "PYTEST_ADDOPTS"}
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # leave no __pycache__ in the student's folders
    with output.open("wb") as sink:
        process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdout=sink,
            stderr=subprocess.STDOUT,
            start_new_session=(os.name == "posix"),
        )
        try:
            killed = _watch(process, log, test_limit)
        finally:
            if process.poll() is None:  # interrupted (Ctrl-C): take the tests down too
                _kill(process)
    return process.returncode, killed


def _watch(process: subprocess.Popen[bytes], log: Path, test_limit: float) -> bool:
    """Wait for `process`, killing it if its log stays silent too long.

    While a test runs, "too long" is `test_limit`; outside tests (collecting,
    importing) it is `IDLE_LIMIT_SECONDS`.
    """
    tail = _LogTail(log)
    last_change = time.monotonic()
    while process.poll() is None:
        if tail.advance():
            last_change = time.monotonic()
        limit = test_limit if tail.in_test else IDLE_LIMIT_SECONDS
        if time.monotonic() - last_change > limit:
            _kill(process)
            return True
        time.sleep(POLL_SECONDS)
    return False


class _LogTail:
    """Follows a growing grading log, to tell whether a test is running right now."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.offset = 0
        self.in_test = False

    def advance(self) -> bool:
        """Read the events written since the last call; True if there were any."""
        if not self.path.exists():
            return False
        with self.path.open("rb") as file:
            file.seek(self.offset)
            new = file.read()
        complete = new[: new.rfind(b"\n") + 1]  # a line still being written waits
        for line in complete.splitlines():
            self.in_test = json.loads(line)["event"] == "started"
        self.offset += len(complete)
        return bool(complete)


def _kill(process: subprocess.Popen[bytes]) -> None:
    """Kill the test process and anything it started."""
    if os.name == "posix":
        os.killpg(process.pid, signal.SIGKILL)
    else:
        process.kill()
    process.wait()


def _blame_running_test(exit_code: int, killed: bool, test_limit: float) -> tuple[Status, str]:
    """The outcome of the test that was running when the process went away."""
    if killed:
        return Status.TIMED_OUT, (
            f"timed out: no progress for {test_limit:g} s, so the grader stopped the test "
            "process (does the code block signals or hang inside a C extension?)"
        )
    if exit_code < 0:
        return Status.ERROR, f"the test process was killed by {signal.Signals(-exit_code).name}"
    return Status.ERROR, f"the test process exited (status {exit_code}) in the middle of this test"

"""From test outcomes to grades: one status, score and feedback per task.

A task passes when every one of its tests passes. Otherwise the task takes the
most telling status among its tests, in this order:

    not started  >  timed out  >  error  >  failed

so a task whose stub still raises `NotImplementedError` anywhere is "not
started", even if some of its tests pass by chance.

Points live in one place, the task's marker: `@pytest.mark.task00_1(points=2)`.
A task without `points=` is worth 1. Tests of one task that declare points
must agree (the usual way: one `task00_1 = pytest.mark.task00_1(points=2)` at
the top of the test file, used on every test).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tinycomp.grading.outcomes import Status, TestRecord
from tinycomp.grading.runner import RunResult
from tinycomp.grading.tasks import Chapter, Task, marker_to_task_id

__all__ = ["DEFAULT_POINTS", "GradeReport", "TaskResult", "score_chapter", "task_points"]

DEFAULT_POINTS = 1
PRECEDENCE = [Status.NOT_STARTED, Status.TIMED_OUT, Status.ERROR, Status.FAILED, Status.NOT_RUN]


@dataclass(frozen=True)
class TaskResult:
    """The grade of one task."""

    task: Task
    status: Status
    score: float
    """Points earned: all of `max_score` if the task passed, else 0."""
    max_score: float
    feedback: str
    """What to fix, starting with the most useful line; empty when the task passed."""

    @property
    def passed(self) -> bool:
        """True if every test of the task passed."""
        return self.status is Status.PASSED


@dataclass(frozen=True)
class GradeReport:
    """The grades of every selected task, in order."""

    implementation: str
    """What was graded: "exercises" (the student's code) or "solutions"."""
    results: list[TaskResult]
    notes: list[str] = field(default_factory=list)
    """Problems worth telling that belong to no single task."""

    @property
    def all_passed(self) -> bool:
        """True if there is at least one task and every task passed."""
        return bool(self.results) and all(result.passed for result in self.results)

    def summary(self) -> str:
        """One line, e.g. `3/5 tasks passed, 4/6 points`.

        >>> GradeReport("exercises", []).summary()
        '0/0 tasks passed, 0/0 points'
        """
        passed = sum(result.passed for result in self.results)
        score = sum(result.score for result in self.results)
        max_score = sum(result.max_score for result in self.results)
        return f"{passed}/{len(self.results)} tasks passed, {score:g}/{max_score:g} points"


def score_chapter(chapter: Chapter, run: RunResult) -> tuple[list[TaskResult], list[str]]:
    """Grade the tasks of one chapter: those its stub declares and those its tests mark.

    Returns the grades, and notes on problems that belong to no single task:

    >>> from pathlib import Path
    >>> results, notes = score_chapter(Chapter(Path("/nowhere"), "ch07_x"), RunResult())
    >>> results
    []
    >>> print(notes[0])
    ch07_x: no tasks to grade; no graded tests: tests/exercises/test_ch07_x.py does not exist
    """
    prefix = chapter.test_path.relative_to(chapter.root).as_posix() + "::"
    tests = [test for nodeid, test in run.tests.items() if nodeid.startswith(prefix)]
    tasks = {task.id: task for task in chapter.tasks()}
    notes = []
    for task_id in sorted({_task_id(marker) for test in tests for marker in test.tasks}):
        if task_id not in tasks:
            tasks[task_id] = Task(task_id, "", chapter.name)
            notes.append(
                f"exercises/{chapter.name}.py has no '# TODO(Task {task_id}): ...' line; "
                "keep the TODO lines: they name the tasks"
            )
    if not tasks:
        notes.append(f"{chapter.name}: no tasks to grade; " + _why_no_tests(None, [], chapter, run))
    ordered = sorted(tasks.values(), key=lambda task: task.sort_key)
    results = [
        _score_task(task, [test for test in tests if task.marker in test.tasks], chapter, run)
        for task in ordered
    ]
    return results, notes


def task_points(task: Task, tests: list[TestRecord]) -> float:
    """The points a task is worth, from the `points=` its tests declare (1 if none do).

    >>> task = Task("00.1", "intensity", "ch00_warmup")
    >>> task_points(task, [TestRecord("t1", {"task00_1": 2}), TestRecord("t2", {"task00_1": None})])
    2
    """
    declared = {test.tasks[task.marker] for test in tests} - {None}
    if not declared:
        return DEFAULT_POINTS
    if len(declared) > 1:
        found = ", ".join(sorted(map(str, declared)))
        raise ValueError(f"the tests of Task {task.id} declare different points ({found})")
    (points,) = declared
    if not isinstance(points, (int, float)) or points <= 0:
        raise ValueError(f"Task {task.id} declares points={points}; points must be positive")
    return points


def _score_task(
    task: Task, tests: list[TestRecord], chapter: Chapter, run: RunResult
) -> TaskResult:
    """Combine the tests of one task into its grade."""
    try:
        max_score = task_points(task, tests)
    except ValueError as error:
        return TaskResult(task, Status.ERROR, 0, DEFAULT_POINTS, str(error))
    ran = [test for test in tests if test.status is not Status.SKIPPED]
    if not ran:
        why = _why_no_tests(task, tests, chapter, run)
        return TaskResult(task, Status.ERROR, 0, max_score, why)
    for status in PRECEDENCE:
        bad = [test for test in ran if test.status is status]
        if bad:
            return TaskResult(task, _shown(status), 0, max_score, _feedback(bad, ran, run))
    notes = [test.message for test in ran if test.message]
    return TaskResult(task, Status.PASSED, max_score, max_score, "\n".join(notes))


def _shown(status: Status) -> Status:
    """A test that never ran makes its task an error: it was not graded."""
    return Status.ERROR if status is Status.NOT_RUN else status


def _feedback(bad: list[TestRecord], ran: list[TestRecord], run: RunResult) -> str:
    """The first bad test's message, which test it was, and how many others did not pass."""
    first = bad[0]
    message = first.message or run.problem or "this test did not run"
    if first.status is Status.NOT_STARTED:
        return message
    where = "in " + first.nodeid.split("::", 1)[-1].split("[")[0]
    others = sum(test.status is not Status.PASSED for test in ran) - 1
    if others:
        where += f"; {others} more test{'s' if others > 1 else ''} of this task did not pass"
    return f"{message}\n({where})"


def _why_no_tests(
    task: Task | None, tests: list[TestRecord], chapter: Chapter, run: RunResult
) -> str:
    """Explain why a task (or a whole chapter, for `task=None`) has no test outcome."""
    shown_path = chapter.test_path.relative_to(chapter.root).as_posix()
    if tests:
        return f"every test of this task was skipped: {tests[0].message}"
    if not chapter.test_path.exists():
        return f"no graded tests: {shown_path} does not exist"
    if shown_path in run.collect_errors:  # the cause first (collect_errors.py), then pytest's text
        return f"{shown_path} could not be collected: {run.collect_errors[shown_path].strip()}"
    if run.problem:
        return run.problem
    marker = task.marker if task else "taskNN_k"
    return f"no test in {shown_path} is marked @pytest.mark.{marker}"


def _task_id(marker: str) -> str:
    """The task id of a marker that `plugin.task_markers` already checked."""
    task_id = marker_to_task_id(marker)
    assert task_id is not None
    return task_id

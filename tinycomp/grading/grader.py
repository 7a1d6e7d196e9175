"""`grade`: find the chapters, run their graded tests, score every task.

This is what `tinycomp grade` does before it prints anything:

1. find the project root (`tasks.find_project_root`) and the chapters asked for,
   and check every stub's TODO lines;
2. run their tests in a pytest subprocess (`runner.run_graded_tests`);
3. turn test outcomes into task grades (`scoring.score_chapter`).

It can be called from Python too, e.g. from a notebook:

    >>> report = grade(["ch00"], implementation="solutions")   # doctest: +SKIP
    >>> report.summary()                                        # doctest: +SKIP
    '2/2 tasks passed, 3/3 points'
"""

from __future__ import annotations

from pathlib import Path

from tinycomp.grading.loader import IMPLEMENTATIONS
from tinycomp.grading.runner import GRACE_SECONDS, RunResult, run_graded_tests
from tinycomp.grading.scoring import GradeReport, score_chapter
from tinycomp.grading.tasks import (
    GradingError,
    discover_chapters,
    find_project_root,
    is_project_root,
    select_chapters,
)

__all__ = ["DEFAULT_TIMEOUT", "grade"]

DEFAULT_TIMEOUT = 60.0
"""Seconds one graded test may run before it counts as timed out."""


def grade(
    chapters: list[str] | None = None,
    *,
    root: Path | None = None,
    implementation: str = "exercises",
    timeout: float = DEFAULT_TIMEOUT,
    grace: float = GRACE_SECONDS,
) -> GradeReport:
    """Grade `chapters` (names like "ch00"; None or [] for all) of the project at `root`.

    `implementation` is "exercises" (the student's code) or "solutions" (the
    reference answers); `timeout` bounds each test, in seconds; `grace` is how
    much longer the grader waits for a test that ignores its timeout.
    """
    if implementation not in IMPLEMENTATIONS:
        raise GradingError(f"implementation must be one of {IMPLEMENTATIONS}: {implementation!r}")
    if timeout <= 0:
        raise GradingError(f"the timeout must be a positive number of seconds, not {timeout:g}")
    root = find_project_root() if root is None else _checked_root(root)
    everything = discover_chapters(root)
    if not everything:
        raise GradingError(f"no exercises found: {root / 'exercises'} has no chNN_topic.py files")
    selected = select_chapters(everything, chapters or [])
    for chapter in everything:  # a malformed TODO line stops pytest's set-up: say so first
        chapter.tasks()
    test_files = [
        chapter.test_path.relative_to(root) for chapter in selected if chapter.test_path.exists()
    ]
    run = RunResult()
    if test_files:
        run = run_graded_tests(
            root, test_files, implementation=implementation, timeout=timeout, grace=grace
        )
    results, notes = [], []
    for chapter in selected:
        chapter_results, chapter_notes = score_chapter(chapter, run)
        results += chapter_results
        notes += chapter_notes
    return GradeReport(implementation, results, notes)


def _checked_root(root: Path) -> Path:
    """`root` itself, if it is a project root (`--root` names it exactly)."""
    if not is_project_root(root):
        raise GradingError(
            f"{root} is not a tinycomp project: "
            "it needs exercises/, solutions/ and tests/exercises/"
        )
    return root.resolve()

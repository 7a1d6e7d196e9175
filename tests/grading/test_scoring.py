"""Test outcomes combine into one status, score and feedback per task."""

from pathlib import Path

import pytest

from tinycomp.grading.outcomes import Status, TestRecord
from tinycomp.grading.runner import RunResult
from tinycomp.grading.scoring import GradeReport, TaskResult, score_chapter, task_points
from tinycomp.grading.tasks import Chapter, Task

TASK = Task("01.1", "add two numbers", "ch01_mini", line=2)
FILE = "tests/exercises/test_ch01_mini.py"


@pytest.fixture
def chapter(tmp_path: Path) -> Chapter:
    """A chapter whose stub declares Task 01.1 and whose test file exists."""
    (tmp_path / "exercises").mkdir()
    (tmp_path / "tests" / "exercises").mkdir(parents=True)
    (tmp_path / "exercises" / "ch01_mini.py").write_text("# TODO(Task 01.1): add two numbers\n")
    (tmp_path / FILE).write_text("")
    return Chapter(tmp_path, "ch01_mini")


def record(name: str, status: Status, message: str = "", points=None) -> TestRecord:
    """A test of Task 01.1 that ended with `status`."""
    return TestRecord(f"{FILE}::{name}", {"task01_1": points}, status, message)


def score(chapter: Chapter, *records: TestRecord, problem: str = "") -> TaskResult:
    """The grade of Task 01.1, given its tests."""
    run = RunResult({test.nodeid: test for test in records}, problem=problem)
    results, _ = score_chapter(chapter, run)
    assert [result.task.id for result in results] == ["01.1"]
    return results[0]


def test_a_task_passes_when_all_its_tests_pass(chapter):
    result = score(chapter, record("a", Status.PASSED), record("b", Status.PASSED))
    assert (result.status, result.score, result.max_score, result.feedback) == (
        Status.PASSED,
        1,
        1,
        "",
    )


def test_notes_of_passing_tests_become_the_feedback(chapter):
    result = score(
        chapter, record("a", Status.PASSED, "212 GFLOPS (not graded)"), record("b", Status.PASSED)
    )
    assert (result.status, result.score, result.feedback) == (
        Status.PASSED,
        1,
        "212 GFLOPS (not graded)",
    )


@pytest.mark.parametrize(
    "statuses, expected",
    [
        ([Status.PASSED, Status.FAILED], Status.FAILED),
        ([Status.FAILED, Status.ERROR], Status.ERROR),
        ([Status.ERROR, Status.TIMED_OUT], Status.TIMED_OUT),
        ([Status.TIMED_OUT, Status.NOT_STARTED, Status.PASSED], Status.NOT_STARTED),
        ([Status.PASSED, Status.NOT_RUN], Status.ERROR),
        ([Status.PASSED, Status.SKIPPED], Status.PASSED),
    ],
)
def test_the_most_telling_status_wins(chapter, statuses, expected):
    records = [record(f"t{index}", status, "why") for index, status in enumerate(statuses)]
    result = score(chapter, *records)
    assert result.status is expected
    assert result.score == (1 if expected is Status.PASSED else 0)


def test_feedback_names_the_test_and_counts_the_others(chapter):
    result = score(
        chapter,
        record("test_add[2-3]", Status.FAILED, "add(2, 3): expected 5, found -1"),
        record("test_add[0-0]", Status.PASSED),
        record("test_add_big", Status.FAILED, "add(1.0e9, 1): expected ..."),
    )
    assert result.feedback == (
        "add(2, 3): expected 5, found -1\n(in test_add; 1 more test of this task did not pass)"
    )


def test_points_come_from_the_marker(chapter):
    result = score(chapter, record("a", Status.PASSED, points=3), record("b", Status.PASSED))
    assert (result.score, result.max_score) == (3, 3)


def test_points_that_disagree_are_an_error(chapter):
    result = score(
        chapter, record("a", Status.PASSED, points=2), record("b", Status.PASSED, points=3)
    )
    assert result.status is Status.ERROR
    assert result.feedback == "the tests of Task 01.1 declare different points (2, 3)"


@pytest.mark.parametrize("points", [0, -1, "'two'"])
def test_points_must_be_positive_numbers(points):
    with pytest.raises(ValueError, match="points must be positive"):
        task_points(TASK, [TestRecord("t", {"task01_1": points})])


def test_a_task_without_tests_says_why(chapter):
    assert score(chapter).feedback == (f"no test in {FILE} is marked @pytest.mark.task01_1")
    assert score(chapter, problem="pytest stopped early").feedback == "pytest stopped early"
    (chapter.root / FILE).unlink()
    assert score(chapter).feedback == f"no graded tests: {FILE} does not exist"


def test_a_marker_without_a_todo_line_still_counts(chapter):
    (chapter.stub_path).write_text("def add(a, b):\n    return a + b\n")
    run = RunResult({f"{FILE}::t": record("t", Status.PASSED)})
    results, notes = score_chapter(chapter, run)
    assert [(result.task.id, result.task.line, result.status) for result in results] == [
        ("01.1", None, Status.PASSED)
    ]
    assert notes == [
        "exercises/ch01_mini.py has no '# TODO(Task 01.1): ...' line; "
        "keep the TODO lines: they name the tasks"
    ]


def test_the_summary_line():
    results = [
        TaskResult(TASK, Status.PASSED, 2, 2, ""),
        TaskResult(TASK, Status.FAILED, 0, 1, "no"),
        TaskResult(TASK, Status.PASSED, 1, 1, ""),
    ]
    report = GradeReport("exercises", results)
    assert report.summary() == "2/3 tasks passed, 3/4 points"
    assert not report.all_passed
    assert not GradeReport("exercises", []).all_passed  # nothing graded is not a pass

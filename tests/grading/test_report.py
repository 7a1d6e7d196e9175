"""The grade report: a table on a wide terminal, one block per task anywhere else.

Each test prints one report to a rich Console that stands for where a student runs
the grader: a wide terminal, a notebook cell (an 80-column pseudo-terminal), a pipe.
"""

from io import StringIO

import pytest
from rich.console import Console

from tinycomp.grading.outcomes import Status
from tinycomp.grading.report import print_report
from tinycomp.grading.scoring import GradeReport, TaskResult
from tinycomp.grading.tasks import Task

MISMATCH = (
    "tiled_matmul(64, 64, 64, tile=16): expected array of shape (64, 64) float32 to match "
    "numpy within rtol=1e-5; first mismatch at [16, 0]: expected 3.5, found 0.0"
)
IR_LINE = "  %3 = tensor.extract_slice %arg0[%i, 0] [16, 64] [1, 1] : tensor<64x64xf32> to ..."
FAILED_FEEDBACK = "\n".join(
    [MISMATCH, IR_LINE, "line 3", "line 4", "line 5", "(in test_tiled_matmul)"]
)
STUB_FEEDBACK = "still a stub: Task 06.2: one partial per tile"


def report_of(*results: TaskResult) -> GradeReport:
    """A report on the student's exercises."""
    return GradeReport("exercises", list(results))


def result(number: int, status: Status, feedback: str, title: str = "a tiling task") -> TaskResult:
    """Task 06.`number`, worth 2 points, with this status and feedback."""
    task = Task(f"06.{number}", title, "ch06_tiling", line=10 * number)
    score = 2 if status is Status.PASSED else 0
    return TaskResult(task, status, score, 2, feedback)


REPORT = report_of(
    result(1, Status.FAILED, FAILED_FEEDBACK, "where one tile lies"),
    result(2, Status.NOT_STARTED, STUB_FEEDBACK, "a reduction with one partial per tile"),
    result(3, Status.PASSED, ""),
)


def shown(report: GradeReport, *, terminal: bool, width: int, verbose: bool = False) -> str:
    """What `print_report` writes to a console of this kind and width."""
    out = StringIO()
    console = Console(file=out, force_terminal=terminal, width=width, color_system=None)
    print_report(report, console, verbose=verbose)
    return out.getvalue()


def test_a_wide_terminal_shows_the_table():
    text = shown(REPORT, terminal=True, width=250)
    assert "┃ Task ┃ Title" in text
    rows = [line for line in text.splitlines() if line.startswith("│ 06.1 ")]
    assert len(rows) == 1 and MISMATCH in rows[0], "the feedback line is one row of the table"
    assert "... (2 more lines; run with --verbose to see it all)" in text
    assert text.splitlines()[-1] == "1/3 tasks passed, 2/6 points"


@pytest.mark.parametrize(
    "terminal, width",
    [(True, 80), (True, 120), (False, 80), (False, 250)],
    ids=["notebook-cell-pty", "narrow-terminal", "pipe", "wide-pipe"],
)
def test_elsewhere_each_task_is_a_block_with_whole_feedback_lines(terminal, width):
    lines = shown(REPORT, terminal=terminal, width=width).splitlines()
    assert not any("┃" in line or "│" in line for line in lines), "no table"
    assert lines == [
        "Grading exercises/ (your code)",
        "",
        "06.1  failed       0/2  where one tile lies",
        "      " + MISMATCH,
        "      " + IR_LINE,
        "      line 3",
        "      line 4",
        "      ... (2 more lines; run with --verbose to see it all)",
        "",
        "06.2  not started  0/2  a reduction with one partial per tile",
        "      " + STUB_FEEDBACK,
        "",
        "06.3  passed       2/2  a tiling task",
        "",
        "1/3 tasks passed, 2/6 points",
    ]


@pytest.mark.parametrize("terminal, width", [(True, 250), (True, 80), (False, 80)])
def test_verbose_shows_all_the_feedback_in_either_form(terminal, width):
    text = shown(REPORT, terminal=terminal, width=width, verbose=True)
    for line in FAILED_FEEDBACK.splitlines():
        assert line in text
    assert "--verbose" not in text


def test_passing_tasks_stay_one_line_each():
    report = report_of(*(result(number, Status.PASSED, "") for number in (1, 2, 3)))
    lines = shown(report, terminal=False, width=80).splitlines()
    assert lines[2:5] == [f"06.{n}  passed  2/2  a tiling task" for n in (1, 2, 3)]


def test_the_table_is_used_only_where_no_feedback_line_would_wrap():
    seen = set()
    for width in range(60, 260, 5):
        text = shown(REPORT, terminal=True, width=width)
        is_table = "┏" in text
        seen.add(is_table)
        if is_table:
            assert all(len(line) <= width for line in text.splitlines())
            assert MISMATCH in text and IR_LINE in text, f"width {width}: a feedback line wrapped"
        else:
            assert "      " + MISMATCH in text.splitlines()
    assert seen == {True, False}, "both forms occur across these widths"


def test_the_grader_command_in_a_pipe_prints_blocks(mini_project):
    run = mini_project.grade()  # stdout is a StringIO here: not a terminal
    lines = run.stdout.splitlines()
    assert "01.2  not started  0/2  scale a number" in lines
    assert "      still a stub: Task 01.2: return the product" in lines
    assert "┃" not in run.stdout

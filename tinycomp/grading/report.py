"""Show a grade report: a table on a wide terminal, one block per task everywhere else.

On a terminal wide enough for every line of feedback, one row per task:

    Grading exercises/ (your code)
    ┏━━━━━━┳━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
    ┃ Task ┃ Title         ┃ Status      ┃ Points ┃ Feedback                                ┃
    ┡━━━━━━╇━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
    │ 00.1 │ the roofline  │ failed      │    0/2 │ expected 166.67 FLOP/byte, found 83.333 │
    │      │               │             │        │ (in test_intensity)                     │
    │ 00.2 │ softmax bytes │ not started │    0/1 │ still a stub: Task 00.2: count bytes    │
    └──────┴───────────────┴─────────────┴────────┴─────────────────────────────────────────┘
    0/2 tasks passed, 0/3 points

Anywhere else (a pipe, a file, a notebook cell running `!tinycomp grade ch00`, whose
pseudo-terminal is 80 columns wide, or any terminal narrower than that table) a table
would fold the feedback into a narrow column, so each task is a block instead: its id,
status, points and title on one line, then its feedback as whole lines, never wrapped:

    Grading exercises/ (your code)

    00.1  failed       0/2  the roofline
          expected 166.67 FLOP/byte, found 83.333
          (in test_intensity)

    00.2  not started  0/1  softmax bytes
          still a stub: Task 00.2: count bytes

    0/2 tasks passed, 0/3 points

Both forms show the first `FEEDBACK_LINES` lines of feedback (all of it with `verbose`).
"""

from __future__ import annotations

from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from tinycomp.grading.outcomes import Status
from tinycomp.grading.scoring import GradeReport, TaskResult

__all__ = ["FEEDBACK_LINES", "feedback_excerpt", "print_report", "use_table"]

FEEDBACK_LINES = 4
"""Lines of feedback shown per task (all of them with `verbose`)."""
FEEDBACK_INDENT = 6
"""Spaces before each feedback line of a block: under the status, clear of the task id."""
UNBOUNDED_WIDTH = 100_000
"""A width no table reaches: measure the table as if the terminal had no right edge."""
STATUS_STYLE = {
    Status.PASSED: "green",
    Status.NOT_STARTED: "yellow",
    Status.FAILED: "red",
    Status.ERROR: "bold red",
    Status.TIMED_OUT: "bold red",
}
HEADINGS = {
    "exercises": "Grading exercises/ (your code)",
    "solutions": "Grading solutions/ (the reference answers)",
}


def print_report(
    report: GradeReport, console: Console | None = None, verbose: bool = False
) -> None:
    """Print the tasks (a table, or blocks: see `use_table`), any notes, and the summary line.

    >>> from tinycomp.grading.scoring import TaskResult
    >>> from tinycomp.grading.tasks import Task
    >>> task = Task("00.2", "softmax FLOPs and bytes", "ch00_warmup", line=40)
    >>> stub = TaskResult(task, Status.NOT_STARTED, 0, 1, "still a stub: Task 00.2: count")
    >>> print_report(GradeReport("exercises", [stub]), Console(width=40))
    Grading exercises/ (your code)
    <BLANKLINE>
    00.2  not started  0/1  softmax FLOPs and bytes
          still a stub: Task 00.2: count
    <BLANKLINE>
    0/1 tasks passed, 0/1 points
    >>> print_report(GradeReport("solutions", []), Console(width=50, force_terminal=True,
    ...                                                    color_system=None))
    Grading solutions/ (the reference answers)
    ┏━━━━━━┳━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━┓
    ┃ Task ┃ Title ┃ Status ┃ Points ┃ Feedback ┃
    ┡━━━━━━╇━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━┩
    └──────┴───────┴────────┴────────┴──────────┘
    0/0 tasks passed, 0/0 points
    """
    console = console or Console()
    table = _table(report, verbose)
    if use_table(console, table):
        console.print(Text(HEADINGS[report.implementation], style="bold"))
        console.print(table)
    else:
        _print_blocks(report, console, verbose)
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"), soft_wrap=True)
    console.print(Text(report.summary(), style="bold green" if report.all_passed else "bold"))


def use_table(console: Console, table: Table) -> bool:
    """True if `console` is a terminal at least as wide as `table` wants: no cell would wrap.

    >>> table = Table("Task", "Feedback")
    >>> table.add_row("00.1", "x" * 60)
    >>> use_table(Console(width=120, force_terminal=True), table)
    True
    >>> use_table(Console(width=60, force_terminal=True), table)  # too narrow: blocks
    False
    >>> use_table(Console(width=120, force_terminal=False), table)  # a pipe: blocks
    False
    """
    if not console.is_terminal:
        return False
    unbounded = console.options.update_width(UNBOUNDED_WIDTH)
    wanted = Measurement.get(console, unbounded, table).maximum
    return wanted <= console.width


def feedback_excerpt(feedback: str, lines: int = FEEDBACK_LINES) -> str:
    """The first `lines` lines of a task's feedback, with a hint when some are cut.

    >>> print(feedback_excerpt("one\\ntwo\\nthree", lines=2))
    one
    two
    ... (1 more line; run with --verbose to see it all)
    """
    kept = feedback.splitlines()
    if len(kept) <= lines:
        return feedback
    cut = len(kept) - lines
    more = f"... ({cut} more line{'s' if cut > 1 else ''}; run with --verbose to see it all)"
    return "\n".join([*kept[:lines], more])


def _table(report: GradeReport, verbose: bool) -> Table:
    """One row per task: id, title, status, points, feedback."""
    table = Table()
    table.add_column("Task", no_wrap=True)
    table.add_column("Title")
    table.add_column("Status", no_wrap=True)
    table.add_column("Points", justify="right", no_wrap=True)
    table.add_column("Feedback", overflow="fold")
    for result in report.results:
        table.add_row(
            result.task.id,
            _title(result),
            _status(result),
            _points(result),
            Text(_shown_feedback(result, verbose)),
        )
    return table


def _print_blocks(report: GradeReport, console: Console, verbose: bool) -> None:
    """One block per task: a header line, then the feedback lines, indented, never wrapped.

    A blank line sets off every block that has feedback; passing tasks stay one line each.
    """
    console.print(Text(HEADINGS[report.implementation], style="bold"))
    status_width = max((len(result.status.value) for result in report.results), default=0)
    points_width = max((len(_points(result)) for result in report.results), default=0)
    spaced = True  # the heading is followed by a blank line
    for result in report.results:
        feedback = _shown_feedback(result, verbose).splitlines()
        if feedback or spaced:
            console.print()
        header = Text(result.task.id + "  ")
        header.append_text(_status(result))
        header.append(" " * (status_width - len(result.status.value) + 2))
        header.append(_points(result).ljust(points_width) + "  ")
        header.append_text(_title(result))
        console.print(header, soft_wrap=True)
        for line in feedback:
            console.print(Text(" " * FEEDBACK_INDENT + line), soft_wrap=True)
        spaced = bool(feedback)
    console.print()


def _shown_feedback(result: TaskResult, verbose: bool) -> str:
    """All of a task's feedback with `verbose`, else its first lines."""
    return result.feedback if verbose else feedback_excerpt(result.feedback)


def _status(result: TaskResult) -> Text:
    """The task's status, coloured by how it went."""
    return Text(result.status.value, style=STATUS_STYLE.get(result.status, ""))


def _points(result: TaskResult) -> str:
    """`earned/max`, e.g. `0/2`."""
    return f"{result.score:g}/{result.max_score:g}"


def _title(result: TaskResult) -> Text:
    """The task's title, or a dim note when no TODO line declares the task."""
    if result.task.line is None:
        return Text("(no TODO line)", style="dim")
    return Text(result.task.title)

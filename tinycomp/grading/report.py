"""Show a grade report in the terminal: one row per task, then a summary line.

Grading exercises/ (your code)
┏━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━┳━━━━━━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┓
┃ Task ┃ Title                   ┃ Status      ┃ Points ┃ Feedback                         ┃
┡━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━╇━━━━━━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━┩
│ 00.1 │ arithmetic intensity... │ failed      │    0/2 │ arithmetic_intensity(2.0e9,      │
│      │                         │             │        │ 1.2e7): expected 166.67          │
│      │                         │             │        │ FLOP/byte, found 83.333          │
│ 00.2 │ softmax FLOPs and bytes │ not started │    0/1 │ still a stub: Task 00.2: ...     │
└──────┴─────────────────────────┴─────────────┴────────┴──────────────────────────────────┘
0/2 tasks passed, 0/3 points
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from tinycomp.grading.outcomes import Status
from tinycomp.grading.scoring import GradeReport, TaskResult

__all__ = ["FEEDBACK_LINES", "feedback_excerpt", "print_report"]

FEEDBACK_LINES = 4
"""Lines of feedback shown per task in the table (all of them with `verbose`)."""
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
    """Print the table of tasks, any notes, and the summary line.

    >>> print_report(GradeReport("solutions", []), Console(width=50))
    Grading solutions/ (the reference answers)
    ┏━━━━━━┳━━━━━━━┳━━━━━━━━┳━━━━━━━━┳━━━━━━━━━━┓
    ┃ Task ┃ Title ┃ Status ┃ Points ┃ Feedback ┃
    ┡━━━━━━╇━━━━━━━╇━━━━━━━━╇━━━━━━━━╇━━━━━━━━━━┩
    └──────┴───────┴────────┴────────┴──────────┘
    0/0 tasks passed, 0/0 points
    """
    console = console or Console()
    console.print(Text(HEADINGS[report.implementation], style="bold"))
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
            Text(result.status.value, style=STATUS_STYLE.get(result.status, "")),
            f"{result.score:g}/{result.max_score:g}",
            Text(result.feedback if verbose else feedback_excerpt(result.feedback)),
        )
    console.print(table)
    for note in report.notes:
        console.print(Text(f"note: {note}", style="yellow"))
    console.print(Text(report.summary(), style="bold green" if report.all_passed else "bold"))


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


def _title(result: TaskResult) -> Text:
    """The task's title, or a dim note when no TODO line declares the task."""
    if result.task.line is None:
        return Text("(no TODO line)", style="dim")
    return Text(result.task.title)

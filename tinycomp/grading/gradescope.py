"""Write a grade report as Gradescope's `results.json`.

Gradescope runs an autograder's `run_autograder` script and reads
`/autograder/results/results.json` (see Gradescope's "Autograder
Specifications"). tinycomp writes one Gradescope test per task:

    {
      "score": 2.0,
      "output": "1/2 tasks passed, 2/3 points",
      "output_format": "text",
      "visibility": "visible",
      "extra_data": {"max_score": 3.0, "implementation": "exercises"},
      "tests": [
        {"name": "Task 00.1: arithmetic intensity and the roofline", "number": "00.1",
         "score": 2.0, "max_score": 2.0, "status": "passed", "output": "passed",
         "visibility": "visible", "extra_data": {"status": "passed", "chapter": "ch00_warmup"}},
        ...
      ]
    }

The specification has no top-level `max_score`; the total lives in the tests'
`max_score` fields, and also in `extra_data` for convenience.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tinycomp.grading.scoring import GradeReport, TaskResult

__all__ = ["gradescope_results", "write_gradescope_results"]


def gradescope_results(report: GradeReport) -> dict[str, Any]:
    """The `results.json` document for `report`, as a dict ready for `json.dump`.

    >>> from tinycomp.grading.scoring import GradeReport
    >>> gradescope_results(GradeReport("exercises", []))["output"]
    '0/0 tasks passed, 0/0 points'
    """
    return {
        "score": float(sum(result.score for result in report.results)),
        "output": "\n".join([report.summary(), *(f"note: {note}" for note in report.notes)]),
        "output_format": "text",
        "visibility": "visible",
        "extra_data": {
            "max_score": float(sum(result.max_score for result in report.results)),
            "implementation": report.implementation,
        },
        "tests": [_gradescope_test(result) for result in report.results],
    }


def write_gradescope_results(report: GradeReport, path: Path) -> None:
    """Write `report` to `path` in Gradescope's `results.json` format."""
    text = json.dumps(gradescope_results(report), indent=2)
    path.write_text(text + "\n", encoding="utf-8")


def _gradescope_test(result: TaskResult) -> dict[str, Any]:
    """One Gradescope test case for one task."""
    title = result.task.title or "(no TODO line)"
    output = result.status.value
    if result.feedback:
        output += "\n\n" + result.feedback
    return {
        "name": f"Task {result.task.id}: {title}",
        "number": result.task.id,
        "score": float(result.score),
        "max_score": float(result.max_score),
        "status": "passed" if result.passed else "failed",
        "output": output,
        "visibility": "visible",
        "extra_data": {"status": result.status.value, "chapter": result.task.chapter},
    }

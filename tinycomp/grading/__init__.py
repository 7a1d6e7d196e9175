"""The grader behind `tinycomp grade`: run the graded tests, score each task, report.

How the pieces fit, in the order they run:

- `tasks`: find the project and its chapters; read the tasks from the stubs'
  `# TODO(Task NN.k): title` lines.
- `loader`: import an exercise file by path (a broken file fails alone).
- `checks`: the helpers graded tests use to say what was expected and found.
- `ir_checks`: the same for IR: compare modules up to SSA names, run them, compare bits.
- `plugin` + `outcomes`: inside pytest, log each test's status and message.
- `collect_errors`: a test file that does not import: its real cause first, then a hint.
- `runner`: run pytest in a subprocess, survive hangs and crashes.
- `scoring`: combine test outcomes into one grade per task.
- `grader`: `grade()`, the whole pipeline as one call.
- `report` and `gradescope`: the terminal table or per-task blocks, and `results.json`.
"""

from tinycomp.grading.checks import (
    GradingFailure,
    describe_call,
    expect_array_close,
    expect_close,
    expect_equal,
    expect_instance,
    expect_text,
)
from tinycomp.grading.grader import grade
from tinycomp.grading.ir_checks import (
    expect_built_module,
    expect_ir,
    expect_same_behaviour,
    expect_verifies,
    random_value,
    run_for_one_result,
    run_function,
    same_bits,
    show_value,
    without_names,
)
from tinycomp.grading.outcomes import Status
from tinycomp.grading.scoring import GradeReport, TaskResult
from tinycomp.grading.tasks import GradingError

__all__ = [
    "GradeReport",
    "GradingError",
    "GradingFailure",
    "Status",
    "TaskResult",
    "describe_call",
    "expect_array_close",
    "expect_built_module",
    "expect_close",
    "expect_equal",
    "expect_instance",
    "expect_ir",
    "expect_same_behaviour",
    "expect_text",
    "expect_verifies",
    "grade",
    "random_value",
    "run_for_one_result",
    "run_function",
    "same_bits",
    "show_value",
    "without_names",
]

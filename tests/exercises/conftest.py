"""Wiring shared by the graded exercise tests.

Each test file here grades one exercise module and is named after it:
`test_ch00_warmup.py` grades `ch00_warmup.py`. Its tests ask for the `impl`
fixture and call the functions under test on it:

    @pytest.mark.task00_1
    def test_matmul_flops(impl):
        expect_equal("matmul_flops(2, 3, 4)", impl.matmul_flops(2, 3, 4), 48)

`impl` is the reference answer (`solutions/`) by default, and the student's
work (`exercises/`) with `--impl=exercises`, which is what `tinycomp grade`
passes. So `pytest tests/exercises` checks the reference answers, and
`pytest tests/exercises --impl=exercises -m task00_1` grades one task.

The task markers (`task00_1`, ...) are registered from the stubs' TODO lines,
so a misspelt marker is an error under `--strict-markers`.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest

from tinycomp.grading.loader import IMPLEMENTATIONS, load_implementation
from tinycomp.grading.tasks import GradingError, discover_chapters

ROOT = Path(__file__).resolve().parents[2]


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add `--impl=solutions|exercises`: which implementation the graded tests run."""
    parser.addoption(
        "--impl",
        choices=IMPLEMENTATIONS,
        default="solutions",
        help="run the graded tests on solutions/ (default) or on exercises/",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register one marker per task, e.g. `task00_1: Task 00.1: arithmetic intensity...`."""
    try:
        tasks = [task for chapter in discover_chapters(ROOT) for task in chapter.tasks()]
    except GradingError as error:
        raise pytest.UsageError(str(error)) from None
    for task in tasks:
        config.addinivalue_line("markers", f"{task.marker}(points=1): Task {task.id}: {task.title}")


@pytest.fixture(scope="module")
def impl(request: pytest.FixtureRequest) -> ModuleType:
    """The module under test: `<impl>/chNN_topic.py` for the test file `test_chNN_topic.py`."""
    chapter = request.path.stem.removeprefix("test_")
    return load_implementation(ROOT, request.config.getoption("impl"), chapter)

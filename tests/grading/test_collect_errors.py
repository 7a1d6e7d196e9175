"""A graded test file that does not import: the real cause comes first, then the hint.

Each test breaks the mini project's test file (see conftest.py) the way a missing
package, a broken helper or a broken student file would, and grades it.
"""

import sys
from pathlib import Path
from textwrap import dedent

from tinycomp.grading.collect_errors import describe_collect_error

TEST_FILE = "tests/exercises/test_ch01_mini.py"
PYTEST_HINT = "Hint: make sure your test modules/packages have valid Python names."


def break_test_file(mini_project, source: str) -> None:
    """Replace the mini project's graded test file with `source` (dedented)."""
    (mini_project.root / TEST_FILE).write_text(dedent(source))


def test_a_missing_package_is_named_first_with_the_line_that_imports_it(mini_project):
    break_test_file(
        mini_project,
        """\
        import pytest

        import tinycomp_no_such_package
        """,
    )
    run = mini_project.grade()
    assert run.exit_code == 1
    feedback = run.feedback("01.1").split("\n\n", 1)[1].splitlines()  # after "error\n\n"
    assert run.status("01.1") == "error"
    assert feedback[:3] == [
        f"{TEST_FILE} could not be collected: "
        "ModuleNotFoundError: No module named 'tinycomp_no_such_package'",
        f"  {TEST_FILE}:3 in <module>",
        "    import tinycomp_no_such_package",
    ]
    assert feedback[3] == (
        f"hint: 'tinycomp_no_such_package' is not installed for {sys.executable}; the lab "
        f"install brings everything the graded tests import: cd {mini_project.root.resolve()} "
        f'&& {sys.executable} -m pip install -e ".[lab]"'
    )
    assert feedback.index(PYTEST_HINT) > 3, "pytest's own report comes after the cause"


def test_the_cause_is_in_the_short_output_and_pytests_hint_only_in_the_verbose_one(mini_project):
    break_test_file(mini_project, "import tinycomp_no_such_package\n")
    short = mini_project.grade().stdout
    assert "ModuleNotFoundError: No module named 'tinycomp_no_such_package'" in short
    assert PYTEST_HINT not in short
    verbose = mini_project.grade("--verbose").stdout
    assert verbose.index("No module named 'tinycomp_no_such_package'") < verbose.index(PYTEST_HINT)


def test_an_exception_in_a_helper_points_at_the_helper(mini_project):
    helper = mini_project.root / "tests" / "exercises" / "mini_shapes.py"
    helper.write_text('"""Shapes for the mini tests."""\n\nSHAPES = []\nFIRST = SHAPES[0]\n')
    break_test_file(mini_project, "from mini_shapes import FIRST\n")
    run = mini_project.grade()
    lines = run.feedback("01.2").split("\n\n", 1)[1].splitlines()
    assert lines[:3] == [
        f"{TEST_FILE} could not be collected: IndexError: list index out of range",
        "  tests/exercises/mini_shapes.py:4 in <module>",
        "    FIRST = SHAPES[0]",
    ]
    assert lines[3] == "pytest's report:", "no install hint for an error that is not ModuleNotFound"


def test_a_student_file_imported_by_the_test_file_is_blamed_first(mini_project):
    mini_project.write_student_file(
        """\
        # TODO(Task 01.1): add two numbers
        RATIO = 1 / 0
        """
    )
    break_test_file(
        mini_project,
        """\
        import sys
        from pathlib import Path

        sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "exercises"))
        import ch01_mini
        """,
    )
    lines = mini_project.grade().feedback("01.1").split("\n\n", 1)[1].splitlines()
    assert lines[:3] == [
        f"{TEST_FILE} could not be collected: ZeroDivisionError: division by zero",
        "  exercises/ch01_mini.py:2 in <module>",
        "    RATIO = 1 / 0",
    ]


def test_a_syntax_error_in_the_test_file_names_its_line(mini_project):
    break_test_file(mini_project, "import pytest\n\ndef test_add(impl:\n    pass\n")
    lines = mini_project.grade().feedback("01.1").split("\n\n", 1)[1].splitlines()
    assert lines[0].startswith(f"{TEST_FILE} could not be collected: SyntaxError: ")
    assert lines[1:3] == [f"  {TEST_FILE}:3", "    def test_add(impl:"]


def test_without_the_exception_the_cause_is_read_from_pytests_text():
    report = f"""\
ImportError while importing test module '/p/{TEST_FILE}'.
{PYTEST_HINT}
Traceback:
{TEST_FILE}:3: in <module>
    import tinycomp_no_such_package
E   ModuleNotFoundError: No module named 'tinycomp_no_such_package'
"""
    lines = describe_collect_error(None, Path("/p"), report).splitlines()
    assert lines[0] == "ModuleNotFoundError: No module named 'tinycomp_no_such_package'"
    assert lines[1] == "pytest's report:"
    assert lines[2:] == report.strip().splitlines()

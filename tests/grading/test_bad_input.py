"""Grading broken student code: every case gets a clear line, and nothing crashes.

Each test writes one student file into a mini project (see conftest.py) and grades it.
"""

import signal
from pathlib import Path

import pytest

from tinycomp.grading import Status, grade


def test_the_untouched_stub_is_not_started(mini_project):
    run = mini_project.grade()
    assert run.exit_code == 1
    assert [run.status(task) for task in ("01.1", "01.2", "01.3")] == ["not started"] * 3
    assert "still a stub: Task 01.2: return the product" in run.feedback("01.2")
    assert "0/3 tasks passed, 0/4 points" in run.stdout


def test_finished_work_passes(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a + b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return factor * x


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            return sum(values) / len(values)
        """
    )
    run = mini_project.grade()
    assert run.exit_code == 0
    assert "3/3 tasks passed, 4/4 points" in run.stdout
    # a passing test may leave a note (a measured speed, say): it is shown, not graded
    assert run.feedback("01.1") == "passed\n\na note for the student (not graded)"
    assert run.feedback("01.2") == "passed"
    assert "a note for the student (not graded)" in run.stdout


def test_a_wrong_answer_says_what_was_expected(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a - b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return x * factor


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            raise NotImplementedError("Task 01.3: return the arithmetic mean")
        """
    )
    run = mini_project.grade()
    assert run.exit_code == 1
    assert (run.status("01.1"), run.status("01.2"), run.status("01.3")) == (
        "failed",
        "passed",
        "not started",
    )
    assert "add(2, 3): expected 5, found -1" in run.feedback("01.1")
    assert "add(2, 3): expected 5, found -1" in run.stdout
    assert "1/3 tasks passed, 2/4 points" in run.stdout


def test_a_syntax_error_names_the_file_and_line(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return (a + b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return x * factor


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            return sum(values) / len(values)
        """
    )
    run = mini_project.grade()
    assert run.exit_code == 1
    for task in ("01.1", "01.2", "01.3"):
        assert run.status(task) == "error"
        assert "exercises/ch01_mini.py:3: SyntaxError" in run.feedback(task)
    assert "exercises/ch01_mini.py:3: SyntaxError" in run.stdout
    assert "Traceback" not in run.stdout + run.stderr


def test_an_import_error_names_the_file_and_line(mini_project):
    mini_project.write_student_file(
        """\
        import numpyy


        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a + b
        """
    )
    run = mini_project.grade()
    assert run.status("01.1") == "error"
    assert "exercises/ch01_mini.py:1: while importing: ModuleNotFoundError" in run.feedback("01.1")


def test_an_exception_points_at_the_students_line(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a + b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return x * factor


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            return sum(values) / (len(values) - 1)
        """
    )
    run = mini_project.grade()
    assert run.exit_code == 1
    assert run.status("01.3") == "error"
    feedback = run.feedback("01.3")
    assert "ZeroDivisionError: division by zero" in feedback
    assert "exercises/ch01_mini.py:13 in mean" in feedback
    assert "return sum(values) / (len(values) - 1)" in feedback
    assert run.status("01.1") == run.status("01.2") == "passed"


def test_an_endless_loop_times_out_and_the_other_tasks_still_run(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a + b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            while True:
                pass


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            return sum(values)
        """
    )
    run = mini_project.grade("--timeout", "2")
    assert run.exit_code == 1
    assert run.status("01.2") == "timed out"
    assert "timed out after 2 s" in run.feedback("01.2")
    assert "exercises/ch01_mini.py:8 in scale" in run.feedback("01.2")
    assert run.status("01.1") == "passed"
    assert run.status("01.3") == "failed"


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="needs POSIX signal masks")
def test_a_loop_that_blocks_the_timeout_signal_is_killed(mini_project):
    mini_project.write_student_file(
        """\
        import signal


        def add(a, b):
            # TODO(Task 01.1): add two numbers
            signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGALRM])
            while True:
                pass


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return x * factor
        """
    )
    report = grade(root=mini_project.root, timeout=1, grace=1)
    results = {result.task.id: result for result in report.results}
    assert results["01.1"].status is Status.TIMED_OUT
    assert "the grader stopped the test process" in results["01.1"].feedback
    assert results["01.2"].status is Status.PASSED


def test_a_crashing_process_fails_one_task_only(mini_project):
    mini_project.write_student_file(
        """\
        import os


        def add(a, b):
            # TODO(Task 01.1): add two numbers
            os._exit(3)


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            return x * factor
        """
    )
    run = mini_project.grade()
    assert run.status("01.1") == "error"
    assert "the test process exited (status 3)" in run.feedback("01.1")
    assert run.status("01.2") == "passed"


def test_a_deleted_todo_line_still_grades_the_task(mini_project):
    # The project's own pytest options must not matter: --strict-markers would reject the
    # marker of a task whose TODO line is gone.
    pyproject = '[tool.pytest.ini_options]\naddopts = ["--strict-markers"]\n'
    (mini_project.root / "pyproject.toml").write_text(pyproject)
    mini_project.write_student_file(
        """\
        def add(a, b):
            return a + b
        """
    )
    run = mini_project.grade("ch01")
    assert run.status("01.1") == "passed"
    assert run.status("01.2") == "error"  # scale() is gone: AttributeError
    assert "has no '# TODO(Task 01.1): ...' line" in run.stdout


def test_a_missing_student_file_is_reported(mini_project):
    (mini_project.root / "exercises" / "ch01_mini.py").unlink()
    run = mini_project.grade()
    assert run.status("01.1") == "error"
    assert "exercises/ch01_mini.py: file not found" in run.feedback("01.1")


def test_a_broken_test_file_is_reported(mini_project):
    test_file = mini_project.root / "tests" / "exercises" / "test_ch01_mini.py"
    test_file.write_text("import not_a_module\n")
    run = mini_project.grade()
    assert run.status("01.1") == "error"
    assert "could not be collected" in run.feedback("01.1")
    assert "not_a_module" in run.feedback("01.1")


def test_a_chapter_with_no_task_left_says_why(mini_project):
    mini_project.write_student_file("def add(a, b):\n    return a + b\n")
    test_file = mini_project.root / "tests" / "exercises" / "test_ch01_mini.py"
    test_file.write_text("import not_a_module\n")
    run = mini_project.grade()
    assert run.exit_code == 1
    assert run.results["tests"] == []
    assert "note: ch01_mini: no tasks to grade; tests/exercises/test_ch01_mini.py could not" in (
        run.stdout
    )


def test_a_malformed_todo_line_is_named(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1) done!
            return a + b
        """
    )
    run = mini_project.grade()
    assert run.exit_code == 2
    assert "exercises/ch01_mini.py:2: malformed TODO line '# TODO(Task 01.1) done!'" in run.stderr


def test_an_unknown_chapter_lists_the_chapters(mini_project):
    run = mini_project.grade("ch99")
    assert run.exit_code == 2
    assert "no chapter 'ch99'; chapters with exercises: ch01_mini" in run.stderr
    assert "Traceback" not in run.stderr
    assert run.results is None


def test_a_folder_that_is_not_a_project_is_refused(tinycomp, tmp_path: Path):
    run = tinycomp("grade", "--root", tmp_path)
    assert run.exit_code == 2
    assert "is not a tinycomp project: it needs exercises/, solutions/" in run.stderr

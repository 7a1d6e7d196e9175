"""results.json follows Gradescope's format (see gradescope_schema.py)."""

import pytest
from gradescope_schema import RESULTS_SCHEMA, check_schema, validate

GOOD = {
    "score": 2.0,
    "output": "1/2 tasks passed",
    "tests": [
        {"name": "Task 01.1", "score": 2.0, "max_score": 2.0, "status": "passed"},
        {"name": "Task 01.2", "score": 0.0, "max_score": 1.0, "visibility": "visible"},
    ],
}
BAD = [
    {"score": "2"},  # not a number
    {"score": 1.0, "tests": [{"name": "x", "status": "ok"}]},  # no such status
    {"score": 1.0, "tests": [{"name": "x", "visibility": "public"}]},  # no such visibility
    {"score": 1.0, "max_scor": 2.0},  # a typo
    {"tests": [{"name": "x", "max_score": 1.0}]},  # no score anywhere
    {"score": True},  # a bool is not a number
]


def test_the_schema_accepts_the_specifications_example():
    assert validate(GOOD) == []
    assert check_schema(GOOD, RESULTS_SCHEMA) == []


@pytest.mark.parametrize("document", BAD)
def test_the_schema_rejects_what_the_specification_forbids(document):
    assert validate(document) != []
    assert check_schema(document, RESULTS_SCHEMA) != []


def test_results_of_a_partly_done_project(mini_project):
    mini_project.write_student_file(
        """\
        def add(a, b):
            # TODO(Task 01.1): add two numbers
            return a + b


        def scale(x, factor):
            # TODO(Task 01.2): scale a number
            raise NotImplementedError("Task 01.2: return the product")


        def mean(values):
            # TODO(Task 01.3): the mean of a list
            return sum(values)
        """
    )
    results = mini_project.grade().results
    assert validate(results) == []
    assert results["score"] == 1.0
    assert results["extra_data"]["max_score"] == 4.0
    assert results["output"].startswith("1/3 tasks passed, 1/4 points")
    first, second, third = results["tests"]
    assert first == {
        "name": "Task 01.1: add two numbers",
        "number": "01.1",
        "score": 1.0,
        "max_score": 1.0,
        "status": "passed",
        "output": "passed\n\na note for the student (not graded)",  # a passing test's note
        "visibility": "visible",
        "extra_data": {"status": "passed", "chapter": "ch01_mini"},
    }
    assert (second["status"], second["max_score"]) == ("failed", 2.0)  # points=2 on the marker
    assert second["output"].startswith("not started\n\nstill a stub: Task 01.2")
    assert third["output"].startswith("failed\n\nmean([1, 2, 3]): expected 2, found 6")


def test_results_of_the_solutions(mini_project):
    results = mini_project.grade("--solutions").results
    assert validate(results) == []
    assert results["score"] == 4.0
    assert all(test["status"] == "passed" for test in results["tests"])


def test_an_unwritable_results_path_is_a_clear_error(mini_project, tinycomp):
    missing = mini_project.root / "no" / "such" / "folder" / "results.json"
    run = tinycomp("grade", "--solutions", "--root", mini_project.root, "--json", missing)
    assert run.exit_code == 2
    assert "cannot write" in run.stderr

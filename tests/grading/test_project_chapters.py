"""CI's proof that the grader can fail: for every chapter of this project,
every task passes on `solutions/` and none passes on the untouched stubs.

The grader runs once on each implementation (module-scoped fixtures); each
chapter is then checked as its own test case.
"""

import subprocess
import sys
from pathlib import Path

import pytest

from tinycomp.grading.tasks import discover_chapters

ROOT = Path(__file__).resolve().parents[2]
CHAPTERS = discover_chapters(ROOT)


@pytest.fixture(scope="module")
def on_solutions(tinycomp, tmp_path_factory):
    """`tinycomp grade --solutions` on the whole project."""
    json_path = tmp_path_factory.mktemp("solutions") / "results.json"
    return tinycomp("grade", "--solutions", "--root", ROOT, json_path=json_path)


@pytest.fixture(scope="module")
def on_stubs(tinycomp, tmp_path_factory):
    """`tinycomp grade` on the whole project, whose exercises/ hold the untouched stubs."""
    json_path = tmp_path_factory.mktemp("stubs") / "results.json"
    return tinycomp("grade", "--root", ROOT, json_path=json_path)


def results_of_chapter(run, chapter):
    """The results.json entries of one chapter's tasks."""
    return [test for test in run.results["tests"] if test["extra_data"]["chapter"] == chapter.name]


def test_the_project_has_chapters():
    assert CHAPTERS, "no exercises/chNN_topic.py found"


def test_every_task_passes_on_the_solutions(on_solutions):
    assert on_solutions.exit_code == 0, on_solutions.stdout


def test_the_untouched_stubs_fail(on_stubs):
    assert on_stubs.exit_code == 1, on_stubs.stdout
    assert on_stubs.results["score"] == 0


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda chapter: chapter.name)
def test_chapter_passes_on_its_solutions(chapter, on_solutions):
    declared = {task.id for task in chapter.tasks()}
    tests = results_of_chapter(on_solutions, chapter)
    assert declared, f"exercises/{chapter.name}.py declares no '# TODO(Task NN.k): ...' task"
    assert {test["number"] for test in tests} == declared, "a test marks a task no TODO declares"
    for test in tests:
        assert test["status"] == "passed", f"{test['name']}: {test['output']}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda chapter: chapter.name)
def test_chapter_is_not_started_on_its_stubs(chapter, on_stubs):
    for test in results_of_chapter(on_stubs, chapter):
        assert test["extra_data"]["status"] == "not started", f"{test['name']}: {test['output']}"
        assert test["score"] == 0


def test_every_task_marker_is_registered():
    """A misspelt task marker in tests/exercises/ fails collection under --strict-markers."""
    command = [sys.executable, "-m", "pytest", "tests/exercises", "--collect-only", "-q"]
    command += ["-o", "addopts=", "--strict-markers", "-p", "no:cacheprovider"]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr

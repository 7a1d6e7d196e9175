"""Tasks come from the stubs' TODO lines; chapters and the project root are found on disk."""

from pathlib import Path

import pytest

from tinycomp.grading.tasks import (
    Chapter,
    GradingError,
    Task,
    discover_chapters,
    find_project_root,
    marker_to_task_id,
    parse_tasks,
    select_chapters,
)

ROOT = Path(__file__).resolve().parents[2]

STUB = """\
def f():
    # TODO(Task 04.10): the tenth task
    raise NotImplementedError("Task 04.10: ...")


def g():
    # TODO(Task 04.2): fuse an elementwise producer
    raise NotImplementedError("Task 04.2: ...")


def h():
    # TODO(Task 04.2): a second function of the same task
    raise NotImplementedError("Task 04.2: ...")
"""


def test_tasks_are_read_from_todo_lines_in_numeric_order():
    tasks = parse_tasks(STUB, "ch04_fusion")
    assert [(task.id, task.title, task.line) for task in tasks] == [
        ("04.2", "fuse an elementwise producer", 7),
        ("04.10", "the tenth task", 2),
    ]
    assert [task.marker for task in tasks] == ["task04_2", "task04_10"]


@pytest.mark.parametrize(
    "line", ["# TODO(Task 4.1): short number", "# TODO(Task 04.1) no colon", "# TODO(Task 04.1):"]
)
def test_a_malformed_todo_line_is_an_error(line):
    with pytest.raises(GradingError, match="exercises/ch04_fusion.py:1: malformed TODO line"):
        parse_tasks(line, "ch04_fusion")


def test_a_task_of_another_chapter_is_an_error():
    with pytest.raises(GradingError, match="Task 05.1 does not belong to chapter ch04_fusion"):
        parse_tasks("# TODO(Task 05.1): misplaced", "ch04_fusion")


def test_other_todo_comments_are_ignored():
    assert parse_tasks("# TODO: tidy this up\n# TODO(perf): later\n", "ch04_fusion") == []


def test_marker_names_map_back_to_task_ids():
    assert marker_to_task_id("task04_10") == "04.10"
    assert marker_to_task_id("task4_1") is None
    assert marker_to_task_id("parametrize") is None


def test_chapters_are_found_from_stubs_and_test_files(tmp_path):
    for folder in ("exercises", "solutions", "tests/exercises"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "exercises" / "ch02_affine.py").write_text("")
    (tmp_path / "exercises" / "helpers.py").write_text("")  # not a chapter
    (tmp_path / "tests" / "exercises" / "test_ch01_ir.py").write_text("")
    chapters = discover_chapters(tmp_path)
    assert [chapter.name for chapter in chapters] == ["ch01_ir", "ch02_affine"]
    assert chapters[0].tasks() == []  # its stub is missing


def test_chapters_are_selected_by_any_usual_spelling():
    chapters = [Chapter(ROOT, "ch00_warmup"), Chapter(ROOT, "ch01_ir")]
    for spelling in ("ch01", "ch01_ir", "01", "1"):
        assert select_chapters(chapters, [spelling]) == [chapters[1]]
    assert select_chapters(chapters, []) == chapters
    assert select_chapters(chapters, ["ch01", "ch00", "ch01"]) == [chapters[1], chapters[0]]


def test_an_unknown_chapter_names_the_existing_ones():
    chapters = [Chapter(ROOT, "ch00_warmup")]
    with pytest.raises(GradingError) as caught:
        select_chapters(chapters, ["ch99"])
    assert str(caught.value) == "no chapter 'ch99'; chapters with exercises: ch00_warmup"


def test_the_project_root_is_found_from_any_folder_inside_it():
    assert find_project_root(ROOT / "tests" / "grading") == ROOT
    assert find_project_root(ROOT) == ROOT


def test_outside_any_project_the_package_checkout_is_used(tmp_path):
    assert find_project_root(tmp_path) == ROOT  # this package is installed from ROOT


def test_chapter_paths():
    chapter = Chapter(ROOT, "ch00_warmup")
    assert chapter.short == "ch00"
    assert chapter.stub_path == ROOT / "exercises" / "ch00_warmup.py"
    assert chapter.solution_path == ROOT / "solutions" / "ch00_warmup.py"
    assert chapter.test_path == ROOT / "tests" / "exercises" / "test_ch00_warmup.py"
    assert Task("00.1", "t", "ch00_warmup").sort_key == (0, 1)

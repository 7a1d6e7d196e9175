"""Load an exercise module by its file path, so that a broken file fails alone.

Graded tests never `import exercises.ch00_warmup` at the top of a test file: a
syntax error there would stop pytest from collecting anything at all. Instead
the `impl` fixture calls `load_implementation`, and a file that does not
import becomes a `StudentCodeError` that names the file and line:

    exercises/ch00_warmup.py:14: SyntaxError: invalid syntax
        return 2 * m * n * k)
                            ^
"""

from __future__ import annotations

import importlib.util
import sys
import traceback
from pathlib import Path
from types import ModuleType

__all__ = ["IMPLEMENTATIONS", "StudentCodeError", "load_implementation", "relative_to_root"]

IMPLEMENTATIONS = ("solutions", "exercises")
"""The folders a graded test can take its implementation from."""


class StudentCodeError(Exception):
    """An exercise file could not be imported; the message says where and why."""


def load_implementation(root: Path, implementation: str, chapter: str) -> ModuleType:
    """Import `<root>/<implementation>/<chapter>.py` as the module `<implementation>.<chapter>`.

    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "solutions").mkdir()
    >>> _ = (root / "solutions" / "ch00_demo.py").write_text("def twice(x):\\n    return 2 * x\\n")
    >>> load_implementation(root, "solutions", "ch00_demo").twice(21)
    42
    """
    if implementation not in IMPLEMENTATIONS:
        raise ValueError(f"implementation must be one of {IMPLEMENTATIONS}, not {implementation!r}")
    path = root / implementation / f"{chapter}.py"
    shown = relative_to_root(path, root)
    if not path.is_file():
        raise StudentCodeError(f"{shown}: file not found")
    name = f"{implementation}.{chapter}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickle look the module up by name
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[name]
        raise StudentCodeError(_describe_syntax_error(error, shown)) from None
    except (Exception, SystemExit) as error:
        del sys.modules[name]
        raise StudentCodeError(_describe_import_error(error, path, shown)) from error
    return module


def relative_to_root(path: Path | str, root: Path) -> str:
    """Show `path` relative to the project root when it lies inside it.

    >>> relative_to_root("/project/exercises/ch00_warmup.py", Path("/project"))
    'exercises/ch00_warmup.py'
    """
    try:
        return Path(path).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return str(path)


def _describe_syntax_error(error: SyntaxError, shown: str) -> str:
    """`file:line: SyntaxError: message`, then the line with a caret under the column."""
    message = f"{shown}:{error.lineno}: {type(error).__name__}: {error.msg}"
    if error.text:
        line = error.text.rstrip("\n")
        stripped = line.lstrip()
        caret = max((error.offset or 1) - 1 - (len(line) - len(stripped)), 0)
        message += f"\n    {stripped}\n    {' ' * caret}^"
    return message


def _describe_import_error(error: BaseException, path: Path, shown: str) -> str:
    """`file:line: while importing: Type: message`, at the deepest line of `path` involved."""
    frames = traceback.extract_tb(error.__traceback__)
    lines = [frame.lineno for frame in frames if Path(frame.filename) == path]
    where = f"{shown}:{lines[-1]}" if lines else shown
    return f"{where}: while importing: {type(error).__name__}: {error}"

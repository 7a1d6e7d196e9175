"""Keep the library's own answer out of a student's code while a graded test runs.

Many tasks re-implement a piece of tinycomp (a rewrite pattern, a cost model, a fusion
rule). Calling the library's version would pass every behavioural check without the
student writing anything, so the graded tests run the student's code under one of these
guards:

1. :func:`library_calls_refused` watches every Python call (a profile hook) and, when
   the block ends, fails if the student's code reached one of the forbidden functions,
   however it got there: an import, an alias, a default argument, a method of a
   library object. The student's code runs to the end, so other feedback comes first.
2. :func:`library_replaced` (functions given as objects) and
   :func:`library_answers_blocked` (functions given as ``"module:name"`` paths) go
   further: inside the block the forbidden functions are replaced, wherever the
   library or the student's module holds them, by stand-ins that record the call and
   raise, so the library's answer cannot even be computed. A recorded call fails the
   test when the block ends, even if the student's code caught the exception.

Both raise :class:`~tinycomp.grading.checks.GradingFailure`, which the grader shows as
the task's feedback.

>>> def library_answer(x):
...     return 2 * x
>>> with library_calls_refused({"library_answer": library_answer}, "calls {called}"):
...     library_answer(1)
Traceback (most recent call last):
...
tinycomp.grading.checks.GradingFailure: calls library_answer
"""

from __future__ import annotations

import importlib
import sys
import traceback
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import pytest

from tinycomp.grading.checks import GradingFailure

__all__ = [
    "LibraryAnswer",
    "library_answers_blocked",
    "library_calls_refused",
    "library_replaced",
    "student_line",
]

Forbidden = Mapping[str, Callable[..., Any]]
"""A name for the feedback -> the library function the student may not call."""
Replaced = Mapping[str, "Callable[..., Any] | tuple[type, str]"]
"""A name for the feedback -> a function, or a method given as ``(class, name)``."""


@contextmanager
def library_calls_refused(forbidden: Forbidden, message: str) -> Iterator[None]:
    """Run the block watching every call; afterwards fail with ``message`` (which may use
    ``{called}``, the name of the first forbidden function reached) if one was reached.

    >>> def answer():
    ...     return 42
    >>> with library_calls_refused({"answer": answer}, "no {called}"):
    ...     six = 6 * 7
    >>> six
    42
    """
    codes = {function.__code__: name for name, function in forbidden.items()}
    reached: list[str] = []

    def watch(frame: FrameType, event: str, arg: object) -> None:
        if event == "call" and frame.f_code in codes:
            reached.append(codes[frame.f_code])

    previous = sys.getprofile()
    sys.setprofile(watch)
    try:
        yield
    finally:
        sys.setprofile(previous)
    if reached:
        raise GradingFailure(message.format(called=reached[0]))


@contextmanager
def library_replaced(what: str, impl: ModuleType, task: str, targets: Replaced) -> Iterator[None]:
    """Make the library's own answer to ``task`` refuse to run inside the block.

    ``what`` names the student's function in the feedback, ``impl`` is the student's
    module, ``targets`` the library functions (or ``(class, method)`` pairs) to refuse.

    >>> import types
    >>> student = types.ModuleType("student")
    >>> student.__file__ = "exercises/chXX.py"
    >>> def answer():
    ...     return 42
    >>> student.answer = answer
    >>> refused = {"answer": answer}
    >>> with library_replaced("solve()", student, "Task 0.1", refused):  # doctest: +ELLIPSIS
    ...     try:
    ...         student.answer()
    ...     except GradingFailure:
    ...         pass
    Traceback (most recent call last):
    ...
    tinycomp.grading.checks.GradingFailure: solve(): your code called the library's answer, ...
    """
    calls: list[str] = []

    def refusal(label: str) -> Callable[..., Any]:
        def refuse(*args: object, **kwargs: object) -> Any:
            calls.append(label + student_line(impl))
            raise GradingFailure(f"{what} called the library's {label}")

        return refuse

    with pytest.MonkeyPatch.context() as patch:
        for label, target in targets.items():
            if isinstance(target, tuple):
                owner, name = target
                original = owner.__dict__.get(name, getattr(owner, name))
                patch.setattr(owner, name, refusal(label))
            else:
                original = target
                _replace_in_library(patch, original, refusal(label))
            _replace_in_student(patch, impl, original, refusal(label))
        try:
            yield
        finally:
            if calls:
                raise GradingFailure(
                    f"{what}: your code called the library's {calls[0]}, which is the answer "
                    f"to {task}; write it yourself from the building blocks the exercise file "
                    "imports"
                ) from None


def student_line(impl: ModuleType, error: BaseException | None = None) -> str:
    """`` (at exercises/chNN.py:LINE: source)``: the student's innermost line on the
    stack, or in the traceback of ``error``; empty when the student's file is not there.

    >>> import types
    >>> student_line(types.ModuleType("nowhere"))
    ''
    """
    file = getattr(impl, "__file__", None)
    if error is None:
        frames = traceback.extract_stack()
    else:
        frames = traceback.extract_tb(error.__traceback__)
    mine = [frame for frame in frames if file is not None and frame.filename == file]
    if not mine:
        return ""
    frame = mine[-1]
    where = f"{Path(frame.filename).parent.name}/{Path(frame.filename).name}:{frame.lineno}"
    return f" (at {where}: {(frame.line or '').strip()})"


def _replace_in_library(
    patch: pytest.MonkeyPatch, original: object, stand_in: Callable[..., Any]
) -> None:
    """Every name a ``tinycomp`` module binds to ``original`` now means ``stand_in``."""
    for module in list(sys.modules.values()):
        if not getattr(module, "__name__", "").startswith("tinycomp"):
            continue
        for key, value in list(getattr(module, "__dict__", {}).items()):
            if value is original:
                patch.setattr(module, key, stand_in)


def _replace_in_student(
    patch: pytest.MonkeyPatch,
    impl: ModuleType,
    original: object,
    stand_in: Callable[..., Any],
) -> None:
    """The student's own names for ``original`` (module globals and class members)."""
    for key, value in list(vars(impl).items()):
        if value is original:
            patch.setattr(impl, key, stand_in)
        elif isinstance(value, type) and value.__module__ == impl.__name__:
            for attribute, member in list(vars(value).items()):
                if member is original:
                    patch.setattr(value, attribute, stand_in)


class LibraryAnswer(GradingFailure):
    """The student's code called the library's own implementation of the task."""


@contextmanager
def library_answers_blocked(
    impl: ModuleType, what: str, answers: Mapping[str, str]
) -> Iterator[None]:
    """Run the student's code with the library's answers to a task blocked.

    ``answers`` maps ``"module:name"`` (or ``"module:Class.method"``) to what it is;
    while the block runs, calling any of them, however it was imported, records the call
    and raises :class:`LibraryAnswer`. A call the student's code swallowed still fails
    the test when the block ends.

    >>> import types
    >>> student = types.ModuleType("student")
    >>> from tinycomp.grading import formatting
    >>> answers = {"tinycomp.grading.formatting:format_number": "the answer"}
    >>> with library_answers_blocked(student, "solve()", answers):  # doctest: +ELLIPSIS
    ...     formatting.format_number(2.5)
    Traceback (most recent call last):
    ...
    tinycomp.grading.library_calls.LibraryAnswer: solve() called tinycomp.grading.formatting...
    """
    calls: list[str] = []
    saved: list[tuple[object, str, object]] = []
    for path, meaning in answers.items():
        owner, name = _resolve(path)
        target = getattr(owner, name)
        places = [(owner, name)] if isinstance(owner, type) else _holders(target, impl)

        def blocked(*args: object, _path: str = path, _meaning: str = meaning, **kwargs: object):
            calls.append(f"{_path.replace(':', '.')} ({_meaning})")
            raise LibraryAnswer(_library_message(what, calls))

        for place, attribute in places:
            saved.append((place, attribute, getattr(place, attribute)))
            setattr(place, attribute, blocked)
    try:
        yield
    except LibraryAnswer:
        raise
    except BaseException:
        if calls:
            raise LibraryAnswer(_library_message(what, calls)) from None
        raise
    finally:
        for place, attribute, value in reversed(saved):
            setattr(place, attribute, value)
    if calls:
        raise LibraryAnswer(_library_message(what, calls))


def _library_message(what: str, calls: list[str]) -> str:
    return (
        f"{what} called {calls[0]}: that is the library's own answer to this task, not a "
        "building block; the task asks you to compute it yourself"
    )


def _resolve(path: str) -> tuple[object, str]:
    """``"pkg.module:Name.attr"`` -> (the object holding ``attr``, ``"attr"``)."""
    module_name, _, qualified = path.partition(":")
    owner: object = importlib.import_module(module_name)
    *outer, name = qualified.split(".")
    for part in outer:
        owner = getattr(owner, part)
    return owner, name


def _holders(target: object, impl: ModuleType) -> list[tuple[object, str]]:
    """Every tinycomp module (and the student's) whose global ``name`` is ``target``."""
    found = []
    modules = [m for n, m in list(sys.modules.items()) if n.split(".")[0] == "tinycomp"]
    for module in [*modules, impl]:
        for name, value in list(vars(module).items()):
            if value is target:
                found.append((module, name))
    return found

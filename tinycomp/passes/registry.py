"""The pass registry: which pass class a name in a pipeline means.

``PassManager.parse("canonicalize,cse")`` looks each name up here. The built-in passes
are registered at the bottom of this module; register your own with
``register_pass(MyPass)`` (its ``name`` class attribute is the key).

>>> {"canonicalize", "cse", "dce"} <= set(registered_passes())
True
>>> lookup_pass("cse").__name__
'CSEPass'
>>> try:
...     lookup_pass("cannonicalize")
... except PassError as error:
...     print(error)  # doctest: +ELLIPSIS
unknown pass 'cannonicalize' (did you mean 'canonicalize'?); known passes: ...cse...
"""

from __future__ import annotations

import difflib

from tinycomp.passes.canonicalize.canonicalizer import CanonicalizePass
from tinycomp.passes.cse import CSEPass
from tinycomp.passes.dce import DCEPass
from tinycomp.passes.errors import PassError
from tinycomp.passes.licm import LoopInvariantCodeMotionPass
from tinycomp.passes.pass_base import Pass

__all__ = ["lookup_pass", "register_pass", "registered_passes"]

_PASSES: dict[str, type[Pass]] = {}


def register_pass(pass_class: type[Pass]) -> type[Pass]:
    """Make ``pass_class`` available to pipelines under ``pass_class.name``.

    Registering the same class twice is harmless; another class under a taken name is
    an error.
    """
    name = pass_class.name
    if not name:
        raise PassError(f"pass class {pass_class.__name__} has no 'name'")
    existing = _PASSES.get(name)
    if existing is not None and existing is not pass_class:
        raise PassError(f"pass name '{name}' is already registered by {existing.__name__}")
    _PASSES[name] = pass_class
    return pass_class


def lookup_pass(name: str) -> type[Pass]:
    """The pass class registered as ``name``; a ``PassError`` listing the known passes
    (and the closest name) when there is none."""
    pass_class = _PASSES.get(name)
    if pass_class is not None:
        return pass_class
    known = sorted(_PASSES)
    close = difflib.get_close_matches(name, known, n=1)
    hint = f" (did you mean '{close[0]}'?)" if close else ""
    raise PassError(f"unknown pass '{name}'{hint}; known passes: {', '.join(known)}")


def registered_passes() -> dict[str, type[Pass]]:
    """All registered passes by name (a copy)."""
    return dict(_PASSES)


register_pass(CanonicalizePass)
register_pass(CSEPass)
register_pass(DCEPass)
register_pass(LoopInvariantCodeMotionPass)

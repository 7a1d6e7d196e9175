"""Comparing IR texts up to alias names: ``#map3`` in one text may be ``#map1`` in the next.

MLIR (and tinycomp's printer, :mod:`tinycomp.ir.aliases`) numbers the aliases of a module
in the order they first appear: ``#map``, ``#map1``... So when a pass removes the first
op that used ``#map``, every later alias is renumbered, and a plain line diff reports
every line that names one as changed, though nothing they mean changed. A diff that
reads well compares the lines with each alias replaced by what it stands for.

1. Find the alias definitions of a text: top-level lines ``#name = ...`` (attribute
   aliases) and ``!name = ...`` (type aliases).
2. In every line, replace each use of a defined alias by its definition, and a
   definition line's own name by a placeholder: two lines compare equal exactly when
   they say the same thing with other alias names.
3. Pair the aliases of two texts that have the same definition but different names:
   those are the renames a reader should be told about.

>>> before = ["#map = affine_map<(d0) -> ()>", "#map1 = affine_map<(d0) -> (d0)>", "x = #map1"]
>>> after = ["#map = affine_map<(d0) -> (d0)>", "x = #map"]
>>> comparable_lines(before)[2] == comparable_lines(after)[1]
True
>>> renamed_aliases(before, after)
[('#map1', '#map')]
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["alias_definitions", "comparable_lines", "renamed_aliases"]

_DEFINITION = re.compile(r"^([#!][A-Za-z_][\w$.]*)\s*=\s*(.*?)\s*$")


def alias_definitions(lines: Sequence[str]) -> dict[str, str]:
    """Step 1: each alias defined in ``lines`` (``"#map1"``) and what it stands for.

    >>> alias_definitions(["#map = affine_map<() -> ()>", "  %0 = x"])
    {'#map': 'affine_map<() -> ()>'}
    """
    definitions = {}
    for line in lines:
        match = _DEFINITION.match(line)
        if match is not None:
            definitions[match.group(1)] = match.group(2)
    return definitions


def comparable_lines(lines: Sequence[str]) -> list[str]:
    """Step 2: ``lines`` with alias uses spelled out and definitions' names blanked.

    >>> comparable_lines(["#map2 = affine_map<(d0) -> (d0)>", "  {maps = [#map2]}"])
    ['#? = affine_map<(d0) -> (d0)>', '  {maps = [affine_map<(d0) -> (d0)>]}']
    """
    definitions = alias_definitions(lines)
    if not definitions:
        return list(lines)
    names = sorted(definitions, key=len, reverse=True)  # #map10 before #map1
    use = re.compile("(?<![\\w$.#!])(" + "|".join(map(re.escape, names)) + ")(?![\\w$.])")
    comparable = []
    for line in lines:
        match = _DEFINITION.match(line)
        if match is not None and match.group(1) in definitions:
            line = f"{match.group(1)[0]}? = {match.group(2)}"
        comparable.append(use.sub(lambda found: definitions[found.group(1)], line))
    return comparable


def renamed_aliases(before: Sequence[str], after: Sequence[str]) -> list[tuple[str, str]]:
    """Step 3: ``(old name, new name)`` for each alias that kept its definition but not
    its name, in the order of the old definitions.

    >>> renamed_aliases(["#map = affine_map<() -> ()>"], ["#map = affine_map<() -> ()>"])
    []
    """
    new_names = {}
    for name, definition in alias_definitions(after).items():
        new_names.setdefault((name[0], definition), name)
    renamed = []
    for name, definition in alias_definitions(before).items():
        new_name = new_names.get((name[0], definition))
        if new_name is not None and new_name != name:
            renamed.append((name, new_name))
    return renamed

"""Attribute aliases: ``#map = affine_map<...>`` once at the top, ``#map`` where used.

MLIR prints every distinct affine map and integer set of a module once, before the
module, and refers to it by an alias: ``#map``, ``#map1``, ``#map2``... and ``#set``,
``#set1``... numbered in the order they first appear in the printed text. tinycomp does
the same as the last step of printing a module:

1. Scan the printed text (skipping string literals) for ``affine_map<`` and
   ``affine_set<``, find the end of each body by counting brackets (``->`` and ``>=``
   are not brackets), and give each distinct text the next free alias of its kind.
2. Replace every occurrence by its alias.
3. Put the definitions on top, maps first and then sets, each group by number.

>>> body = '"t.op"() {m = affine_map<(d0) -> (d0)>, n = affine_map<(d0) -> (d0)>} : () -> ()'
>>> print(add_aliases("module {\\n  " + body + "\\n}"))
#map = affine_map<(d0) -> (d0)>
module {
  "t.op"() {m = #map, n = #map} : () -> ()
}
"""

from __future__ import annotations

import re

_KINDS = {"affine_map<": "map", "affine_set<": "set"}
_CANDIDATE = re.compile(r'"(?:[^"\\\n]|\\.)*"|(?<![\w$.])affine_(?:map|set)<')


def add_aliases(text: str) -> str:
    """``text`` with affine maps and integer sets replaced by aliases defined on top."""
    aliases: dict[str, str] = {}  # full attribute text -> alias
    counts = {"map": 0, "set": 0}
    pieces: list[str] = []
    pos = 0
    start = _next_candidate(text, 0)
    while start is not None:
        keyword = next(k for k in _KINDS if text.startswith(k, start))
        end = _matching_angle(text, start + len(keyword) - 1)
        if end is None:
            break
        attr_text = text[start : end + 1]
        if attr_text not in aliases:  # step 1
            kind = _KINDS[keyword]
            aliases[attr_text] = f"#{kind}{counts[kind] or ''}"
            counts[kind] += 1
        pieces.append(text[pos:start])  # step 2
        pieces.append(aliases[attr_text])
        pos = end + 1
        start = _next_candidate(text, pos)
    if not aliases:
        return text
    pieces.append(text[pos:])
    definitions = sorted(aliases.items(), key=lambda item: _alias_order(item[1]))  # step 3
    header = "".join(f"{alias} = {attr}\n" for attr, alias in definitions)
    return header + "".join(pieces)


def _alias_order(alias: str) -> tuple[str, int]:
    kind = alias[1:4]
    number = alias[4:]
    return kind, int(number) if number else 0


def _next_candidate(text: str, pos: int) -> int | None:
    """Offset of the next ``affine_map<``/``affine_set<`` outside a string literal."""
    while True:
        match = _CANDIDATE.search(text, pos)
        if match is None:
            return None
        if not match.group().startswith('"'):
            return match.start()
        pos = match.end()  # a string literal: skip it whole


def _matching_angle(text: str, open_pos: int) -> int | None:
    """Offset of the ``>`` closing the ``<`` at ``open_pos`` (``->``/``>=`` skipped)."""
    depth = 0
    pos = open_pos
    while pos < len(text):
        char = text[pos]
        if char == "<":
            depth += 1
        elif char == ">" and text[pos - 1] != "-" and text[pos + 1 : pos + 2] != "=":
            depth -= 1
            if depth == 0:
                return pos
        pos += 1
    return None

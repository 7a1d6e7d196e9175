"""The memory effects every op class declares, checked against MLIR's own.

``mlir-opt-22 --test-side-effects`` reports, for every op of a module that implements
``MemoryEffectOpInterface`` (terminators aside), each effect it declares ("found an
instance of 'read' on op operand 0") or "operation has no memory effects"; an op
without the interface (``func.call``, ``memref.global``, ``scf.for``) gets no remark.
For every op of the IR corpus, tinycomp must say the same from its class declarations:
the same effects on the same operands and results, no effect, or (no remark) unknown
or the effects of its body (``has_recursive_effects``).
"""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from tinycomp.ir import Operation, parse
from tinycomp.ir.memory_effect import MemoryEffect

from .mlir_opt import MLIR_OPT, requires_mlir_opt

CORPUS_FILES = sorted((Path(__file__).parent / "corpus").glob("*.mlir"))

_REMARK = re.compile(r"^[^:]*:(\d+):(\d+): remark: (.*)$")
_FOUND = re.compile(r"found an instance of '(\w+)' on (op operand|op result) (\d+)")


def mlir_effects(text: str) -> dict[tuple[int, int], set[tuple[str, str, int] | str]]:
    """(line, column) of each op -> its effects as mlir-opt reports them."""
    assert MLIR_OPT is not None
    result = subprocess.run(
        [MLIR_OPT, "--test-side-effects", "--allow-unregistered-dialect", "-o", "/dev/null"],
        input=text,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    found: dict[tuple[int, int], set] = defaultdict(set)
    for line in result.stderr.splitlines():
        match = _REMARK.match(line)
        if match is None:
            continue
        where = (int(match[1]), int(match[2]))
        message = match[3]
        effect = _FOUND.search(message)
        if effect is not None:
            found[where].add((effect[1], effect[2].split()[-1], int(effect[3])))
        elif message == "operation has no memory effects":
            found[where].add("none")
        else:
            found[where].add(message)
    return found


def described(op: Operation, remarks: set) -> set:
    """mlir-opt's remarks with operand and result positions turned into ``op``'s values."""
    out = set()
    for remark in remarks:
        if isinstance(remark, tuple):
            kind, where, position = remark
            values = op.results if where == "result" else op.operands
            out.add(MemoryEffect(kind, values[position]))
        else:
            out.add(remark)
    return out


def own_effects(op: Operation) -> set | None:
    """``op``'s own effects on the memory (as a set), ``{"none"}``, or ``None`` when
    MLIR would print nothing (unknown effects, or those of its body)."""
    effects = op.get_effects()
    if effects is None or op.has_recursive_effects:
        return None
    if not effects:
        return {"none"}
    return {MemoryEffect(effect.kind, effect.value) for effect in effects}


@pytest.mark.mlir
@requires_mlir_opt
def test_every_corpus_op_declares_the_effects_mlir_declares():
    checked: dict[str, int] = defaultdict(int)
    for path in CORPUS_FILES:
        text = path.read_text()
        reported = mlir_effects(text)
        module = parse(text, filename=path.name)
        at: dict[tuple[int, int], list[Operation]] = defaultdict(list)
        for op in module.walk():  # a short-form payload op shares its linalg op's place
            if op is not module and not op.is_terminator and op.location is not None:
                at[(op.location.line, op.location.col)].append(op)
        for where, ops in at.items():
            outer = ops[0]
            expected = set().union(*[own_effects(op) or set() for op in ops])
            found = described(outer, reported.get(where, set()))
            if len(found) > 1:  # "none" next to effects: a payload op printed in place
                found.discard("none")
                expected.discard("none")
            what = f"{path.name}:{where[0]}:{where[1]} '{outer.name}'"
            assert found == expected, (
                f"{what}: MLIR declares {sorted(map(str, found))}, tinycomp "
                f"{sorted(map(str, expected))}"
            )
            for op in ops:
                checked[op.name] += 1
    assert len(checked) > 100, sorted(checked)
    for name in ("memref.copy", "memref.load", "memref.store", "memref.alloc", "linalg.matmul"):
        assert checked[name] > 0, name

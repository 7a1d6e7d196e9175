"""Which values may feed affine ops: tinycomp's verdict, compared with mlir-opt-22's.

``affine.apply``/``affine.min``/``affine.max`` accept any ``index`` operand (an
``scf.for`` induction variable too); ``affine.apply`` alone refuses an ``affine.for``
induction variable (or apply of one) as a symbol. ``affine.load``/``affine.store`` and
``affine.for`` bounds keep the strict dimension/symbol rules. Each case states tinycomp's
expected verdict as a plain assert; the ``mlir`` test checks that mlir-opt agrees.
"""

from __future__ import annotations

import pytest

from tinycomp.ir import VerifyError, parse

from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt
from .roundtrip import in_function

SIGNATURE = "(%n: index, %m: memref<?xf32>, %v: f32)"
SCF_LOOP = "%c0 = arith.constant 0 : index\n%c1 = arith.constant 1 : index\n"


def _scf(body: str) -> str:
    inner = "\n".join("  " + line for line in body.splitlines())
    return SCF_LOOP + "scf.for %i = %c0 to %n step %c1 {\n" + inner + "\n}"


def _affine(body: str) -> str:
    inner = "\n".join("  " + line for line in body.splitlines())
    return "affine.for %i = 0 to 10 {\n" + inner + "\n}"


# (id, function body, None if accepted else a piece of tinycomp's message)
CASES = [
    ("apply/scf-iv-dim", _scf("%j = affine.apply affine_map<(d0) -> (d0 * 2 + 1)>(%i)"), None),
    ("apply/scf-iv-symbol", _scf("%j = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%i]"), None),
    (
        "apply/arith-of-scf-iv",
        _scf(
            "%x = arith.addi %i, %c1 : index\n"
            "%j = affine.apply affine_map<(d0) -> (d0 * 2)>(%x)\n"
            "%k = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%x]"
        ),
        None,
    ),
    (
        "apply/affine-iv-dim",
        _affine("%j = affine.apply affine_map<(d0)[s0] -> (d0 * 2 + s0)>(%i)[%n]"),
        None,
    ),
    (
        "apply/affine-iv-symbol",
        _affine("%j = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%i]"),
        "operand #0 of the map is a dimension",
    ),
    (
        "apply/apply-of-affine-iv-symbol",
        _affine(
            "%a = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)\n"
            "%j = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%a]"
        ),
        "operand #0 of the map is a dimension",
    ),
    (
        "apply/arith-of-affine-iv-symbol",
        _affine(
            "%x = arith.addi %i, %n : index\n%j = affine.apply affine_map<()[s0] -> (s0 * 2)>()[%x]"
        ),
        None,
    ),
    (
        "min-max/scf-iv",
        _scf(
            "%j = affine.min affine_map<(d0)[s0] -> (d0 + 4, s0)>(%i)[%n]\n"
            "%k = affine.max affine_map<(d0)[s0] -> (d0 - 4, s0)>(%i)[%n]"
        ),
        None,
    ),
    ("min/affine-iv-symbol", _affine("%j = affine.min affine_map<()[s0] -> (s0, 4)>()[%i]"), None),
    ("max/affine-iv-symbol", _affine("%j = affine.max affine_map<()[s0] -> (s0, 4)>()[%i]"), None),
    (
        "load/scf-iv",
        _scf("%x = affine.load %m[%i] : memref<?xf32>"),
        "cannot be used as a dimension",
    ),
    (
        "load/apply-of-scf-iv",
        _scf(
            "%j = affine.apply affine_map<(d0) -> (d0 + 1)>(%i)\n"
            "%x = affine.load %m[%j] : memref<?xf32>"
        ),
        "cannot be used as a dimension",
    ),
    (
        "store/scf-iv",
        _scf("affine.store %v, %m[%i] : memref<?xf32>"),
        "cannot be used as a dimension",
    ),
    (
        "for-bound/scf-iv",
        _scf("affine.for %k = 0 to %i {\n}"),
        "cannot be used as a symbol",
    ),
    (
        "load/top-level-arith",
        "%c1 = arith.constant 1 : index\n%x = arith.addi %n, %c1 : index\n"
        "%y = affine.load %m[%x] : memref<?xf32>",
        None,
    ),
]


def _text(body: str) -> str:
    return in_function(SIGNATURE, body + "\nreturn")


@pytest.mark.parametrize(
    ("body", "message"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_tinycomp_verdict(body: str, message: str | None) -> None:
    if message is None:
        parse(_text(body))  # verifies
        return
    with pytest.raises(VerifyError) as caught:
        parse(_text(body))
    assert message in str(caught.value), str(caught.value)


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize(
    ("body", "message"), [case[1:] for case in CASES], ids=[c[0] for c in CASES]
)
def test_mlir_opt_agrees(body: str, message: str | None) -> None:
    try:
        run_mlir_opt(_text(body), "--verify-each")
        mlir_accepts = True
    except MlirOptError:
        mlir_accepts = False
    assert mlir_accepts == (message is None)

"""The linalg and tensor modules of ``tests/ir/corpus``: what ``tests/ir/test_corpus.py``
does not already check for them.

``test_corpus.py`` runs every corpus module through mlir-opt (accepted in custom and
generic form, mlir-opt's re-prints parse back ``ir_equal``). Here:

1. there are at least 20 linalg/tensor modules and together they use every op of both
   dialects;
2. tinycomp prints mlir-opt's custom output of each back byte for byte (the corpus
   files themselves are written by hand, with named maps and line breaks, so they are
   not in printed form).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycomp.dialects.linalg import LINALG
from tinycomp.dialects.tensor import TENSOR
from tinycomp.ir import parse, print_ir

from ..mlir_opt import requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output

CORPUS_DIR = Path(__file__).parent.parent / "corpus"
FILES = sorted(
    path for path in CORPUS_DIR.glob("*.mlir") if path.name.startswith(("linalg_", "tensor_"))
)


def test_twenty_modules_cover_every_op():
    assert len(FILES) >= 20
    used = {op.name for path in FILES for op in parse(path.read_text()).walk()}
    every_op = {op_class.name for op_class in (*LINALG.ops, *TENSOR.ops)}
    assert every_op - used == set()


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_we_print_mlir_opt_output_byte_for_byte(path):
    theirs = strip_mlir_opt_output(run_mlir_opt(path.read_text(), "--verify-each"))
    assert print_ir(parse(theirs)) == theirs

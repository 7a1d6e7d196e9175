"""The mlir-opt corpus: every module in ``corpus/`` agrees with real MLIR.

Each ``corpus/<dialect>_*.mlir`` file holds one module (any dialect may add files; each
is its own test id). For each:

1. tinycomp parses it, and ``mlir-opt --verify-each`` accepts what tinycomp prints, in
   custom and in generic form;
2. ``mlir-opt --mlir-print-op-generic`` re-prints it; tinycomp parses that back into IR
   structurally equal (``ir_equal``) to the original;
3. mlir-opt's own custom-form output parses back into equal IR too;
4. for the dialects whose printers promise MLIR's exact text (math, memref, scf,
   affine), tinycomp prints mlir-opt's custom output back byte for byte, and prints the
   corpus file itself back as written (comment lines aside).

The tests skip, saying why, where ``mlir-opt-22`` is not installed (except the last
check on the file alone).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tinycomp.ir import ModuleOp, first_difference, parse, print_ir

from .helpers import without_comment_lines
from .mlir_opt import requires_mlir_opt, run_mlir_opt, strip_mlir_opt_output

CORPUS_DIR = Path(__file__).parent / "corpus"
CORPUS_FILES = sorted(CORPUS_DIR.glob("*.mlir"))
EXACT_TEXT_DIALECTS = ("math_", "memref_", "scf_", "affine_")
"""Corpus prefixes whose dialects print exactly what mlir-opt prints."""
EXACT_FILES = [path for path in CORPUS_FILES if path.name.startswith(EXACT_TEXT_DIALECTS)]


@pytest.fixture(params=CORPUS_FILES, ids=lambda path: path.stem)
def corpus_module(request) -> ModuleOp:
    return parse(request.param.read_text(), filename=request.param.name)


def test_the_corpus_has_twenty_modules_of_math_memref_scf_and_affine():
    assert len(EXACT_FILES) >= 20
    for prefix in EXACT_TEXT_DIALECTS:
        assert any(path.name.startswith(prefix) for path in EXACT_FILES), prefix


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("generic", [False, True], ids=["custom", "generic"])
def test_mlir_opt_accepts_what_we_print(corpus_module, generic):
    run_mlir_opt(print_ir(corpus_module, generic=generic), "--verify-each")


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_generic_output_parses_back_equal(corpus_module):
    generic = run_mlir_opt(print_ir(corpus_module), "--verify-each", "--mlir-print-op-generic")
    difference = first_difference(corpus_module, parse(generic))
    assert difference is None, difference


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_custom_output_parses_back_equal(corpus_module):
    custom = run_mlir_opt(print_ir(corpus_module), "--verify-each")
    difference = first_difference(corpus_module, parse(custom))
    assert difference is None, difference


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("path", EXACT_FILES, ids=lambda path: path.stem)
def test_we_print_mlir_opt_output_byte_for_byte(path):
    theirs = strip_mlir_opt_output(run_mlir_opt(path.read_text(), "--verify-each"))
    assert print_ir(parse(theirs)) == theirs


@pytest.mark.parametrize("path", EXACT_FILES, ids=lambda path: path.stem)
def test_corpus_file_prints_back_as_written(path):
    text = path.read_text()
    assert print_ir(parse(text)) == without_comment_lines(text)

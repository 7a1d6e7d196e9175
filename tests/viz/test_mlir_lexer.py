"""MlirLexer: every kind of MLIR token, and no text lost on the IR that tinycomp prints."""

import numpy as np
import pytest
from pygments.token import Comment, Error, Keyword, Name, Number, String

import tinycomp
from tinycomp.frontend import softmax
from tinycomp.viz.mlir_lexer import MlirLexer, colour_of


def kinds(text: str) -> list[tuple[str, object]]:
    return [(value, kind) for kind, value in MlirLexer().get_tokens(text) if value.strip()]


@pytest.mark.parametrize(
    "token, kind",
    [
        ("%0", Name.Variable),
        ("%arg0", Name.Variable),
        ("%x#1", Name.Variable),
        ("^bb0", Name.Label),
        ("@main", Name.Function),
        ("#map1", Name.Constant),
        ("!llvm.ptr", Keyword.Type),
        ("arith.addf", Name.Builtin),
        ("return", Name.Builtin),
        ("f32", Keyword.Type),
        ("index", Keyword.Type),
        ("ins", Keyword),
        ('"parallel"', String.Double),
        ("0xFF800000", Number.Hex),
        ("1.5e-3", Number.Float),
        ("42", Number.Integer),
    ],
)
def test_token_kinds(token, kind):
    assert kinds(token) == [(token, kind)]


def test_shaped_types_split_into_keyword_dimensions_and_element_type():
    assert kinds("tensor<4x?x8xf32>") == [
        ("tensor", Keyword.Type),
        ("<", kinds("<")[0][1]),
        ("4x?x8x", Number.Integer),
        ("f32", Keyword.Type),
        (">", kinds(">")[0][1]),
    ]


def test_words_that_start_like_types_stay_words():
    assert [
        value for value, kind in kinds("indexing_maps f32x index_cast") if kind is Keyword.Type
    ] == []


def test_a_comment_runs_to_the_end_of_the_line():
    assert kinds("%0 = x // CHECK: %1 = y\n%2")[-2:] == [
        ("// CHECK: %1 = y", Comment.Single),
        ("%2", Name.Variable),
    ]


def test_compiled_stages_lex_completely_without_errors():
    x = np.random.default_rng(0).standard_normal((4, 8)).astype(np.float32)
    program = tinycomp.compile(softmax, x, stop_after="loops")
    for stage, text in program.stages.items():
        tokens = list(MlirLexer(stripnl=False, ensurenl=False).get_tokens(text))
        assert "".join(value for _, value in tokens) == text, stage
        assert not [value for kind, value in tokens if kind in Error], stage


def test_colours_are_inherited_from_parent_kinds():
    assert colour_of(Number.Hex) == colour_of(Number)
    assert colour_of(String.Double) == colour_of(String)

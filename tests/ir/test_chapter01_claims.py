"""What chapter 01 says about MLIR and LLVM, checked against the real tools.

The chapter's claims, one test each:

1. every IR text the chapter parses is MLIR: ``mlir-opt-22`` accepts the valid ones, and
   rejects the broken ones with the same complaint at the same line;
2. ``mlir-opt --mlir-print-op-generic`` prints the generic form the chapter shows, plus
   the attributes left at their default (``fastmath = #arith.fastmath<none>``);
3. ``mlir-opt`` renumbers every name: ``%arg0``, ``%0``, ``%cst``, ``%c0``;
4. block labels print as ``^bb1`` with a comment naming the predecessors, as in tinycomp;
5. an unknown op (``tc.clamp``) is read only in generic form, and only with
   ``--allow-unregistered-dialect``;
6. LLVM's x86 backend expands ``llvm.powi(x, 15)`` into six multiplications (Task 01.5
   asks for five), checked through llvmlite.

The texts come from the notebook itself, so the test follows the chapter as it changes.
"""

from __future__ import annotations

import ast
import json
import platform
import re
from pathlib import Path

import pytest

from ir.mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt
from tinycomp.ir import ParseError, VerifyError, ir_equal, parse, print_ir

CHAPTER = Path(__file__).resolve().parents[2] / "chapters" / "01_ir.ipynb"

BROKEN = {  # tinycomp's complaint -> mlir-opt's complaint about the same text
    "use of undeclared SSA value name": "use of undeclared SSA value name",
    "expects different type than prior uses": "expects different type than prior uses",
    "expected a terminator": "block with no terminator",
    "does not dominate this use": "operand #0 does not dominate this use",
    "expected operand and result types to match": "requires the same type for all operands",
}


def chapter_ir_texts() -> list[str]:
    """Every string literal in the chapter's code cells that holds a function."""
    cells = json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]
    texts = []
    for cell in cells:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse("".join(cell["source"]))
        except SyntaxError:  # a shell command (!tinycomp grade ...)
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if "func.func @" in node.value:
                    texts.append(node.value)
    return texts


def tinycomp_complaint(text: str) -> tuple[str, int] | None:
    """The problem tinycomp finds in ``text`` (a key of ``BROKEN``) and its line, or None."""
    try:
        parse(text)
    except (ParseError, VerifyError) as error:
        message = str(error)
        where = re.match(r"(\d+):\d+: ", message) or re.search(r"at line (\d+)", message)
        line = int(where.group(1))
        for key in BROKEN:
            if key in message:
                return key, line
        raise AssertionError(f"a complaint this test does not know: {message}") from None
    return None


TEXTS = chapter_ir_texts()


def test_the_chapter_has_its_examples():
    assert len(TEXTS) >= 10, f"expected the chapter's IR texts, found {len(TEXTS)}"


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("text", TEXTS, ids=[f"text{n}" for n in range(len(TEXTS))])
def test_mlir_opt_agrees_with_the_chapter_on_every_text(text):
    complaint = tinycomp_complaint(text)
    if complaint is None:
        printed = run_mlir_opt(text, allow_unregistered=False)
        assert ir_equal(parse(printed), parse(text)), printed
        return
    key, line = complaint
    with pytest.raises(MlirOptError) as rejected:
        run_mlir_opt(text, allow_unregistered=False)
    diagnostics = str(rejected.value)
    assert BROKEN[key] in diagnostics, diagnostics
    assert f"<stdin>:{line}:" in diagnostics, (line, diagnostics)


AXPY = """\
func.func @axpy(%a: f32, %x: f32, %y: f32) -> f32 {
  %ax = arith.mulf %a, %x : f32
  %r = arith.addf %ax, %y : f32
  return %r : f32
}"""


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_generic_form_is_ours_plus_default_attributes():
    theirs = run_mlir_opt(AXPY, "--mlir-print-op-generic")
    assert theirs.count("<{fastmath = #arith.fastmath<none>}>") == 2, theirs
    without_defaults = theirs.replace(" <{fastmath = #arith.fastmath<none>}>", "")
    ours = print_ir(parse(AXPY), generic=True)
    assert ir_equal(parse(without_defaults), parse(ours))
    renamed = {"%arg0": "%a", "%arg1": "%x", "%arg2": "%y", "%0": "%ax", "%1": "%r"}
    for old, new in renamed.items():
        without_defaults = re.sub(re.escape(old) + r"\b", new, without_defaults)
    assert without_defaults.strip() == ours.strip()


@pytest.mark.mlir
@requires_mlir_opt
def test_mlir_opt_renumbers_every_name():
    text = """
func.func @poly(%0: f32, %n: index) -> f32 {
  %sq = arith.mulf %0, %0 : f32
  %one = arith.constant 1.0 : f32
  %zero = arith.constant 0 : index
  %sum = arith.addf %sq, %one : f32
  return %sum : f32
}"""
    printed = run_mlir_opt(text)
    for name in ("%arg0", "%arg1", "%0", "%cst", "%c0"):
        assert re.search(re.escape(name) + r"\b", printed), (name, printed)
    for hint in ("%sq", "%one", "%zero", "%sum", "%n"):
        assert hint not in printed


@pytest.mark.mlir
@requires_mlir_opt
def test_block_headers_name_their_predecessors_as_mlir_prints_them():
    geometric = next(text for text in TEXTS if "@geometric" in text)
    headers = [line.split("//")[1].strip() for line in print_ir(parse(geometric)).splitlines()
               if "//" in line]  # fmt: skip
    theirs = [line.split("//")[1].strip() for line in run_mlir_opt(geometric).splitlines()
              if "//" in line]  # fmt: skip
    assert headers == theirs == ["2 preds: ^bb0, ^bb2", "pred: ^bb1", "pred: ^bb1"]


CLAMP_GENERIC = """
func.func @f(%x: f32, %lo: f16, %hi: f32) -> f32 {
  %r = "tc.clamp"(%x, %lo, %hi) : (f32, f16, f32) -> f32
  return %r : f32
}"""


@pytest.mark.mlir
@requires_mlir_opt
def test_an_unknown_dialect_is_read_only_in_generic_form_and_only_when_allowed():
    printed = run_mlir_opt(CLAMP_GENERIC, allow_unregistered=True)  # and it checks nothing
    assert '"tc.clamp"(%arg0, %arg1, %arg2) : (f32, f16, f32) -> f32' in printed
    with pytest.raises(MlirOptError, match="unregistered dialect"):
        run_mlir_opt(CLAMP_GENERIC, allow_unregistered=False)
    custom = CLAMP_GENERIC.replace('"tc.clamp"(%x, %lo, %hi) : (f32, f16, f32) -> f32',
                                   "tc.clamp %x, %lo, %hi : f32")  # fmt: skip
    with pytest.raises(MlirOptError, match="Dialect `tc' not found for custom op 'tc.clamp'"):
        run_mlir_opt(custom, allow_unregistered=True)


POWI = """
declare float @llvm.powi.f32.i32(float, i32)
define float @pow15(float %x) {
  %r = call float @llvm.powi.f32.i32(float %x, i32 15)
  ret float %r
}"""


@pytest.mark.skipif(platform.machine() not in ("x86_64", "AMD64"), reason="an x86-64 claim")
def test_llvm_expands_powi_15_into_six_multiplications():
    import llvmlite.binding as llvm

    llvm.initialize_native_target()
    llvm.initialize_native_asmprinter()
    module = llvm.parse_assembly(POWI)
    module.verify()
    machine = llvm.Target.from_default_triple().create_target_machine(opt=3)
    assembly = machine.emit_assembly(module)
    body = assembly[assembly.index("pow15:") :]
    assert len(re.findall(r"\bv?mulss\b", body)) == 6, body
    assert "call" not in body.split("ret")[0], body

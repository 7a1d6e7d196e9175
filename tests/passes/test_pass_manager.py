"""The pass manager: pipeline text, errors that name the pass, stages, timing."""

from __future__ import annotations

import gc

import pytest

from tinycomp.dialects.arith import AddIOp
from tinycomp.ir import parse, print_ir
from tinycomp.passes import (
    CSEPass,
    DCEPass,
    Pass,
    PassError,
    PassManager,
    lookup_pass,
    parse_pipeline,
    register_pass,
    registered_passes,
)
from tinycomp.passes.pipeline_result import PassStatistics, Stage

SOURCE = """
func.func @f(%x: i32) -> i32 {
  %c0 = arith.constant 0 : i32
  %a = arith.addi %x, %c0 : i32
  %b = arith.muli %a, %a : i32
  %c = arith.muli %x, %x : i32
  %d = arith.addi %b, %c : i32
  return %d : i32
}
func.func @g(%y: i32) -> i32 {
  %unused = arith.muli %y, %y : i32
  return %y : i32
}"""


class BreakTheIR(Pass):
    """Makes the first add of every function read a value from another function."""

    name = "break-ir"
    summary = "a buggy pass, for tests"

    def run(self, op):
        functions = [f for f in op.walk() if f.name == "func.func"]
        stranger = functions[-1].arguments[0]
        for candidate in functions[0].walk():
            if candidate.name == "arith.muli":
                candidate.set_operand(0, stranger)
                return


class Explode(Pass):
    """Raises, as a pass with a bug would."""

    name = "explode"

    def run(self, op):
        raise ValueError("expected a widget, got a gadget")


# -- pipeline text ----------------------------------------------------------------------
@pytest.mark.parametrize(
    "text", ["canonicalize,cse,dce", "builtin.module(func.func(canonicalize,cse),dce)", ""]
)
def test_pipeline_text_round_trips(text):
    assert PassManager.parse(text).pipeline_text() == text


def test_spaces_are_allowed_between_names():
    assert PassManager.parse(" canonicalize , cse ").pipeline_text() == "canonicalize,cse"


def test_unknown_pass_is_named_with_the_known_ones():
    with pytest.raises(PassError) as error:
        PassManager.parse("canonicalize,cse,dcee")
    message = str(error.value)
    assert message.startswith("unknown pass 'dcee' (did you mean 'dce'?); known passes: ")
    for name in ("canonicalize", "cse", "dce"):
        assert name in message


@pytest.mark.parametrize(
    "text, message",
    [
        ("canonicalize,,cse", "expected a pass name, found ',' at column 14"),
        ("cse,", "expected a pass name, found the end at column 5"),
        ("func.func(cse", "expected ',' or ')', found the end at column 14"),
        ("cse)", "expected ',' or the end, found ')' at column 4"),
        ("cse(dce)", "only an op name such as 'func.func' takes a nested pipeline"),
        ("canonicalize{max-iterations=3}", "pass options in '{...}' are not supported"),
        ("cse;dce", "expected ',' or the end, found ';' at column 4"),
    ],
)
def test_syntax_errors_point_at_the_column(text, message):
    with pytest.raises(PassError, match=message.replace("(", r"\(").replace(")", r"\)")):
        parse_pipeline(text)


def test_syntax_errors_show_the_text_with_a_caret():
    with pytest.raises(PassError) as error:
        parse_pipeline("cse,,dce")
    assert str(error.value).splitlines()[1:] == ["  cse,,dce", "      ^"]


def test_a_pass_name_cannot_be_an_anchor(monkeypatch):
    from tinycomp.passes import registry

    class Dotted(Pass):
        """A pass whose name looks like an op name."""

        name = "my.pass"

    monkeypatch.setattr(registry, "_PASSES", dict(registry._PASSES))
    register_pass(Dotted)
    with pytest.raises(PassError, match="'my.pass' is a pass, not an op name: it cannot nest"):
        PassManager.parse("my.pass(cse)")


# -- running --------------------------------------------------------------------------------
def test_stages_start_with_the_input_and_follow_each_pass():
    module = parse(SOURCE)
    input_text = print_ir(module)
    result = PassManager.parse("canonicalize,cse,dce").run(module)
    assert [stage.name for stage in result.stages] == ["input", "canonicalize", "cse", "dce"]
    assert result.stages[0].text == input_text
    assert result.final_text == print_ir(module)
    assert result.module is module
    assert "%c = arith.muli %x, %x" not in result.stages[2].text  # cse merged it


def test_nested_pipelines_run_on_each_function():
    module = parse(SOURCE)
    result = PassManager.parse("builtin.module(func.func(dce))").run(module)
    assert [stage.name for stage in result.stages] == ["input", "func.func(dce)"]
    assert "%unused" not in print_ir(module)
    assert result.statistics == [PassStatistics("func.func(dce)", {"ops erased": 1})]


def test_a_module_pipeline_refuses_another_root():
    function = parse(SOURCE).body.first_op
    with pytest.raises(PassError, match="runs on 'builtin.module', but was given 'func.func'"):
        PassManager.parse("builtin.module(cse)").run(function)


def test_without_print_after_each_there_are_no_stages():
    result = PassManager.parse("cse", print_after_each=False).run(parse(SOURCE))
    assert result.stages == [] and result.print_seconds == 0.0


def test_stages_are_named_records_that_still_unpack():
    result = PassManager.parse("cse").run(parse(SOURCE))
    first = result.stages[0]
    assert isinstance(first, Stage) and first.name == "input"
    name, text = result.stages[-1]
    assert (name, text) == ("cse", result.final_text)
    with pytest.raises(AttributeError):
        first.name = "changed"  # frozen


class RecordsTheCollector(Pass):
    """A pass that records whether the cyclic garbage collector was on while it ran."""

    name = "record-gc"
    summary = "records the collector, for tests"

    def __init__(self) -> None:
        super().__init__()
        self.seen: list[bool] = []

    def run(self, op) -> None:
        self.seen.append(gc.isenabled())


def test_the_garbage_collector_is_paused_during_a_run_and_restored():
    recorder = RecordsTheCollector()
    assert gc.isenabled()
    PassManager([recorder]).run(parse(SOURCE))
    assert recorder.seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:  # a caller that paused it already keeps it paused
        PassManager([recorder]).run(parse(SOURCE))
        assert not gc.isenabled()
    finally:
        gc.enable()
    with pytest.raises(PassError):  # and a failing run switches it back on too
        PassManager([BreakTheIR()]).run(parse(SOURCE))
    assert gc.isenabled()


def test_timing_is_reported_only_when_asked(capsys):
    result = PassManager.parse("canonicalize,cse").run(parse(SOURCE))
    assert capsys.readouterr() == ("", "")
    assert [timing.name for timing in result.timings] == ["canonicalize", "cse"]
    assert all(timing.seconds >= 0 for timing in result.timings)
    report = result.timing_report()
    assert "Execution time report" in report
    lines = report.splitlines()
    assert lines[-1].endswith("(100.0%)  Total")
    for name in ("canonicalize", "cse", "(verifier)", "(printing stages)"):
        assert any(line.endswith(f"  {name}") for line in lines)


def test_statistics_are_collected_per_pass():
    result = PassManager.parse("canonicalize,cse,dce").run(parse(SOURCE))
    statistics = dict(result.statistics)
    assert statistics["canonicalize"]["AddIZero"] == 1
    assert statistics["cse"] == {"ops erased": 1}
    assert statistics["dce"] == {}


# -- errors that name the pass ------------------------------------------------------------------
def test_a_pass_that_breaks_the_ir_is_named():
    module = parse(SOURCE)
    manager = PassManager([CSEPass(), BreakTheIR(), DCEPass()])
    with pytest.raises(PassError) as error:
        manager.run(module)
    message = str(error.value)
    assert message.startswith("pass 'break-ir' produced IR that does not verify: ")
    assert "arith.muli" in message
    assert error.value.pass_name == "break-ir"
    partial = error.value.partial_result
    assert [stage.name for stage in partial.stages] == ["input", "cse"]


def test_an_invalid_input_is_reported_as_such():
    module = parse(SOURCE)
    function = module.body.first_op
    first = function.entry_block.first_op
    function.entry_block.append(AddIOp.build(first.result, first.result))  # after return
    with pytest.raises(PassError, match="the input IR does not verify"):
        PassManager.parse("cse").run(module)


def test_without_verification_broken_ir_passes_through():
    module = parse(SOURCE)
    PassManager([BreakTheIR()], verify_each=False).run(module)


def test_an_exception_in_a_pass_names_the_pass_and_the_op():
    module = parse(SOURCE)
    manager = PassManager()
    manager.nest("func.func").add(Explode())
    with pytest.raises(PassError) as error:
        manager.run(module)
    assert str(error.value) == (
        "pass 'func.func(explode)' failed on 'func.func' @f: expected a widget, got a gadget"
    )
    assert isinstance(error.value.__cause__, ValueError)


# -- the registry -----------------------------------------------------------------------------
def test_registering_a_pass_makes_it_available_to_pipelines(monkeypatch):
    from tinycomp.passes import registry

    monkeypatch.setattr(registry, "_PASSES", dict(registry._PASSES))
    register_pass(BreakTheIR)
    assert lookup_pass("break-ir") is BreakTheIR
    assert "break-ir" in registered_passes()
    assert PassManager.parse("cse,break-ir").pipeline_text() == "cse,break-ir"


def test_registry_rejects_nameless_and_clashing_passes(monkeypatch):
    from tinycomp.passes import registry

    monkeypatch.setattr(registry, "_PASSES", dict(registry._PASSES))

    class Nameless(Pass):
        """No name."""

    class OtherCSE(Pass):
        """Claims a taken name."""

        name = "cse"

    with pytest.raises(PassError, match="pass class Nameless has no 'name'"):
        register_pass(Nameless)
    with pytest.raises(PassError, match="pass name 'cse' is already registered by CSEPass"):
        register_pass(OtherCSE)
    register_pass(CSEPass)  # the same class again is harmless

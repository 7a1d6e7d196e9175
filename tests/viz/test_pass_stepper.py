"""pass_stepper: stages built by hand (parse, edit the IR, print), one diff per stage."""

import pytest

from tinycomp.ir import parse, print_ir
from tinycomp.viz import Explorer
from tinycomp.viz.pass_stepper import count_ops, pass_stepper, stage_picture

SOURCE = """\
func.func @f(%a: f32, %b: f32) -> f32 {
  %0 = arith.addf %a, %b : f32
  %1 = arith.addf %a, %b : f32
  %2 = arith.mulf %0, %1 : f32
  %3 = arith.negf %2 : f32
  return %2 : f32
}"""


def hand_made_stages() -> list[tuple[str, str]]:
    """What a pass manager would record: the input, then "cse" and "dce" done by hand."""
    module = parse(SOURCE)
    stages = [("input", print_ir(module))]
    ops = [op for op in module.walk() if op.name.startswith("arith.")]
    first_add, second_add, _, negate = ops
    second_add.result.replace_all_uses_with(first_add.result)  # cse: %1 is %0
    second_add.erase()
    stages.append(("cse", print_ir(module)))
    negate.erase()  # dce: %3 is never used
    stages.append(("dce", print_ir(module)))
    return stages


def test_first_stage_shows_the_ir_itself():
    stepper = pass_stepper(hand_made_stages())
    assert isinstance(stepper, Explorer)
    assert stepper.values == {"stage": 0}
    assert stepper.label == "input: 6 ops"
    assert stepper.picture.text == hand_made_stages()[0][1]


def test_set_moves_to_a_stage_and_changes_label_and_text():
    stepper = pass_stepper(hand_made_stages())
    stepper.set(stage=1)
    # Renumbering shows up in the diff too: every line after the erased op changes.
    assert stepper.label == "after cse: 4 lines removed, 3 added (6 ops -> 5 ops)"
    assert stepper.text.splitlines()[:4] == [
        'explorer "passes": stage=1',
        "label: after cse: 4 lines removed, 3 added (6 ops -> 5 ops)",
        "--- input",
        "+++ cse",
    ]
    stepper.set(stage=2)
    assert stepper.label == "after dce: 1 line removed, 0 added (5 ops -> 4 ops)"
    assert stepper.picture.text.splitlines()[-5:] == [
        "     %1 = arith.mulf %0, %0 : f32",
        "-    %2 = arith.negf %1 : f32",
        "     return %1 : f32",
        "   }",
        " }",
    ]


def test_dropdown_lists_the_passes_in_order():
    stepper = pass_stepper(hand_made_stages())
    assert list(stepper.controls["stage"].options) == [
        ("0. input", 0),
        ("1. cse", 1),
        ("2. dce", 2),
    ]
    with pytest.raises(ValueError, match="stage"):
        stepper.set(stage=3)


def test_a_pass_that_changes_nothing():
    text = hand_made_stages()[0][1]
    picture, label = stage_picture([("input", text), ("canonicalize", text)], 1)
    assert label == "after canonicalize: 0 lines removed, 0 added (6 ops -> 6 ops)"
    assert picture.text.endswith("(no changes: 9 identical lines)")


def test_stages_that_do_not_parse_are_labelled_without_op_counts():
    picture, label = stage_picture([("input", "not IR"), ("lower", "still not IR")], 1)
    assert label == "after lower: 1 line removed, 1 added"
    assert count_ops("not IR") is None


def test_side_by_side_layout_keeps_the_unified_twin():
    stages = hand_made_stages()
    unified = pass_stepper(stages)
    side = pass_stepper(stages, layout="side-by-side")
    unified.set(stage=1)
    side.set(stage=1)
    assert side.text == unified.text
    assert side.picture.svg != unified.picture.svg


def test_bad_stages_are_reported():
    with pytest.raises(ValueError, match="at least one stage"):
        pass_stepper([])
    with pytest.raises(TypeError, match=r"stage 1 to be a \(pass name, IR text\) pair"):
        pass_stepper([("input", "a"), "cse"])
    with pytest.raises(ValueError, match="expected layout"):
        pass_stepper([("input", "a")], layout="split")


def test_stages_of_a_real_pipeline_run():
    passes = pytest.importorskip("tinycomp.passes")
    module = parse(SOURCE)
    result = passes.PassManager.parse("canonicalize,cse,dce").run(module)
    stepper = pass_stepper(result.stages)
    names = [label for label, _ in stepper.controls["stage"].options]
    assert names == ["0. input", "1. canonicalize", "2. cse", "3. dce"]
    labels = []
    for stage in range(4):
        stepper.set(stage=stage)
        labels.append(stepper.label)
    assert labels[0] == "input: 6 ops"
    assert all(
        label.startswith(f"after {name}: ")
        for label, name in zip(labels[1:], ["canonicalize", "cse", "dce"], strict=True)
    )
    assert labels[-1].endswith("-> 4 ops)")  # two adds merged, the unused negf gone

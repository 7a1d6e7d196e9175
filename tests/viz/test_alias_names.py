"""alias_names: two IR texts compare equal up to alias names, and the renames are found."""

import shutil
import subprocess

import pytest

import tinycomp
from tinycomp.passes import PassManager
from tinycomp.passes.dce import DCEPass
from tinycomp.viz.alias_names import alias_definitions, comparable_lines, renamed_aliases

# Two maps; the first op (the only user of #map) is dead, so removing it renumbers #map1.
WITH_DEAD_OP = """\
#map = affine_map<(d0) -> (0)>
#map1 = affine_map<(d0) -> (d0)>
module {
  func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
    %e = tensor.empty() : tensor<4xf32>
    %dead = linalg.generic {indexing_maps = [#map, #map1], iterator_types = ["parallel"]} \
ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      linalg.yield %in : f32
    } -> tensor<4xf32>
    %r = linalg.generic {indexing_maps = [#map1, #map1], iterator_types = ["parallel"]} \
ins(%x : tensor<4xf32>) outs(%e : tensor<4xf32>) {
    ^bb0(%in: f32, %out: f32):
      %n = arith.negf %in : f32
      linalg.yield %n : f32
    } -> tensor<4xf32>
    return %r : tensor<4xf32>
  }
}"""


def after_dce() -> str:
    module = tinycomp.parse(WITH_DEAD_OP)
    PassManager([DCEPass()]).run(module)
    return str(module)


def test_definitions_are_top_level_attribute_and_type_aliases():
    lines = ["#map = affine_map<(d0) -> (d0)>", "!row = tensor<4xf32>", "  %0 = x", "#set=s"]
    assert alias_definitions(lines) == {
        "#map": "affine_map<(d0) -> (d0)>",
        "!row": "tensor<4xf32>",
        "#set": "s",
    }


def test_a_longer_alias_is_not_replaced_by_a_shorter_prefix():
    lines = ["#map1 = A", "#map10 = B", "x = [#map1, #map10, #map1x]"]
    assert comparable_lines(lines)[2] == "x = [A, B, #map1x]"


def test_the_same_meaning_under_other_names_compares_equal():
    before = ["#map = M0", "#map1 = M1", "use #map1", "use #map"]
    after = ["#map = M1", "#map1 = M0", "use #map", "use #map1"]
    assert comparable_lines(before)[2:] == comparable_lines(after)[2:]
    assert renamed_aliases(before, after) == [("#map", "#map1"), ("#map1", "#map")]


def test_a_changed_definition_is_a_change():
    before, after = ["#map = M0", "use #map"], ["#map = M1", "use #map"]
    assert comparable_lines(before) != comparable_lines(after)
    assert renamed_aliases(before, after) == []


def test_a_real_pass_renumbers_and_only_the_removed_lines_differ():
    before, after = WITH_DEAD_OP.splitlines(), after_dce().splitlines()
    assert "#map1" not in "\n".join(after)  # the printer renumbered #map1 to #map
    assert renamed_aliases(before, after) == [("#map1", "#map")]
    new = set(comparable_lines(after))
    missing = [line.strip() for line in comparable_lines(before) if line not in new]
    assert [line[:22] for line in missing] == [  # the others read the same after DCE
        "#? = affine_map<(d0) -",  # the old #map: nothing uses it any more
        "%dead = linalg.generic",
        "linalg.yield %in : f32",
    ]


@pytest.mark.mlir
def test_mlir_opt_renumbers_aliases_the_same_way(tmp_path):
    mlir_opt = shutil.which("mlir-opt-22")
    if mlir_opt is None:
        pytest.skip("mlir-opt-22 is not installed")
    source = tmp_path / "dead.mlir"
    source.write_text(WITH_DEAD_OP + "\n")
    result = subprocess.run(
        [mlir_opt, "--canonicalize", str(source)], capture_output=True, text=True, check=True
    )
    printed = result.stdout.splitlines()
    assert alias_definitions(printed) == {"#map": "affine_map<(d0) -> (d0)>"}
    assert renamed_aliases(WITH_DEAD_OP.splitlines(), printed) == [("#map1", "#map")]
    assert renamed_aliases(after_dce().splitlines(), printed) == []  # tinycomp agrees

"""collapse_shape / expand_shape of memref and tensor share one base class and one set
of shape rules; on the cases where tensor's rules used to differ, tinycomp and mlir-opt
must give the same verdict."""

from __future__ import annotations

import pytest

from tinycomp.dialects import memref, tensor
from tinycomp.dialects.common.reassociation import ReassociativeReshapeOp, reshape_shape_problem
from tinycomp.dialects.memref.layout import reshape_shape_problem as old_home
from tinycomp.ir import VerifyError, parse, verify

from ..mlir_opt import MlirOptError, requires_mlir_opt, run_mlir_opt

FUNCTION = """func.func @f(%t: tensor<2x4xf32>, %d: tensor<?x16xf32>, %m: memref<2x3xf32>,
                %e: tensor<2x3xf32>) {
  LINE
  return
}"""

# line -> tinycomp's message, or None when it accepts the line. mlir-opt gives the same
# verdict; its wording for tensors differs ("expected dimension 0 of collapsed type to be
# ...") since MLIR words the one rule twice, and tinycomp uses its memref wording for both.
VERDICTS = {
    "static group into a dynamic size": (
        "%s = tensor.collapse_shape %t [[0, 1]] : tensor<2x4xf32> into tensor<?xf32>",
        "must be dynamic if and only if reassociation group is dynamic",
    ),
    "dynamic group from a static size": (
        "%s = tensor.expand_shape %t [[0], [1, 2]] output_shape [2, 2, 2] "
        ": tensor<2x4xf32> into tensor<2x2x2xf32>",
        None,
    ),
    "static sizes for a dynamic result dimension": (
        "%s = tensor.expand_shape %d [[0, 1], [2]] output_shape [4, 2, 16] "
        ": tensor<?x16xf32> into tensor<?x2x16xf32>",
        None,
    ),
    "empty tensor group": (
        "%s = tensor.collapse_shape %e [[0, 1], []] : tensor<2x3xf32> into tensor<6x1xf32>",
        "reassociation indices must not be empty",
    ),
    "empty memref group": (
        "%s = memref.collapse_shape %m [[0, 1], []] : memref<2x3xf32> into memref<6x1xf32>",
        None,
    ),
}


def tinycomp_verdict(text: str) -> str | None:
    try:
        verify(parse(text, verify=False))
    except VerifyError as error:
        return error.message
    return None


@pytest.mark.parametrize("case", sorted(VERDICTS))
def test_tinycomp_verdicts(case):
    line, message = VERDICTS[case]
    verdict = tinycomp_verdict(FUNCTION.replace("LINE", line))
    if message is None:
        assert verdict is None
    else:
        assert verdict is not None and message in verdict


@pytest.mark.mlir
@requires_mlir_opt
@pytest.mark.parametrize("case", sorted(VERDICTS))
def test_mlir_opt_verdicts(case):
    line, message = VERDICTS[case]
    text = FUNCTION.replace("LINE", line)
    if message is None:
        run_mlir_opt(text, "--verify-each")
    else:
        with pytest.raises(MlirOptError):
            run_mlir_opt(text, "--verify-each")


def test_one_base_class_and_rule_for_both_dialects():
    for op_class in (
        memref.CollapseShapeOp,
        memref.ExpandShapeOp,
        tensor.CollapseShapeOp,
        tensor.ExpandShapeOp,
    ):
        assert issubclass(op_class, ReassociativeReshapeOp)
    assert old_home is reshape_shape_problem
    assert reshape_shape_problem((None, 4), (2, None, 4), [[0, 1], [2]]) is None
    assert "out of bounds" in reshape_shape_problem((8,), (8,), [[0, 1]])

"""loop_nest: golden texts, and the pseudo-code run as Python computes what the
interpreter computes, for every linalg op of traced programs."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.dialects.linalg.base import StructuredOp
from tinycomp.frontend import TensorSpec, exp, nn, trace
from tinycomp.interp import interpret
from tinycomp.ir import parse, to_numpy_dtype
from tinycomp.viz.loop_nest import loop_nest

ROW_MAX = """\
%max = copy(%1)                  # outs: the initial value of the result
for d0 in range(4):              # parallel
  for d1 in range(8):            # reduction
    %max[d0, 0] = max(%x[d0, d1], %max[d0, 0])"""

CONV = """
func.func @conv(%in: tensor<1x9x9x3xf16>, %w: tensor<3x3x3x4xf16>, %out: tensor<1x4x4x4xf32>)
    -> tensor<1x4x4x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<1x9x9x3xf16>, tensor<3x3x3x4xf16>) outs(%out : tensor<1x4x4x4xf32>)
      -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}"""

CONV_NEST = """\
%0 = copy(%out)                  # outs: the initial value of the result
for n in range(1):               # parallel
  for oh in range(4):            # parallel
    for ow in range(4):          # parallel
      for f in range(4):         # parallel
        for kh in range(3):      # reduction
          for kw in range(3):    # reduction
            for c in range(3):   # reduction
              %0[n, oh, ow, f] = %0[n, oh, ow, f] + f32(%in[n, oh * 2 + kh, ow * 2 + kw, c]) \
* f32(%w[kh, kw, c, f])"""

EXTRAS = """
func.func @f(%x: tensor<4x8xf32>, %y: tensor<4x8xf32>, %s: memref<4xf32>, %m: memref<4x8xf32>)
    -> tensor<4x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
      ins(%x, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %d = arith.subf %a, %b : f32
    %dd = arith.subf %a, %d : f32
    %sq = arith.mulf %dd, %dd : f32
    %j = linalg.index 1 : index
    %ji = arith.index_cast %j : index to i32
    %jf = arith.sitofp %ji : i32 to f32
    %n = arith.negf %sq : f32
    %t = arith.divf %n, %jf : f32
    linalg.yield %t : f32
  } -> tensor<4x8xf32>
  linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i, j)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%s : memref<4xf32>) outs(%m : memref<4x8xf32>) {
  ^bb0(%a: f32, %o: f32):
    linalg.yield %a : f32
  }
  return %r : tensor<4x8xf32>
}"""


def linalg_ops(module) -> list[StructuredOp]:
    return [op for op in module.walk() if isinstance(op, StructuredOp)]


def test_golden_row_maximum():
    module = trace(lambda x: x.max(axis=-1, keepdims=True), TensorSpec((4, 8)))
    generic = next(op for op in linalg_ops(module) if op.name == "linalg.generic")
    assert loop_nest(generic) == ROW_MAX


def test_golden_strided_convolution_with_casts():
    assert loop_nest(linalg_ops(parse(CONV))[0]) == CONV_NEST


def test_temporaries_precedence_index_and_memrefs():
    tensor_op, memref_op = linalg_ops(parse(EXTRAS))
    assert loop_nest(tensor_op, loop_names=["i", "j"]).splitlines()[-2:] == [
        "    t0 = %x[i, j] - (%x[i, j] - %y[i, j])",
        "    %r[i, j] = -(t0 * t0) / f32(i32(j))",
    ]
    assert loop_nest(memref_op).splitlines() == [
        "# linalg.generic writes its outs buffers",
        "for d0 in range(4):              # parallel",
        "  for d1 in range(8):            # parallel",
        "    %m[d0, d1] = %s[d0]",
    ]


def test_a_zero_dimensional_output_is_indexed_with_an_empty_tuple():
    module = trace(lambda x: x.sum(), TensorSpec((3,)))
    reduction = next(op for op in linalg_ops(module) if op.name == "linalg.generic")
    assert loop_nest(reduction).splitlines()[-1] == "  %sum[()] = %x[d0] + %sum[()]"


def test_errors_name_what_was_expected():
    module = parse(CONV)
    with pytest.raises(TypeError, match="expected a linalg op .* got func.return"):
        loop_nest(module.body.first_op.regions[0].entry_block.last_op)
    with pytest.raises(ValueError, match=r"expected 7 loop names, got \['i'\]"):
        loop_nest(linalg_ops(module)[0], loop_names=["i"])


# -- the pseudo-code is right: run it --------------------------------------------------------
FUNCTIONS = {
    "np": np,
    "max": np.maximum,
    "min": np.minimum,
    "exp": np.exp,
    "tanh": np.tanh,
    "rsqrt": lambda v: 1 / np.sqrt(v),
    "sqrt": np.sqrt,
    "log": np.log,
    "select": lambda c, a, b: a if c else b,
    "ogt": lambda a, b: a > b,
    "olt": lambda a, b: a < b,
    "f32": np.float32,
    "f16": np.float16,
    "inf": np.inf,
    "nan": np.nan,
}


def python_name(match: re.Match) -> str:
    return "v_" + re.sub(r"[^A-Za-z0-9_]", "_", match.group(1))


def run_pseudo_code(op: StructuredOp, values: dict[str, np.ndarray]) -> None:
    """Run ``loop_nest(op)`` as Python, with ``values`` (SSA name -> array) as variables."""
    lines = loop_nest(op).splitlines()
    header, body = lines[0], lines[1:]
    header = re.sub(r"\s+# .*$", "", header)
    new = re.match(r"(%\S+) = new tensor<(?:(.*)x)?(\w+)>$", header)
    if new is not None:
        shape = tuple(int(s) for s in (new.group(2) or "").split("x") if s)
        dtype = to_numpy_dtype(op.results[0].type)
        header = f"{new.group(1)} = np.zeros({shape}, np.{dtype})"
    else:
        header = re.sub(r"copy\((%\S+)\)", r"np.array(\1, copy=True)", header)
    code = "\n".join([header] + [re.sub(r"\s+# (parallel|reduction)$", "", line) for line in body])
    code = re.sub(r"%([\w.$-]+)", python_name, code)
    namespace = dict(FUNCTIONS)
    namespace.update({"v_" + re.sub(r"[^A-Za-z0-9_]", "_", k): v for k, v in values.items()})
    with np.errstate(over="ignore"):
        exec(code, namespace)
    values.update({k[2:]: v for k, v in namespace.items() if k.startswith("v_")})


def run_program(module, arrays: list[np.ndarray]) -> np.ndarray:
    """Run a traced program kernel by kernel through the pseudo-code of each linalg op."""
    from tinycomp.ir.naming import SSANames
    from tinycomp.ir.printer import naming_root

    function = module.body.first_op
    names = SSANames(naming_root(function), use_asm_names=True)
    values = {}
    for argument, array in zip(function.regions[0].entry_block.arguments, arrays, strict=True):
        values[names.value_name(argument)[1:]] = array
    for op in function.regions[0].entry_block:
        if isinstance(op, StructuredOp):
            run_pseudo_code(op, values)
        elif op.name == "tensor.empty":
            dtype = to_numpy_dtype(op.results[0].type)
            values[names.value_name(op.results[0])[1:]] = np.zeros(op.results[0].type.shape, dtype)
        elif op.name == "func.return":
            return values[names.value_name(op.operands[0])[1:]]
    raise AssertionError("no return")


PROGRAMS = {
    "softmax": (nn.softmax, [(3, 5)]),
    "layernorm": (nn.layernorm, [(2, 6), (6,), (6,)]),
    "rmsnorm": (nn.rmsnorm, [(2, 6), (6,)]),
    "gelu": (nn.gelu, [(7,)]),
    "attention": (nn.attention, [(2, 3, 4), (2, 5, 4), (2, 5, 3)]),
    "matmul, transpose, exp": (lambda a, b: exp(a @ b.T), [(3, 4), (5, 4)]),
}


@pytest.mark.parametrize("program", list(PROGRAMS))
def test_the_pseudo_code_computes_what_the_interpreter_computes(program):
    fn, shapes = PROGRAMS[program]
    rng = np.random.default_rng(len(program))
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    module = trace(fn, *(TensorSpec(s) for s in shapes))
    expected = interpret(module, *arrays)
    np.testing.assert_allclose(run_program(module, arrays), expected, rtol=1e-5, atol=1e-6)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(
    rows=st.integers(1, 4),
    cols=st.integers(1, 4),
    axis=st.sampled_from([0, 1, -1, None]),
    keepdims=st.booleans(),
    kind=st.sampled_from(["sum", "max"]),
)
def test_reductions_of_every_shape_run_as_written(rows, cols, axis, keepdims, kind):
    def reduce(x):
        return getattr(x, kind)(axis=axis, keepdims=keepdims) * 2.0 - x.sum()

    x = np.random.default_rng(rows * 10 + cols).standard_normal((rows, cols)).astype(np.float32)
    module = trace(reduce, TensorSpec((rows, cols)))
    np.testing.assert_allclose(run_program(module, [x]), interpret(module, x), rtol=1e-5, atol=1e-6)

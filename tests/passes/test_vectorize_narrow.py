"""``vectorize-loops`` with ``min_width``: rows shorter than a vector get a narrower one.

A softmax row of 7 floats is below the 8 lanes of an AVX2 register, so with the default
the pass leaves its loops scalar; with ``min_width=4`` they get 4 lanes and a scalar
epilogue of 3 iterations, and still compute what numpy computes.
"""

from __future__ import annotations

import numpy as np
import pytest

import tinycomp
from tinycomp import CompileOptions
from tinycomp.passes import PassError, VectorizeLoopsPass
from tinycomp.testing import KERNELS, check_against_reference


@pytest.mark.parametrize("cols", [4, 5, 7])
@pytest.mark.parametrize("target", ["cpu", "interp"])
def test_short_rows_get_four_lanes(cols, target):
    kernel = KERNELS["softmax"]
    vectorize = VectorizeLoopsPass(8, min_width=4)
    own_off = {"vector": False} if target == "cpu" else {}  # the target's own vectorizer
    options = CompileOptions(extra_passes={"loops": [vectorize]}, strategies=own_off)
    inputs = kernel.make_inputs(np.random.default_rng(cols), "f32", rows=3, cols=cols)
    program = tinycomp.compile(kernel.trace("f32", rows=3, cols=cols), target=target,
                               options=options)  # fmt: skip
    check_against_reference(kernel, program(*inputs), inputs, "f32")
    long_loops = [d for d in vectorize.report.decisions if d.trip_count == cols]
    assert long_loops and all(d.vectorized for d in long_loops)
    assert all("4 lanes: the trip count is below 8" in d.summary for d in long_loops)
    assert "vector<4xf32>" in program.stages["loops"]


def test_default_keeps_the_full_width_only():
    vectorize = VectorizeLoopsPass(8)
    tinycomp.compile(KERNELS["softmax"].trace("f32", rows=3, cols=7),
                     options=CompileOptions(extra_passes={"loops": [vectorize]}))  # fmt: skip
    assert not any(d.vectorized for d in vectorize.report.decisions)


@pytest.mark.parametrize("min_width", [1, 16, "4"])
def test_min_width_is_checked(min_width):
    with pytest.raises(PassError, match="min_width"):
        VectorizeLoopsPass(8, min_width=min_width)

"""The measured CPU roofline: the micro-kernel benchmark computes what it times, the
measurement is a ``perf`` ``Machine`` that stores and reads back."""

from __future__ import annotations

import numpy as np

from tinycomp.codegen.cpu import jit
from tinycomp.perf.roofline import Machine
from tinycomp.targets.cpu.blis import Blocking
from tinycomp.targets.cpu.roofline import (
    measure_copy_bandwidth,
    measure_machine,
    microkernel_repeat_ir,
)

SMALL = Blocking(mr=4, nr=16, kc=24, mc=4, nc=16, lanes=8)


def test_microkernel_repeat_accumulates_every_repeat():
    module = jit(microkernel_repeat_ir(SMALL))
    rng = np.random.default_rng(0)
    a = rng.standard_normal((SMALL.mr, SMALL.kc)).astype(np.float32)
    b = rng.standard_normal((SMALL.kc, SMALL.nr)).astype(np.float32)
    c = rng.standard_normal((SMALL.mr, SMALL.nr)).astype(np.float32)
    start = c.astype(np.float64)
    module["microkernel_repeat"](SMALL.kc, np.ascontiguousarray(a.T).ravel(), b.ravel(), c, 3)
    np.testing.assert_allclose(c, start + 3 * (a.astype(np.float64) @ b), rtol=1e-5, atol=1e-4)


def test_measurement_is_a_machine_that_round_trips():
    measured = measure_machine(SMALL, megabytes=2, repeats=20, trials=1)
    assert measured.peak_flops > 0 and measured.bandwidth > 0
    assert measured.notes["microkernel"] == "4x16, KC=24, lanes=8"
    again = Machine.from_dict(measured.to_dict())
    assert again.name == measured.name and again.notes == measured.notes
    assert abs(again.peak_flops - measured.peak_flops) <= 0.01e9
    assert measure_copy_bandwidth(megabytes=2, trials=1) > 0

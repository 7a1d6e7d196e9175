"""Packing: slivers in the order the micro-kernel reads, zero-padded at the edges."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.codegen.cpu import jit
from tinycomp.interp import interpret
from tinycomp.targets.cpu.blis import Blocking, pack_a_ir, pack_b_ir

BLOCKING = Blocking(mr=3, nr=8, kc=8, mc=9, nc=24, lanes=4)


def module_text() -> str:
    return "module {\n" + pack_a_ir(BLOCKING) + "\n" + pack_b_ir(BLOCKING) + "\n}"


@pytest.fixture(scope="module")
def packers():
    return jit(module_text())


def expected_a(a, i0, k0, mc, kc, mr):
    """Slivers of mr rows: packed[s*mr*kc + p*mr + r] = A[i0 + s*mr + r, k0 + p], or 0."""
    slivers = -(-mc // mr)
    block = np.zeros((slivers * mr, kc), np.float32)
    block[:mc] = a[i0 : i0 + mc, k0 : k0 + kc]
    return block.reshape(slivers, mr, kc).transpose(0, 2, 1).ravel()


def expected_b(b, k0, j0, kc, nc, nr):
    """Slivers of nr columns: packed[t*nr*kc + p*nr + q] = B[k0 + p, j0 + t*nr + q], or 0."""
    slivers = -(-nc // nr)
    panel = np.zeros((kc, slivers * nr), np.float32)
    panel[:, :nc] = b[k0 : k0 + kc, j0 : j0 + nc]
    return panel.reshape(kc, slivers, nr).transpose(1, 0, 2).ravel()


@settings(max_examples=25, deadline=None)
@given(mc=st.integers(1, 9), kc=st.integers(1, 8), i0=st.integers(0, 3), k0=st.integers(0, 3))
def test_pack_a(packers, mc, kc, i0, k0):
    a = np.random.default_rng(mc * kc).standard_normal((12, 11)).astype(np.float32)
    expected = expected_a(a, i0, k0, mc, kc, BLOCKING.mr)
    packed = np.full(expected.size + 5, np.nan, np.float32)
    packers["pack_a"](a, packed, i0, k0, mc, kc)
    np.testing.assert_array_equal(packed[: expected.size], expected)
    assert np.isnan(packed[expected.size :]).all()  # nothing written past the block


@settings(max_examples=25, deadline=None)
@given(nc=st.integers(1, 24), kc=st.integers(1, 8), k0=st.integers(0, 3), j0=st.integers(0, 5))
def test_pack_b(packers, nc, kc, k0, j0):
    b = np.random.default_rng(nc * kc).standard_normal((11, 30)).astype(np.float32)
    expected = expected_b(b, k0, j0, kc, nc, BLOCKING.nr)
    packed = np.full(expected.size + 5, np.nan, np.float32)
    packers["pack_b"](b, packed, k0, j0, kc, nc)
    np.testing.assert_array_equal(packed[: expected.size], expected)
    assert np.isnan(packed[expected.size :]).all()


def test_interpreter_packs_the_same():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((7, 6)).astype(np.float32)
    b = rng.standard_normal((6, 13)).astype(np.float32)
    packed_a = np.zeros(3 * 3 * 5, np.float32)
    packed_b = np.zeros(2 * 8 * 4, np.float32)
    interpret(module_text(), a, packed_a, 1, 1, 5, 5, entry="pack_a")
    interpret(module_text(), b, packed_b, 2, 3, 4, 10, entry="pack_b")
    np.testing.assert_array_equal(packed_a[:30], expected_a(a, 1, 1, 5, 5, 3)[:30])
    np.testing.assert_array_equal(packed_b, expected_b(b, 2, 3, 4, 10, 8))

"""What the simulated NPU computes: every vector instruction in f16 and f32 on random
data, with repeats, a partial mask and block / repeat strides, against numpy and the
position formula of ``tinycomp.dialects.npu.vector``; every kind of copy (contiguous,
strided, padded, ND to NZ, NZ to ND with f32 -> f16, L1 -> L0A); ``mmad`` on sizes that
are not multiples of 16, with and without accumulation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tinycomp import npu
from tinycomp.targets.npu_sim.nz_layout import nz_shape, to_nz

from .npu_ir import DTYPES, SIZES, KernelText, run

RNG = np.random.default_rng(20240611)
TOLERANCE = {"f16": {"rtol": 4e-3, "atol": 2e-3}, "f32": {"rtol": 2e-6, "atol": 1e-6}}

BINARY = {
    "vadd": np.add, "vsub": np.subtract, "vmul": np.multiply, "vdiv": np.divide,
    "vmax": np.maximum, "vmin": np.minimum,
}  # fmt: skip
UNARY = {
    "vexp": np.exp, "vln": np.log, "vabs": np.abs, "vrelu": lambda x: np.where(x > 0, x, 0.0),
    "vsqrt": np.sqrt, "vrec": lambda x: 1.0 / x, "vmov": lambda x: x,
}  # fmt: skip
SCALAR = {"vadds": np.add, "vmuls": np.multiply, "vmaxs": np.maximum, "vmins": np.minimum}
SCALARS = {"vadds": 1.5, "vmuls": -0.75, "vmaxs": 0.25, "vmins": -0.5, "vdup": -2.75}


# -- the reference: the dialect docstring's formula ------------------------------------------
def formula(offset: int, repeat: int, count: int, e: int, blk: int, rep: int) -> np.ndarray:
    """Element ``j`` of repeat ``r``: ``o + r * rep * e + (j // e) * blk * e + j % e``."""
    r = np.arange(repeat)[:, None]
    j = np.arange(count)[None, :]
    return offset + r * rep * e + (j // e) * blk * e + j % e


def sample(op: str, size: int, dtype: str) -> np.ndarray:
    """Random inputs where ``op`` is defined and well conditioned."""
    if op in ("vln", "vsqrt"):
        values = RNG.uniform(0.25, 6.0, size)
    elif op == "vexp":
        values = RNG.uniform(-3.0, 3.0, size)
    elif op in ("vrec", "vdiv"):
        values = RNG.uniform(0.5, 4.0, size) * RNG.choice([-1.0, 1.0], size)
    else:
        values = RNG.uniform(-4.0, 4.0, size)
    return values.astype(DTYPES[dtype])


def buffer_length(positions: np.ndarray, dtype: str) -> int:
    """Enough elements for ``positions``, rounded up to 256 bytes."""
    per = 256 // SIZES[dtype]
    return int(-(-(int(positions.max()) + 1) // per) * per)


def run_vector(
    op: str,
    dst_dtype: str,
    src_dtype: str | None = None,
    *,
    repeat: int,
    mask: int,
    strides: dict[str, int],
    offsets: list[int],
    kind: str | None = None,
):
    """Run one vector instruction on random GM data; the output, the expectation and the
    destination positions the instruction writes."""
    src_dtype = src_dtype or dst_dtype
    count = 1 if op == "vdup" else 3 if op in BINARY else 2
    types = [dst_dtype] + [src_dtype] * (count - 1)
    e_of = [32 // SIZES[t] for t in types]
    widest = max(SIZES[t] for t in types)
    per_repeat = 256 // widest
    positions = []
    for i, e in enumerate(e_of):
        prefix = "dst" if i == 0 else f"src{i - 1}"
        default_rep = per_repeat * SIZES[types[i]] // 32
        if op == "vreduce" and i == 0:
            rep = strides.get("dst_rep_stride", 1)
            positions.append(offsets[0] + np.arange(repeat)[:, None] * rep)
            continue
        blk = strides.get(f"{prefix}_blk_stride", 1)
        rep = strides.get(f"{prefix}_rep_stride", default_rep)
        positions.append(formula(offsets[i], repeat, mask, e, blk, rep))
    lengths = [buffer_length(p, t) for p, t in zip(positions, types, strict=True)]
    args = [
        (f"x{i}", f"memref<{n}x{t}>") for i, (n, t) in enumerate(zip(lengths, types, strict=True))
    ]
    k = KernelText(args)
    offset, buffers = 0, []
    for n, t in zip(lengths, types, strict=True):
        buffers.append(k.alloc("UB", n, t, offset))
        offset += n * SIZES[t]
    for (name, _), buffer, n in zip(args, buffers, lengths, strict=True):
        k.copy(name, buffer, burst_len=n)
    k.sync("MTE2", "V")
    attrs = {"repeat": repeat, "mask": mask, **strides, "kind": kind}
    k.vector(op, buffers, offsets, SCALARS.get(op), **attrs)
    k.sync("V", "MTE3")
    k.copy(buffers[0], "x0", burst_len=lengths[0])
    arrays = [sample(op, n, t) for n, t in zip(lengths, types, strict=True)]
    before = [a.copy() for a in arrays]
    run(k, arrays)
    expected = before[0].astype(np.float64)
    sources = [b.astype(np.float64)[p] for b, p in zip(before[1:], positions[1:], strict=True)]
    if op in BINARY:
        result = BINARY[op](sources[0], sources[1])
    elif op in UNARY:
        result = UNARY[op](sources[0])
    elif op in SCALAR:
        result = SCALAR[op](sources[0], SCALARS[op])
    elif op == "vdup":
        result = np.full(positions[0].shape, SCALARS[op])
    elif op == "vconv":
        result = sources[0]
    else:
        reduce = {"sum": np.sum, "max": np.max, "min": np.min}[kind]
        result = reduce(sources[0], axis=1, keepdims=True)
    expected[positions[0]] = result
    for source, original in zip(arrays[1:], before[1:], strict=True):
        np.testing.assert_array_equal(source, original)  # sources are read only
    return arrays[0], expected, positions[0]


def check(out, expected, written, dtype: str, *, partial: bool = True, **tol) -> None:
    """Written elements close to the reference, the others exactly as they were."""
    touched = np.zeros(out.shape, bool)
    touched[written] = True
    np.testing.assert_array_equal(out[~touched], expected[~touched].astype(out.dtype))
    np.testing.assert_allclose(
        out[touched].astype(np.float64), expected[touched], **(tol or TOLERANCE[dtype])
    )
    assert touched.any() and (~touched).any() == partial


STRIDED = {
    "dst_blk_stride": 2, "dst_rep_stride": 17, "src0_blk_stride": 1, "src0_rep_stride": 10,
    "src1_blk_stride": 3, "src1_rep_stride": 5,
}  # fmt: skip


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("op", sorted(BINARY))
def test_binary_ops_follow_the_formula(op, dtype):
    e = 32 // SIZES[dtype]
    mask = 256 // SIZES[dtype] - e - 3  # not a whole number of blocks, less than full
    out, expected, written = run_vector(
        op, dtype, repeat=3, mask=mask, strides=STRIDED, offsets=[e, 2 * e, 3 * e]
    )
    check(out, expected, written, dtype)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("op", sorted(UNARY) + sorted(SCALAR))
def test_unary_and_vector_scalar_ops_follow_the_formula(op, dtype):
    e = 32 // SIZES[dtype]
    strides = {k: v for k, v in STRIDED.items() if not k.startswith("src1")}
    out, expected, written = run_vector(
        op, dtype, repeat=4, mask=5 * e + 1, strides=strides, offsets=[2 * e, e]
    )
    check(out, expected, written, dtype)


@pytest.mark.parametrize("dtype", ["f16", "f32"])
def test_vdup_fills_the_masked_elements(dtype):
    e = 32 // SIZES[dtype]
    strides = {"dst_blk_stride": 3, "dst_rep_stride": 25}
    out, expected, written = run_vector(
        "vdup", dtype, repeat=5, mask=2 * e + 7, strides=strides, offsets=[e]
    )
    check(out, expected, written, dtype)
    assert (out[written] == DTYPES[dtype](SCALARS["vdup"])).all()


@pytest.mark.parametrize(("dst", "src"), [("f32", "f16"), ("f16", "f32")])
def test_vconv_converts_with_strides_of_each_element_type(dst, src):
    # 64 elements a repeat (256 bytes of f32); f16 blocks hold 16, f32 blocks 8
    strides = {"dst_blk_stride": 2, "dst_rep_stride": 17, "src0_blk_stride": 1,
               "src0_rep_stride": 9}  # fmt: skip
    out, expected, written = run_vector(
        "vconv", dst, src, repeat=3, mask=45, strides=strides, offsets=[32, 16]
    )
    check(out, expected, written, dst)


@pytest.mark.parametrize(("dst", "src"), [("f32", "f16"), ("f16", "f32")])
def test_vconv_default_strides_step_a_repeat_of_the_widest_type(dst, src):
    out, expected, written = run_vector("vconv", dst, src, repeat=4, mask=64, strides={},
                                        offsets=[0, 0])  # fmt: skip
    check(out, expected, written, dst, partial=False)
    # 64 elements a repeat on both sides: 8 blocks of f32, 4 blocks of f16
    assert written.reshape(-1).tolist() == list(range(256))


@pytest.mark.parametrize("dtype", ["f16", "f32"])
@pytest.mark.parametrize("kind", ["sum", "max", "min"])
def test_vreduce_leaves_one_value_a_repeat(kind, dtype):
    e = 32 // SIZES[dtype]
    strides = {"dst_rep_stride": 3, "src0_blk_stride": 2, "src0_rep_stride": 13}
    out, expected, written = run_vector(
        "vreduce", dtype, repeat=6, mask=4 * e + 5, strides=strides, offsets=[5, e], kind=kind
    )
    tol = {"rtol": 4e-3, "atol": 2e-2} if dtype == "f16" else {"rtol": 1e-5, "atol": 1e-5}
    check(out, expected, written, dtype, **tol)
    assert written.reshape(-1).tolist() == [5 + 3 * r for r in range(6)]


def test_full_mask_and_default_strides_are_a_contiguous_add():
    out, expected, written = run_vector("vadd", "f16", repeat=5, mask=128, strides={},
                                        offsets=[0, 0, 0])  # fmt: skip
    check(out, expected, written, "f16", partial=False)
    assert written.reshape(-1).tolist() == list(range(5 * 128))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    dtype=st.sampled_from(["f16", "f32"]),
    repeat=st.integers(1, 6),
    mask_fraction=st.floats(0.0, 1.0),
    dst_blk=st.integers(1, 3),
    extra_rep=st.integers(0, 5),
    src_blk=st.lists(st.integers(0, 3), min_size=2, max_size=2),
    src_rep=st.lists(st.integers(0, 20), min_size=2, max_size=2),
    blocks=st.lists(st.integers(0, 4), min_size=3, max_size=3),
)
def test_vadd_with_random_repeat_mask_and_strides_matches_the_formula(
    dtype, repeat, mask_fraction, dst_blk, extra_rep, src_blk, src_rep, blocks
):
    e = 32 // SIZES[dtype]
    full = 256 // SIZES[dtype]
    mask = max(1, round(mask_fraction * full))
    used_blocks = -(-mask // e)
    span = (used_blocks - 1) * dst_blk + 1  # blocks one destination repeat reaches
    strides = {
        "dst_blk_stride": dst_blk, "dst_rep_stride": span + extra_rep,
        "src0_blk_stride": src_blk[0], "src0_rep_stride": src_rep[0],
        "src1_blk_stride": src_blk[1], "src1_rep_stride": src_rep[1],
    }  # fmt: skip
    out, expected, written = run_vector(
        "vadd", dtype, repeat=repeat, mask=mask, strides=strides, offsets=[b * e for b in blocks]
    )
    touched = np.zeros(out.shape, bool)
    touched[written] = True
    assert touched.sum() == repeat * mask  # the destination positions never collide
    check(out, expected, written, dtype)


# -- copies ------------------------------------------------------------------------------------
def test_contiguous_copy_round_trips_through_ub_at_an_offset():
    x = RNG.standard_normal(512).astype(np.float32)
    y = RNG.standard_normal(512).astype(np.float32)
    before = y.copy()
    k = KernelText([("x", "memref<512xf32>"), ("y", "memref<512xf32>")])
    ub = k.alloc("UB", 384, "f32", offset=1024)
    k.copy("x", ub, 64, 8, burst_len=320)  # x[64:384] -> ub[8:328]
    k.sync("MTE2", "MTE3")
    k.copy(ub, "y", 8, 128, burst_len=320)  # ub[8:328] -> y[128:448]
    run(k, [x, y])
    expected = before.copy()
    expected[128:448] = x[64:384]
    np.testing.assert_array_equal(y, expected)


def test_strided_bursts_pick_rows_of_a_wider_matrix():
    rows, cols, width, ub_row = 5, 48, 80, 64  # a 5 x 48 tile of a 5 x 80 matrix, f16
    x = RNG.standard_normal(rows * width).astype(np.float16)
    background = RNG.standard_normal(rows * ub_row).astype(np.float16)
    y = np.zeros(rows * ub_row, np.float16)
    k = KernelText([("x", f"memref<{rows * width}xf16>"), ("bg", f"memref<{rows * ub_row}xf16>"),
                    ("y", f"memref<{rows * ub_row}xf16>")])  # fmt: skip
    ub = k.alloc("UB", rows * ub_row, "f16")
    k.copy("bg", ub, burst_len=rows * ub_row)
    k.copy("x", ub, 16, 0, burst_len=cols, n_burst=rows, src_stride=width, dst_stride=ub_row)
    k.sync("MTE2", "MTE3")
    k.copy(ub, "y", burst_len=rows * ub_row)
    run(k, [x, background, y])
    expected = background.reshape(rows, ub_row).copy()
    expected[:, :cols] = x.reshape(rows, width)[:, 16 : 16 + cols]
    np.testing.assert_array_equal(y.reshape(rows, ub_row), expected)


def test_strided_copy_out_scatters_rows_into_gm():
    rows, cols = 4, 16
    x = RNG.standard_normal(rows * cols).astype(np.float32)
    y = RNG.standard_normal(rows * 40).astype(np.float32)
    before = y.copy()
    k = KernelText([("x", f"memref<{rows * cols}xf32>"), ("y", f"memref<{rows * 40}xf32>")])
    ub = k.alloc("UB", rows * cols, "f32")
    k.copy("x", ub, burst_len=rows * cols)
    k.sync("MTE2", "MTE3")
    k.copy(ub, "y", 0, 3, burst_len=cols, n_burst=rows, dst_stride=40)
    run(k, [x, y])
    expected = before.reshape(rows, 40).copy()
    expected[:, 3 : 3 + cols] = x.reshape(rows, cols)
    np.testing.assert_array_equal(y.reshape(rows, 40), expected)


def test_padded_copy_in_zero_fills_each_row_to_32_bytes():
    rows, cols = 3, 10  # 20-byte rows of f16, padded to 16 elements on chip
    x = RNG.standard_normal(rows * cols).astype(np.float16)
    background = RNG.uniform(1, 2, 64).astype(np.float16)  # nonzero: the padding shows
    y = np.zeros(64, np.float16)
    k = KernelText([("x", "memref<30xf16>"), ("bg", "memref<64xf16>"), ("y", "memref<64xf16>")])
    ub = k.alloc("UB", 64, "f16")
    k.copy("bg", ub, burst_len=64)
    k.copy("x", ub, burst_len=cols, n_burst=rows, pad=True)
    k.sync("MTE2", "MTE3")
    k.copy(ub, "y", burst_len=64)
    run(k, [x, background, y])
    got = y[:48].reshape(rows, 16)
    np.testing.assert_array_equal(got[:, :cols], x.reshape(rows, cols))
    assert (got[:, cols:] == 0).all()
    np.testing.assert_array_equal(y[48:], background[48:])


def test_padded_copy_out_packs_the_rows_in_gm():
    rows, cols = 3, 5  # 20-byte rows of f32, 32 bytes apart in UB
    x = RNG.standard_normal(rows * 8).astype(np.float32)
    y = RNG.standard_normal(rows * cols + 3).astype(np.float32)
    before = y.copy()
    k = KernelText([("x", "memref<24xf32>"), ("y", "memref<18xf32>")])
    ub = k.alloc("UB", 24, "f32")
    k.copy("x", ub, burst_len=24)
    k.sync("MTE2", "MTE3")
    k.copy(ub, "y", 0, 1, burst_len=cols, n_burst=rows, pad=True)
    run(k, [x, y])
    expected = before.copy()
    expected[1 : 1 + rows * cols] = x.reshape(rows, 8)[:, :cols].reshape(-1)
    np.testing.assert_array_equal(y, expected)


def test_dsl_data_copy_pad_matches_the_ir():
    @npu.kernel
    def pad_copy(x, y):
        pipe = npu.TPipe()
        q = npu.TQue(npu.VECIN)
        pipe.init_buffer(q, 1, 2 * 32 * 4)
        t = q.alloc_tensor(np.float32)
        npu.duplicate(t, 9.0, 64)
        npu.set_flag("V", "MTE2", 0)
        npu.wait_flag("V", "MTE2", 0)
        npu.data_copy_pad(t, x, 6, n_burst=4, src_stride=7)
        npu.set_flag("MTE2", "MTE3", 0)
        npu.wait_flag("MTE2", "MTE3", 0)
        npu.data_copy(y, t, 64)
        q.free_tensor(t)

    x = RNG.standard_normal(28).astype(np.float32)
    y = np.zeros(64, np.float32)
    npu.launch(pad_copy, (x, y), block_num=1, preset="small")
    rows = y[:32].reshape(4, 8)
    np.testing.assert_array_equal(rows[:, :6], x.reshape(4, 7)[:, :6])
    assert (rows[:, 6:] == 0).all() and (y[32:] == 9.0).all()


def _l1(run_result, space: str, dtype, count: int, offset: int = 0) -> np.ndarray:
    """What the cube core's ``space`` holds (there is no path L1 -> GM to read it)."""
    (aic,) = [core for core in run_result.cores if core.kind == "aic"]
    raw = aic.memory.bytes[space][offset : offset + count * np.dtype(dtype).itemsize]
    return raw.view(dtype)


@pytest.mark.parametrize(("rows", "cols", "width"), [(20, 40, 42), (17, 9, 24), (32, 16, 50)])
def test_nd2nz_into_l1_is_the_nz_layout(rows, cols, width):
    x = RNG.standard_normal(rows * width).astype(np.float16)
    count = int(np.prod(nz_shape((rows, cols), np.float16)))
    k = KernelText([("x", f"memref<{rows * width}xf16>")], core="aic")
    l1 = k.alloc("L1", count, "f16", offset=512)
    k.copy("x", l1, 2, 0, burst_len=cols, n_burst=rows, src_stride=width, layout="nd2nz")
    result = run(k, [x])
    expected = to_nz(x.reshape(rows, width)[:, 2 : 2 + cols])
    got = _l1(result, "L1", np.float16, count, offset=512)
    np.testing.assert_array_equal(got, expected.reshape(-1))


def _matmul_kernel(m, k_, n, *, accumulate: bool, via_l1: bool, out_dtype="f16", width=None):
    """A, B (row-major in GM) -> NZ in L0A / L0B (through L1 on MTE1 when ``via_l1``),
    ``mmad`` (twice, the second accumulating, when ``accumulate``), out through FixPipe
    as rows ``width`` apart (default ``n``)."""
    a_count = int(np.prod(nz_shape((m, k_), np.float16)))
    b_count = int(np.prod(nz_shape((k_, n), np.float16)))
    c_count = int(np.prod(nz_shape((m, n), np.float32, 16)))
    pairs = 2 if accumulate else 1
    args = [("a", f"memref<{pairs * m * k_}xf16>"), ("b", f"memref<{pairs * k_ * n}xf16>"),
            ("c", f"memref<{m * (width or n)}x{out_dtype}>")]  # fmt: skip
    kt = KernelText(args, core="aic")
    l1 = kt.alloc("L1", pairs * (a_count + b_count), "f16") if via_l1 else None
    l0a = kt.alloc("L0A", pairs * a_count, "f16")
    l0b = kt.alloc("L0B", pairs * b_count, "f16")
    l0c = kt.alloc("L0C", c_count, "f32")
    for p in range(pairs):
        a_at, b_at = p * a_count, p * b_count
        if via_l1:
            kt.copy("a", l1, p * m * k_, a_at, burst_len=k_, n_burst=m, layout="nd2nz")
            kt.copy("b", l1, p * k_ * n, pairs * a_count + b_at, burst_len=n, n_burst=k_,
                    layout="nd2nz")  # fmt: skip
        else:
            kt.copy("a", l0a, p * m * k_, a_at, burst_len=k_, n_burst=m, layout="nd2nz")
            kt.copy("b", l0b, p * k_ * n, b_at, burst_len=n, n_burst=k_, layout="nd2nz")
    if via_l1:
        kt.sync("MTE2", "MTE1")
        kt.copy(l1, l0a, 0, 0, burst_len=pairs * a_count)
        kt.copy(l1, l0b, pairs * a_count, 0, burst_len=pairs * b_count)
        kt.sync("MTE1", "M")
    else:
        kt.sync("MTE2", "M")
    for p in range(pairs):
        kt.mmad(l0c, l0a, l0b, (0, p * a_count, p * b_count), m=m, k=k_, n=n,
                accumulate=p > 0)  # fmt: skip
    kt.sync("M", "FIX")
    kt.copy(l0c, "c", burst_len=n, n_burst=m, dst_stride=width, layout="nz2nd")
    return kt


@pytest.mark.parametrize("via_l1", [False, True], ids=["gm-to-l0", "through-l1"])
@pytest.mark.parametrize("accumulate", [False, True], ids=["overwrite", "accumulate"])
@pytest.mark.parametrize(("m", "k", "n"), [(20, 40, 24), (7, 33, 18)])
def test_mmad_matches_numpy_matmul(m, k, n, accumulate, via_l1):
    pairs = 2 if accumulate else 1
    a = RNG.uniform(-1, 1, (pairs, m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (pairs, k, n)).astype(np.float16)
    c = RNG.standard_normal(m * n).astype(np.float16)  # overwritten
    kernel = _matmul_kernel(m, k, n, accumulate=accumulate, via_l1=via_l1)
    result = run(kernel, [a.reshape(-1), b.reshape(-1), c])
    expected = sum(a[p].astype(np.float32) @ b[p].astype(np.float32) for p in range(pairs))
    np.testing.assert_allclose(c.reshape(m, n).astype(np.float32), expected, rtol=2e-3,
                               atol=4e-3)  # fmt: skip
    if via_l1:  # MTE1 copied L1's NZ fractals to L0A as they were
        count = int(np.prod(nz_shape((m, k), np.float16)))
        l0a = _l1(result, "L0A", np.float16, count)
        np.testing.assert_array_equal(l0a, to_nz(a[0]).reshape(-1))


def test_fixpipe_to_f32_keeps_the_exact_f32_sum():
    m, k, n = 20, 40, 24
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float16)
    c = np.zeros(m * n, np.float32)
    kernel = _matmul_kernel(m, k, n, accumulate=False, via_l1=False, out_dtype="f32")
    run(kernel, [a.reshape(-1), b.reshape(-1), c])
    np.testing.assert_allclose(c.reshape(m, n), a.astype(np.float32) @ b.astype(np.float32),
                               rtol=1e-5, atol=1e-5)  # fmt: skip


def test_nz2nd_with_a_wider_destination_leaves_the_gaps():
    m, k, n, width = 20, 16, 24, 32
    a = RNG.uniform(-1, 1, (m, k)).astype(np.float16)
    b = RNG.uniform(-1, 1, (k, n)).astype(np.float16)
    c = RNG.standard_normal(m * width).astype(np.float16)
    before = c.copy()
    kernel = _matmul_kernel(m, k, n, accumulate=False, via_l1=False, width=width)
    run(kernel, [a.reshape(-1), b.reshape(-1), c])
    got, expected = c.reshape(m, width), before.reshape(m, width).copy()
    expected[:, :n] = (a.astype(np.float32) @ b.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(got[:, :n].astype(np.float32), expected[:, :n], rtol=2e-3,
                               atol=2e-3)  # fmt: skip
    np.testing.assert_array_equal(got[:, n:], before.reshape(m, width)[:, n:])


def test_dsl_vector_count_form_with_a_tail_mask():
    @npu.kernel
    def axpy(x, y, z, n):
        pipe = npu.TPipe()
        qx, qy = npu.TQue(npu.VECIN), npu.TQue(npu.VECIN)
        pipe.init_buffer(qx, 1, n * 4)
        pipe.init_buffer(qy, 1, n * 4)
        tx, ty = qx.alloc_tensor(np.float32), qy.alloc_tensor(np.float32)
        npu.data_copy(tx, x, n)
        npu.data_copy(ty, y, n)
        qx.enque(tx)
        qy.enque(ty)
        tx, ty = qx.deque(), qy.deque()
        npu.muls(tx, tx, 2.5, n)
        npu.add(ty, tx, ty, n)
        npu.set_flag("V", "MTE3", 0)
        npu.wait_flag("V", "MTE3", 0)
        npu.data_copy(z, ty, n)
        qx.free_tensor(tx)
        qy.free_tensor(ty)

    n = 200  # 3 repeats of 64 and a tail of 8
    x, y = RNG.standard_normal(n).astype(np.float32), RNG.standard_normal(n).astype(np.float32)
    z = np.zeros(n, np.float32)
    npu.launch(axpy, (x, y, z, n), block_num=1, preset="small")
    np.testing.assert_allclose(z, 2.5 * x + y, rtol=1e-6, atol=1e-6)


def _ids_kernel(kernel_type: str) -> list[KernelText]:
    """Each vector core writes block_idx, block_num, sub_block_idx and sub_block_num to
    row ``2 * block_idx + sub_block_idx`` of y."""
    mix = kernel_type.startswith("mix")
    y = [("y", "memref<64xi32>")]
    cube = KernelText(y, name="k_aic", core="aic", kernel_type=kernel_type, kernel="k")
    k = KernelText(y, name="k_aiv" if mix else "k", core="aiv", kernel_type=kernel_type,
                   kernel="k" if mix else None)  # fmt: skip
    if mix:
        k.first_line = len(cube.lines()) + 1
    two, eight = k.const(2), k.const(8)
    ub = k.alloc("UB", 8, "i32")
    values = {}
    for slot, name in enumerate(("block_idx", "block_num", "sub_block_idx", "sub_block_num")):
        values[name] = k.fresh("p")
        k.emit(f'%{values[name]} = "npu.{name}"() : () -> index')
        cast = k.fresh("w")
        k.emit(f"%{cast} = arith.index_cast %{values[name]} : index to i32")
        k.types[cast] = "i32"
        k.set_value(ub, slot, cast)
        k.set_value(ub, slot + 4, cast)
    row = k.fresh("r")
    k.emit(f"%{row} = arith.muli %{values['block_idx']}, %{two} : index")
    k.emit(f"%{row}s = arith.addi %{row}, %{values['sub_block_idx']} : index")
    k.emit(f"%{row}o = arith.muli %{row}s, %{eight} : index")
    k.sync("S", "MTE3")
    k.copy(ub, "y", 0, f"{row}o", burst_len=8)
    return [cube, k] if mix else [k]


@pytest.mark.parametrize(
    ("kernel_type", "blocks", "expected"),
    [
        ("aiv", 3, {0: (0, 3, 0, 1), 2: (1, 3, 0, 1), 4: (2, 3, 0, 1)}),
        ("mix_1_1", 2, {0: (0, 2, 0, 1), 2: (1, 2, 0, 1)}),
        ("mix_1_2", 2, {0: (0, 2, 0, 2), 1: (0, 2, 1, 2), 2: (1, 2, 0, 2), 3: (1, 2, 1, 2)}),
    ],
)
def test_each_vector_core_knows_where_it_is(kernel_type, blocks, expected):
    y = np.full(64, -1, np.int32)
    run(_ids_kernel(kernel_type), [y], block_num=blocks, preset="small")
    rows = y.reshape(8, 8)
    for row in range(8):
        want = expected.get(row)
        if want is None:
            assert (rows[row] == -1).all(), row
        else:
            assert tuple(rows[row, :4]) == want == tuple(rows[row, 4:]), row

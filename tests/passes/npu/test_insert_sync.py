"""``npu-insert-sync``: kernels written without flags come out hazard-free (the
simulator's sanitizer is quiet, the results equal numpy), kernels that have their
flags get none, and the flags it adds keep the pipes overlapping."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp import npu, parse
from tinycomp.ir import Operation
from tinycomp.passes.npu import NpuInsertSyncPass, find_needs, insert_sync
from tinycomp.testing.npu_kernels import cube_matmul, softmax_rows, vector_add

RNG = np.random.default_rng(12)
FLAGS = ("npu.set_flag", "npu.wait_flag")


def without_flags(module: Operation) -> Operation:
    """A copy of ``module`` with every flag taken out."""
    bare = parse(str(module))
    for op in list(bare.walk()):
        if op.name in FLAGS:
            op.detach()
    return bare


def arrays(args):
    return [a for a in args if isinstance(a, np.ndarray)]


def test_a_straight_copy_scale_copy_gets_two_pairs():
    k = """
func.func @k(%x: memref<512xf32>, %y: memref<512xf32>) attributes {npu.kernel_type = "aiv"} {
  %c0 = arith.constant 0 : index
  %s = arith.constant 2.0 : f32
  %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<512xf32, "ub">
  "npu.copy"(%x, %ub, %c0, %c0) {burst_len = 512 : i64}
      : (memref<512xf32>, memref<512xf32, "ub">, index, index) -> ()
  "npu.vmuls"(%ub, %ub, %c0, %c0, %s) {repeat = 8 : i64}
      : (memref<512xf32, "ub">, memref<512xf32, "ub">, index, index, f32) -> ()
  "npu.copy"(%ub, %y, %c0, %c0) {burst_len = 512 : i64}
      : (memref<512xf32, "ub">, memref<512xf32>, index, index) -> ()
  return
}"""
    module = parse(k)
    x = RNG.standard_normal(512).astype(np.float32)
    with pytest.raises(npu.NpuSanitizerError, match="nothing orders the two"):
        npu.launch(parse(k), (x, np.zeros_like(x)), 1, "small")
    pass_ = NpuInsertSyncPass()
    pass_.run(module)
    assert [str(p) for p in pass_.pairs] == [
        "MTE2 -> V event 0: line 6 -> line 8", "V -> MTE3 event 0: line 8 -> line 10",
    ]  # fmt: skip
    assert pass_.statistics["flags inserted"] == 2
    y = np.zeros_like(x)
    npu.launch(module, (x, y), 1, "small")
    np.testing.assert_allclose(y, 2 * x)


def kernels():
    x = RNG.standard_normal(4 * 4 * 2048).astype(np.float16)
    y = RNG.standard_normal(x.size).astype(np.float16)
    s = RNG.standard_normal((37, 256)).astype(np.float32)
    e = np.exp(s - s.max(-1, keepdims=True))
    a = RNG.standard_normal((128, 512)).astype(np.float16)
    b = RNG.standard_normal((512, 256)).astype(np.float16)
    return {
        "vector_add": (vector_add, (x, y, np.zeros_like(x), 2048, 2), 2, x + y),
        "softmax_rows": (
            softmax_rows,
            (s, np.zeros_like(s), 4, 2),
            1,
            e / e.sum(-1, keepdims=True),
        ),  # fmt: skip
        "cube_matmul": (
            cube_matmul,
            (a, b, np.zeros((128, 256), np.float32)),
            2,
            a.astype(np.float32) @ b.astype(np.float32),
        ),  # fmt: skip
    }


@pytest.mark.parametrize("name", ["vector_add", "softmax_rows", "cube_matmul"])
def test_a_kernel_stripped_of_its_flags_is_made_hazard_free(name):
    kernel, args, out, expected = kernels()[name]
    bare = without_flags(kernel.specialize(*args))
    assert find_needs(bare.body.first_op)  # without flags it has hazards
    pairs = insert_sync(bare.body.first_op)
    assert pairs and not find_needs(bare.body.first_op)  # and then none
    given = [a.copy() for a in arrays(args)]
    npu.launch(bare, given, 4, "910b2")  # the sanitizer is on
    np.testing.assert_allclose(given[out], expected, rtol=2e-3, atol=2e-2)


def test_a_kernel_whose_queues_sync_it_gets_nothing():
    kernel, args, _, _ = kernels()["vector_add"]
    module = parse(str(kernel.specialize(*args)))
    assert insert_sync(module.body.first_op) == []


LOOP = """
func.func @k(%x: memref<4096xf32>, %y: memref<4096xf32>) attributes {npu.kernel_type = "aiv"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c512 = arith.constant 512 : index
  %s = arith.constant 3.0 : f32
  %ub = "npu.alloc"() {offset = 0 : i64} : () -> memref<512xf32, "ub">
  scf.for %i = %c0 to %c8 step %c1 {
    %o = arith.muli %i, %c512 : index
    "npu.copy"(%x, %ub, %o, %c0) {burst_len = 512 : i64}
        : (memref<4096xf32>, memref<512xf32, "ub">, index, index) -> ()
    "npu.vmuls"(%ub, %ub, %c0, %c0, %s) {repeat = 8 : i64}
        : (memref<512xf32, "ub">, memref<512xf32, "ub">, index, index, f32) -> ()
    "npu.copy"(%ub, %y, %c0, %o) {burst_len = 512 : i64}
        : (memref<512xf32, "ub">, memref<4096xf32>, index, index) -> ()
  }
  return
}"""


def test_a_buffer_reused_by_the_next_iteration_gets_a_loop_carried_pair():
    module = parse(LOOP)
    pairs = insert_sync(module.body.first_op)
    carried = [p for p in pairs if p.need.loop_carried]
    assert {(p.need.src, p.need.dst) for p in carried} == {("MTE3", "MTE2")}
    ops = [op.name for op in module.body.first_op.entry_block.ops]
    loop = ops.index("scf.for")
    assert ops[loop - 1] == "npu.set_flag" and ops[loop + 1] == "npu.wait_flag"  # prime, drain
    x = RNG.standard_normal(4096).astype(np.float32)
    y = np.zeros_like(x)
    npu.launch(module, (x, y), 1, "small")
    np.testing.assert_allclose(y, 3 * x)


def test_without_the_loop_carried_pair_mte2_runs_ahead_of_the_copy_out():
    module = parse(LOOP)
    for pair in insert_sync(module.body.first_op):
        assert pair.need.src != pair.need.dst
    for op in list(module.walk()):  # take the MTE3 -> MTE2 flags back out
        if op.name in FLAGS and op.attributes["src"].value == "MTE3":
            op.detach()
    x = RNG.standard_normal(4096).astype(np.float32)
    with pytest.raises(npu.NpuSanitizerError) as caught:  # MTE2 races ahead of MTE3
        npu.launch(module, (x, np.zeros_like(x)), 1, "small")
    assert caught.value.kind in ("hazard", "event")


@npu.kernel
def ping_pong(x, y, scale, synced):
    """Two UB buffers in turn, a Python loop (so each tile's ops are their own)."""
    tile = 2048
    pipe = npu.TPipe()
    bufs = [npu.TBuf(), npu.TBuf()]
    for buf in bufs:
        pipe.init_buffer(buf, tile * 2)
    tiles = [buf.get(np.float16) for buf in bufs]
    if synced:
        npu.set_flag("MTE3", "MTE2", 0)
        npu.set_flag("MTE3", "MTE2", 1)
    for t in range(x.size // tile):
        u, slot = tiles[t % 2], t % 2
        if synced:
            npu.wait_flag("MTE3", "MTE2", slot)
        npu.data_copy(u, x[t * tile], tile)
        if synced:
            npu.set_flag("MTE2", "V", slot)
            npu.wait_flag("MTE2", "V", slot)
        npu.muls(u, u, scale, tile)
        if synced:
            npu.set_flag("V", "MTE3", slot)
            npu.wait_flag("V", "MTE3", slot)
        npu.data_copy(y[t * tile], u, tile)
        if synced:
            npu.set_flag("MTE3", "MTE2", slot)
    if synced:
        npu.wait_flag("MTE3", "MTE2", 0)
        npu.wait_flag("MTE3", "MTE2", 1)


def test_the_pairs_it_inserts_keep_a_ping_pong_overlapping():
    x = RNG.standard_normal(8 * 2048).astype(np.float16)
    hand = npu.launch(ping_pong, (x, np.zeros_like(x), 0.5, True), 1, "910b2")
    module = parse(str(ping_pong.specialize(x, x, 0.5, False)))
    insert_sync(module.body.first_op)
    y = np.zeros_like(x)
    auto = npu.launch(module, (x, y), 1, "910b2")
    np.testing.assert_array_equal(y, (x * np.float16(0.5)).astype(np.float16))
    assert auto.cycles <= 1.05 * hand.cycles


def test_too_many_pairs_in_flight_is_an_error_naming_the_pipes():
    copies = "\n".join(
        f'  %b{i} = "npu.alloc"() {{offset = {i * 256} : i64}} : () -> memref<128xf16, "ub">\n'
        f'  "npu.copy"(%x, %b{i}, %c0, %c0) {{burst_len = 128 : i64}}'
        ' : (memref<128xf16>, memref<128xf16, "ub">, index, index) -> ()'
        for i in range(9)
    )
    uses = "\n".join(
        f'  "npu.vadds"(%b{i}, %b{i}, %c0, %c0, %s) {{repeat = 1 : i64}}'
        ' : (memref<128xf16, "ub">, memref<128xf16, "ub">, index, index, f16) -> ()'
        for i in range(9)
    )
    module = parse(
        'func.func @k(%x: memref<128xf16>) attributes {npu.kernel_type = "aiv"} {\n'
        "  %c0 = arith.constant 0 : index\n  %s = arith.constant 1.0 : f16\n"
        f"{copies}\n{uses}\n  return\n}}"
    )
    with pytest.raises(ValueError, match=r"more than 8 flags MTE2 -> V in flight"):
        insert_sync(module.body.first_op)

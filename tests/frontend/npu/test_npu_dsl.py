"""The Ascend-C-style DSL: what a kernel records, how queues become flags, and the
errors a kernel's author gets (each naming the kernel's line)."""

from __future__ import annotations

import numpy as np
import pytest

from tinycomp import npu
from tinycomp.frontend.npu import NpuKernelError


def names(module, kind="npu."):
    """The op names of the kernel's body, in order (nested ops included)."""
    func = module.body.first_op
    return [op.name for op in func.walk() if op.name.startswith(kind)]


def flags(module):
    """``(op, src, dst)`` of every flag op, in program order."""
    func = module.body.first_op
    return [
        (op.name.split(".")[1], op.attributes["src"].value, op.attributes["dst"].value)
        for op in func.walk()
        if op.name in ("npu.set_flag", "npu.wait_flag")
    ]


@npu.kernel
def copy_through(x, y, n, buffers):
    pipe = npu.TPipe()
    queue = npu.TQue(npu.VECIN)
    pipe.init_buffer(queue, buffers, n * 2)
    t = queue.alloc_tensor(np.float16)
    npu.data_copy(t, x, n)
    queue.enque(t)
    t = queue.deque()
    npu.set_flag("V", "MTE3", 0)
    npu.wait_flag("V", "MTE3", 0)
    npu.data_copy(y, t, n)
    queue.free_tensor(t)


def test_a_queue_is_its_flags():
    x = np.zeros(256, np.float16)
    module = copy_through.specialize(x, x.copy(), 256, 1)
    assert flags(module) == [
        ("set_flag", "V", "MTE2"),  # init_buffer: the buffer starts free
        ("wait_flag", "V", "MTE2"),  # alloc_tensor: wait until it is free
        ("set_flag", "MTE2", "V"),  # enque: filled
        ("wait_flag", "MTE2", "V"),  # deque: wait until filled
        ("set_flag", "V", "MTE3"),
        ("wait_flag", "V", "MTE3"),
        ("set_flag", "V", "MTE2"),  # free_tensor
        ("wait_flag", "V", "MTE2"),  # the end of the kernel: the last free is taken
    ]


def test_the_kernel_runs_and_matches():
    rng = np.random.default_rng(1)
    x = rng.standard_normal(256).astype(np.float16)
    y = np.zeros_like(x)
    npu.launch(copy_through, (x, y, 256, 1), block_num=1, preset="small")
    np.testing.assert_array_equal(y, x)


def test_specialisations_are_cached_per_types_and_python_values():
    x = np.zeros(256, np.float16)
    first = copy_through.specialize(x, x.copy(), 256, 1)
    assert copy_through.specialize(np.ones(256, np.float16), x, 256, 1) is first
    assert copy_through.specialize(x, x.copy(), 256, 2) is not first


@npu.kernel
def ping_pong(x, y, tile, buffers):
    pipe = npu.TPipe()
    in_q, out_q = npu.TQue(npu.VECIN), npu.TQue(npu.VECOUT)
    pipe.init_buffer(in_q, buffers, tile * 4)
    pipe.init_buffer(out_q, buffers, tile * 4)
    for i in npu.range(x.size // tile):
        t = in_q.alloc_tensor(np.float32)
        npu.data_copy(t, x[i * tile], tile)
        in_q.enque(t)
        t = in_q.deque()
        u = out_q.alloc_tensor(np.float32)
        npu.adds(u, t, 1.0, tile)
        out_q.enque(u)
        in_q.free_tensor(t)
        u = out_q.deque()
        npu.data_copy(y[i * tile], u, tile)
        out_q.free_tensor(u)


@pytest.mark.parametrize("buffers", [1, 2, 3])
def test_a_range_loop_carries_each_queues_turn(buffers):
    rng = np.random.default_rng(buffers)
    x = rng.standard_normal(64 * 7).astype(np.float32)
    y = np.zeros_like(x)
    module = ping_pong.specialize(x, y, 64, buffers)
    loop = next(op for op in module.body.first_op.walk() if op.name == "scf.for")
    assert len(loop.results) == (2 if buffers > 1 else 0)  # one turn counter per queue
    npu.launch(ping_pong, (x, y, 64, buffers), block_num=1, preset="small")
    np.testing.assert_allclose(y, x + 1.0, rtol=1e-6)


def test_double_buffering_overlaps_the_pipes():
    x = np.random.default_rng(0).standard_normal(2048 * 16).astype(np.float32)
    single = npu.launch(ping_pong, (x, np.zeros_like(x), 2048, 1), 1, "small").cycles
    double = npu.launch(ping_pong, (x, np.zeros_like(x), 2048, 2), 1, "small").cycles
    assert double < single


def test_a_python_range_unrolls_and_a_value_of_the_chip_cannot_drive_it():
    @npu.kernel
    def bad(x):
        for _ in range(npu.block_idx()):
            pass

    with pytest.raises(NpuKernelError, match=r"kernel 'bad', .*test_npu_dsl.py:\d+.*npu.range"):
        bad.specialize(np.zeros(8, np.float32))


def test_a_python_if_on_a_chip_value_says_to_use_npu_if():
    @npu.kernel
    def bad(x):
        if npu.block_idx() < 2:
            pass

    with pytest.raises(NpuKernelError, match=r"npu.if_") as caught:
        bad.specialize(np.zeros(8, np.float32))
    assert "if npu.block_idx() < 2:" in str(caught.value)  # the line is quoted


def test_npu_if_records_scf_if_and_runs_only_where_true():
    @npu.kernel
    def first_block_only(y):
        pipe = npu.TPipe()
        out = npu.TQue(npu.VECOUT)
        pipe.init_buffer(out, 1, 256)
        t = out.alloc_tensor(np.float32)
        npu.duplicate(t, 5.0, 64)
        out.enque(t)
        t = out.deque()
        with npu.if_(npu.block_idx() == 0):
            npu.data_copy(y, t, 64)
        out.free_tensor(t)

    y = np.zeros(64, np.float32)
    module = first_block_only.specialize(y)
    assert "scf.if" in [op.name for op in module.body.first_op.walk()]
    npu.launch(first_block_only, (y,), block_num=2, preset="small")
    assert (y == 5.0).all()


def test_a_count_too_big_for_the_tensor_is_an_error_at_its_line():
    @npu.kernel
    def too_many(x):
        pipe = npu.TPipe()
        buf = npu.TBuf()
        pipe.init_buffer(buf, 256)
        t = buf.get(np.float32)
        npu.duplicate(t, 1.0, 65)

    with pytest.raises(NpuKernelError, match=r"65 elements do not fit a local tensor of 64"):
        too_many.specialize(np.zeros(8, np.float32))


def test_a_vector_instruction_over_255_repeats_is_several():
    @npu.kernel
    def fill(y):
        pipe = npu.TPipe()
        buf = npu.TBuf()
        pipe.init_buffer(buf, 301 * 256)
        npu.duplicate(buf.get(np.float32), 2.0, 300 * 64 + 10)

    module = fill.specialize(np.zeros(8, np.float32))
    dups = [op for op in module.body.first_op.walk() if op.name == "npu.vdup"]
    assert [(op.repeat, op.mask) for op in dups] == [(255, 64), (45, 64), (1, 10)]


def test_a_dsl_call_outside_a_kernel_says_where_it_belongs():
    with pytest.raises(NpuKernelError, match="inside an @npu.kernel"):
        npu.block_idx()


def test_calling_a_kernel_directly_says_to_launch_it():
    with pytest.raises(TypeError, match=r"npu.launch\(copy_through"):
        copy_through(1, 2)


def test_a_bad_argument_type_is_named():
    with pytest.raises(NpuKernelError, match=r"argument #0: expected an array of .*float64"):
        copy_through.specialize(np.zeros(8), np.zeros(8, np.float16), 8, 1)


def test_ops_carry_the_kernel_lines():
    x = np.zeros(256, np.float16)
    module = copy_through.specialize(x, x.copy(), 256, 1)
    copies = [op for op in module.body.first_op.walk() if op.name == "npu.copy"]
    assert all(op.location is not None and op.location.file.endswith("test_npu_dsl.py")
               for op in copies)  # fmt: skip
    assert copies[0].location.line < copies[1].location.line


def test_a_mix_kernel_is_two_functions():
    @npu.kernel(kernel_type="mix_1_2")
    def halves(x):
        if npu.is_aic():
            npu.cross_core_set_flag(0, mode=2, pipe="S")
        else:
            npu.cross_core_wait_flag(0, mode=2, pipe="S")

    module = halves.specialize(np.zeros(8, np.float32))
    funcs = {op.attributes["sym_name"].value: op for op in module.body.ops}
    assert set(funcs) == {"halves_aic", "halves_aiv"}
    result = npu.launch(halves, (np.zeros(8, np.float32),), block_num=2, preset="small")
    ran = [core.name for core in result.run.cores]
    assert ran == ["AIC 0", "AIV 0.0", "AIV 0.1", "AIC 1", "AIV 1.0", "AIV 1.1"]

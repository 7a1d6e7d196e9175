"""Blocked layouts: every element has one owner per copy, and a thread's elements are
what ``elements_of`` says, for random layouts and tile shapes."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tinycomp.frontend.tile.layout import (
    WARP_SIZE,
    BlockedLayout,
    LayoutError,
    default_layout,
)


@st.composite
def layouts_and_shapes(draw):
    """A 1-D or 2-D layout of up to 4 warps and a power-of-two tile shape."""
    rank = draw(st.integers(1, 2))
    lanes_first = draw(st.integers(0, 5)) if rank == 2 else 5
    warps_log = draw(st.integers(0, 2))
    warps_first = draw(st.integers(0, warps_log)) if rank == 2 else warps_log
    threads = (2**lanes_first, 2 ** (5 - lanes_first))[:rank]
    warps = (2**warps_first, 2 ** (warps_log - warps_first))[:rank]
    sizes = tuple(draw(st.sampled_from([1, 2, 4])) for _ in range(rank))
    order = tuple(draw(st.permutations(range(rank))))
    shape = tuple(draw(st.sampled_from([1, 2, 4, 8, 16])) for _ in range(rank))
    if rank == 1:
        threads, warps = (WARP_SIZE,), (2**warps_log,)
    return BlockedLayout(sizes, threads, warps, order), shape


def holders_of(layout, shape):
    """Every element's ``(warp, lane, register)`` triples, from one pass over the threads."""
    found = {}
    for thread in range(layout.num_warps * WARP_SIZE):
        for register in range(layout.registers(shape)):
            index = layout.index_of(thread, register, shape)
            found.setdefault(index, set()).add((thread // WARP_SIZE, thread % WARP_SIZE, register))
    return found


@settings(max_examples=60, deadline=None)
@given(layouts_and_shapes())
def test_every_element_has_one_owner_per_copy(case):
    layout, shape = case
    copies = layout.replication(shape)
    holders = holders_of(layout, shape)
    first_threads = layout.thread_map(shape)
    assert len(holders) == math.prod(shape)
    for index, triples in holders.items():
        assert len(triples) == copies
        warp, lane, register = layout.owner(index, shape)
        assert (warp, lane, register) in triples
        assert first_threads[index][0] == warp * WARP_SIZE + lane
        assert layout.unwrapped_index(warp * WARP_SIZE + lane, register, shape) == index


@settings(max_examples=60, deadline=None)
@given(layouts_and_shapes(), st.data())
def test_a_threads_elements_are_its_registers(case, data):
    layout, shape = case
    thread = data.draw(st.integers(0, layout.num_warps * WARP_SIZE - 1))
    elements = layout.elements_of(thread, shape)
    assert len(elements) == layout.registers(shape)
    holders = holders_of(layout, shape)
    for register, index in enumerate(elements):
        assert (thread // WARP_SIZE, thread % WARP_SIZE, register) in holders[index]
    assert layout.owners(elements[0], shape) == sorted(holders[elements[0]])


def test_triton_two_warp_picture():
    layout = BlockedLayout((2, 2), (8, 4), (1, 2), (1, 0))
    rows = layout.table((16, 16)).splitlines()
    assert rows[0].split() == "0 0 1 1 2 2 3 3 32 32 33 33 34 34 35 35".split()
    assert rows[2].split()[:2] == ["4", "4"]
    assert rows[15].split()[-1] == "63"


def test_an_uncovered_shape_names_shape_and_layout():
    layout = BlockedLayout((4,), (32,), (4,), (0,))
    with pytest.raises(LayoutError, match=r"shape \(96,\).*sizePerThread = \[4\]"):
        layout.registers((96,))


@pytest.mark.parametrize(
    "fields, expected",
    [
        (((1,), (16,), (1,), (0,)), "multiply to 32, got 16"),
        (((1, 1), (32,), (1,), (0,)), "one length"),
        (((1,), (32,), (1,), (1,)), "permutation"),
    ],
)
def test_malformed_layouts(fields, expected):
    with pytest.raises(LayoutError, match=expected):
        BlockedLayout(*fields)


@pytest.mark.parametrize(
    "shape, warps, bits, per_thread",
    [
        ((1024,), 4, 32, (4,)),
        ((1024,), 4, 16, (8,)),
        ((64,), 4, 32, (1,)),
        ((16, 64), 2, 32, (1, 4)),
    ],
)
def test_default_layout_gives_128_bit_accesses_where_the_tile_allows(
    shape, warps, bits, per_thread
):
    layout = default_layout(shape, warps, bits)
    assert layout.size_per_thread == per_thread
    assert layout.num_warps == warps
    layout.check_covers(shape)

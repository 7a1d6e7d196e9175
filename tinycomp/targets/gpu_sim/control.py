"""Structured control flow under active masks: ``scf.if``, ``scf.for``, ``scf.while``, and
the kernel body's early exits (``cf.cond_br`` to a block that only returns).

1. ``scf.if`` with a uniform condition runs one side under the same mask; with a
   per-lane condition it runs *then* under ``mask & c`` and *else* under ``mask & ~c``,
   skipping a side no lane takes, and merges the results with ``np.where``. Both sides
   reconverge at the end of the op (its immediate post-dominator).
2. ``scf.for`` with uniform bounds is a Python loop over ints (the induction variable
   stays uniform, the body's mask stays the same object, so its statistics are cached).
   A loop ptxas unrolls (constant bounds, few iterations: ``emitted_code.py``) tests
   and branches nothing.
   With per-lane bounds every lane runs until its own bound, masked out once done; the
   carried values of a lane stop changing when it leaves.
3. ``scf.while`` runs *before* under the lanes still looping; lanes whose condition is
   false leave with the forwarded values; *after* runs under the others.
4. The body's blocks run in order, each under the lanes that branched to it; a lane that
   reaches ``gpu.return`` has *exited* (barriers no longer wait for it).

Every branch (an ``scf.if``, each loop-condition test, a ``cf.cond_br``) counts once per
warp with an active lane in ``branches``, and in ``divergent_branches`` when the warp
has lanes on both sides.

>>> sorted(CONTROL_COMPILERS)
['scf.for', 'scf.if', 'scf.while']
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tinycomp.ir.block import Block
from tinycomp.ir.operation import Operation
from tinycomp.targets.gpu_sim.context import ChunkState, Contribution
from tinycomp.targets.gpu_sim.lanes import Mask

__all__ = ["CONTROL_COMPILERS", "branch_contribution", "count_divergence", "run_body_blocks"]

OpFn = Callable[[ChunkState, Mask], None]


def branch_contribution(m: Mask, issued: bool) -> Contribution:
    """``branches`` per active warp (and, for a loop test, its instruction too)."""
    key = ("branch", issued)
    contribution = m.cache.get(key)
    if contribution is None:
        items: list[tuple[str, Any]] = [("branches", m.warps_per_block)]
        if issued:
            items += [("inst_branch", m.warps_per_block), ("lane_instructions", m.lanes_per_block)]
        contribution = Contribution(items)
        m.cache[key] = contribution
    return contribution


def count_divergence(st: ChunkState, taken: Mask, other: Mask) -> None:
    """Add the warps with lanes on both sides to ``divergent_branches``."""
    both = taken.warp_any & other.warp_any
    if both.any():
        st.add("divergent_branches", both.reshape(st.lanes.blocks, -1).sum(1))


def compile_if(c: Any, op: Operation) -> OpFn:
    """``scf.if %c -> (T) { ... scf.yield } else { ... }``."""
    cond = c.slot(op.operands[0])
    sides = [c.compile_block(r.blocks[0]) if r.blocks else None for r in op.regions]
    then_side, else_side = sides[0], sides[1] if len(sides) > 1 else None
    results = [c.slot(r) for r in op.results]

    def yields(side: Any, st: ChunkState) -> list[Any]:
        return [st.v[s] for s in side.yields]

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        k = v[cond]
        st.tally(branch_contribution(m, issued=False))
        if type(k) is not np.ndarray:
            side = then_side if k else else_side
            if side is not None:
                side.run(st, m)
                for slot, value in zip(results, yields(side, st), strict=True):
                    v[slot] = value
            return
        taken, other = m.restrict(k), m.without(k)
        count_divergence(st, taken, other)
        then_values = else_values = None
        if taken.any:
            then_side.run(st, taken)
            then_values = yields(then_side, st)
        if else_side is not None and other.any:
            else_side.run(st, other)
            else_values = yields(else_side, st)
        if not results:
            return
        if then_values is not None and else_values is not None:
            for slot, a, b in zip(results, then_values, else_values, strict=True):
                v[slot] = np.where(k if np.ndim(a) < 2 else k[:, None], a, b)
        else:
            for slot, value in zip(results, then_values or else_values or [], strict=True):
                v[slot] = value

    return run


def _loop_test(st: ChunkState, tested: Mask, continuing: np.ndarray) -> None:
    st.tally(branch_contribution(tested, issued=True))
    leaving = tested.without(continuing)
    if leaving.any and bool(continuing.any()):
        count_divergence(st, Mask(continuing, st.lanes), leaving)


def compile_for(c: Any, op: Operation) -> OpFn:
    """``scf.for %i = %lb to %ub step %s iter_args(...)``."""
    lb, ub, step = (c.slot(x) for x in op.operands[:3])
    inits = [c.slot(x) for x in op.operands[3:]]
    block = op.regions[0].blocks[0]
    iv, args = c.slot(block.arguments[0]), [c.slot(a) for a in block.arguments[1:]]
    body = c.compile_block(block)
    results = [c.slot(r) for r in op.results]
    count_steps = c.run.count_steps
    tests = 0 if op in c.emitted.unrolled else 1

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        lo, hi, s = v[lb], v[ub], v[step]
        carried = [v[x] for x in inits]
        if (s <= 0).any() if type(s) is np.ndarray else s <= 0:
            raise c.run.error("arithmetic", op, f"expected a positive loop step, got {s}")
        if type(lo) is not np.ndarray and type(hi) is not np.ndarray and type(s) is not np.ndarray:
            trips = range(int(lo), int(hi), int(s))
            count_steps(op, len(trips))
            if tests:
                st.tally(branch_contribution(m, issued=True), len(trips) + 1)
            if body.issued and trips:  # the same mask every iteration: tally them at once
                st.tally(body.contribution(m), len(trips))
            fns, yields = body.fns, body.yields
            for i in trips:
                v[iv] = i
                for slot, value in zip(args, carried, strict=True):
                    v[slot] = value
                for fn in fns:
                    fn(st, m)
                carried = [v[y] for y in yields]
        else:
            total = st.lanes.total
            index = np.broadcast_to(np.asarray(lo, np.int64), (total,))
            stop = np.broadcast_to(np.asarray(hi, np.int64), (total,))
            active = m.bool_array() & (index < stop)
            tested = m
            while True:
                _loop_test(st, tested, active)
                if not active.any():
                    break
                count_steps(op, 1)
                inside = Mask(active, st.lanes)
                v[iv] = index
                for slot, value in zip(args, carried, strict=True):
                    v[slot] = value
                body.run(st, inside)
                carried = [
                    np.where(active if np.ndim(new) < 2 else active[:, None], new, old)
                    for new, old in zip((v[y] for y in body.yields), carried, strict=True)
                ]
                index = index + s
                tested, active = inside, active & (index < stop)
        for slot, value in zip(results, carried, strict=True):
            v[slot] = value

    return run


def compile_while(c: Any, op: Operation) -> OpFn:
    """``scf.while (%a = %init) : (T) -> (T) { scf.condition(%c) %a } do { scf.yield }``."""
    inits = [c.slot(x) for x in op.operands]
    before_block, after_block = op.regions[0].blocks[0], op.regions[1].blocks[0]
    before, after = c.compile_block(before_block), c.compile_block(after_block)
    before_args = [c.slot(a) for a in before_block.arguments]
    after_args = [c.slot(a) for a in after_block.arguments]
    condition = before_block.terminator
    cond, forwarded = c.slot(condition.operands[0]), [c.slot(x) for x in condition.operands[1:]]
    results = [c.slot(r) for r in op.results]
    count_steps = c.run.count_steps

    def run(st: ChunkState, m: Mask) -> None:
        v = st.v
        carried = [v[x] for x in inits]
        out: list[Any] = [None] * len(results)
        mask = m
        while True:
            count_steps(op, 1)
            for slot, value in zip(before_args, carried, strict=True):
                v[slot] = value
            before.run(st, mask)
            k, values = v[cond], [v[f] for f in forwarded]
            if type(k) is not np.ndarray:
                going = mask.bool_array() if k else np.zeros(st.lanes.total, bool)
            else:
                going = mask.bool_array() & k
            _loop_test(st, mask, going)
            leaving = mask.without(going)
            if leaving.any:
                for i, value in enumerate(values):
                    chosen = leaving.bool_array()
                    pick = chosen if np.ndim(value) < 2 else chosen[:, None]
                    out[i] = value if out[i] is None else np.where(pick, value, out[i])
            if not going.any():
                break
            mask = mask if not leaving.any else Mask(going, st.lanes)
            for slot, value in zip(after_args, values, strict=True):
                v[slot] = value
            after.run(st, mask)
            carried = [v[y] for y in after.yields]
        for slot, value in zip(results, out, strict=True):
            v[slot] = value

    return run


def run_body_blocks(c: Any, blocks: list[Block]) -> OpFn:
    """The kernel body: blocks in order, each under the lanes that reach it."""
    index = {block: i for i, block in enumerate(blocks)}
    compiled = [c.compile_block(block) for block in blocks]
    plans: list[tuple[str, Any, list[tuple[int, list[int], list[int]]]]] = []
    for i, block in enumerate(blocks):
        term = block.terminator
        name = term.name if term is not None else ""
        targets = []
        for k, succ in enumerate(term.successors if term is not None else ()):
            if index[succ] <= i:
                raise c.unsupported(term, "the simulator runs acyclic kernel bodies only")
            values = term.successor_operands(k) if hasattr(term, "successor_operands") else ()
            targets.append(
                (index[succ], [c.slot(x) for x in values], [c.slot(a) for a in succ.arguments])
            )
        cond = c.slot(term.operands[0]) if name == "cf.cond_br" else None
        plans.append((name, cond, targets))

    def run(st: ChunkState, m: Mask) -> None:
        arrivals: list[Mask | None] = [m] + [None] * (len(blocks) - 1)
        for i, side in enumerate(compiled):
            here = arrivals[i]
            if here is None or not here.any:
                continue
            side.run(st, here)
            name, cond, targets = plans[i]
            if name == "gpu.return" or not targets:
                done = here.bool_array()
                st.exited = done.copy() if st.exited is None else st.exited | done
                continue
            masks = [here]
            if cond is not None:
                k = st.v[cond]
                st.tally(branch_contribution(here, issued=False))
                if type(k) is np.ndarray:
                    masks = [here.restrict(k), here.without(k)]
                    count_divergence(st, masks[0], masks[1])
                else:
                    nobody = Mask(np.zeros(st.lanes.total, bool), st.lanes)
                    masks = [here, nobody] if k else [nobody, here]
            for (target, values, params), sent in zip(targets, masks, strict=True):
                if not sent.any:
                    continue
                previous = arrivals[target]
                incoming = [st.v[x] for x in values]
                if previous is None:
                    arrivals[target] = sent
                    for slot, value in zip(params, incoming, strict=True):
                        st.v[slot] = value
                else:
                    pick = sent.bool_array()
                    arrivals[target] = Mask(previous.bool_array() | pick, st.lanes)
                    for slot, value in zip(params, incoming, strict=True):
                        st.v[slot] = np.where(pick, value, st.v[slot])

    return run


CONTROL_COMPILERS = {"scf.if": compile_if, "scf.for": compile_for, "scf.while": compile_while}
"""Op name -> compiler of its closure."""

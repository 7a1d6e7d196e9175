"""The greedy pattern driver: apply patterns and folding until nothing changes.

``apply_patterns_greedily(root, patterns)`` is MLIR's ``GreedyPatternRewriteDriver``
(the engine behind ``canonicalize``). The algorithm:

1. Seed the worklist with every op nested in ``root``, in program order (pre-order:
   parents before children). On the way, keep one constant per value and move the
   constants to the top of their function (``constants.py``).
2. Pop an op (the worklist is a stack: the most recently pushed op comes first):
   a. if it is trivially dead (unused and free of side effects), erase it;
   b. otherwise try to fold it (``folding.py``): replace it by existing values or new
      constants;
   c. otherwise try the patterns whose ``root`` is its name (or any op), highest
      ``benefit`` first; the first that returns ``True`` wins.
3. Every change goes through the ``PatternRewriter``, which tells the driver: new and
   modified ops are pushed (with their enclosing ops, which may now simplify), the
   users of replaced values are pushed, an erased op leaves the worklist and the ops
   that defined its operands are pushed (they may have become dead).
4. When the worklist is empty, one *iteration* is over. If anything changed, go back
   to 1 (the new IR may offer new matches); stop when an iteration changes nothing.
5. If iteration ``max_iterations`` still changed something, or one iteration made more
   than ``max_rewrites`` rewrites, the patterns do not converge (two patterns undoing
   each other, typically): raise a ``RewriteError`` naming the patterns that kept
   firing, on which ops, and how often.

>>> from tinycomp.ir import parse
>>> m = parse('''
... func.func @f(%x: i32) -> i32 {
...   %c2 = arith.constant 2 : i32
...   %c3 = arith.constant 3 : i32
...   %six = arith.muli %c2, %c3 : i32
...   %dead = arith.addi %x, %x : i32
...   %y = arith.addi %x, %six : i32
...   return %y : i32
... }''')
>>> result = apply_patterns_greedily(m, [])
>>> print(m.body.first_op)
func.func @f(%x: i32) -> i32 {
  %c6_i32 = arith.constant 6 : i32
  %y = arith.addi %x, %c6_i32 : i32
  return %y : i32
}
>>> result.changed, result.iterations, dict(result.rewrites)
(True, 2, {('folding', 'arith.muli'): 1})
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from tinycomp.ir.operation import Operation
from tinycomp.ir.values import Value
from tinycomp.rewrite.constants import ConstantUniquer, materialize_constant
from tinycomp.rewrite.errors import RewriteError
from tinycomp.rewrite.folding import fold_op
from tinycomp.rewrite.pattern import RewritePattern
from tinycomp.rewrite.rewriter import PatternRewriter, RewriteListener
from tinycomp.rewrite.traits import is_constant_op, is_trivially_dead
from tinycomp.rewrite.worklist import Worklist

__all__ = ["FOLDING", "GreedyRewriteResult", "apply_patterns_greedily"]

FOLDING = "folding"
"""The name under which folds are counted in ``GreedyRewriteResult.rewrites``."""

Firings = Counter[tuple[str, str]]
"""How many times each ``(pattern name, op name)`` pair rewrote something."""


@dataclass
class GreedyRewriteResult:
    """What a converged run of the greedy driver did."""

    changed: bool
    """True if the IR changed at all."""
    iterations: int
    """How many sweeps over the IR were made (the last one changed nothing)."""
    rewrites: Firings = field(default_factory=Counter)
    """Successful rewrites, by ``(pattern name, op name)``; folds count as ``"folding"``."""

    def summary(self) -> str:
        """One line per pattern that fired, most frequent first.

        >>> print(GreedyRewriteResult(True, 2, Counter({("AddZero", "arith.addi"): 3})).summary())
        AddZero: 3 on arith.addi
        """
        return "\n".join(_describe_firings(self.rewrites, style="summary"))


def apply_patterns_greedily(
    root: Operation,
    patterns: Sequence[RewritePattern],
    max_iterations: int = 10,
    max_rewrites: int | None = None,
    fold: bool = True,
    cse_constants: bool = True,
) -> GreedyRewriteResult:
    """Rewrite the ops nested in ``root`` with ``patterns`` and folding until nothing
    changes (see the module docstring for the algorithm).

    ``max_iterations`` caps the sweeps; ``max_rewrites`` caps the rewrites of a single
    sweep (by default ten per op in the IR at its start, plus 100). ``fold`` turns
    folding off; ``cse_constants`` turns off keeping constants unique and at the top.
    Raises ``RewriteError`` if the patterns do not converge within the caps.
    """
    if max_iterations < 1:
        raise RewriteError(f"expected max_iterations >= 1, got {max_iterations}")
    driver = _GreedyDriver(root, patterns, fold=fold, cse_constants=cse_constants)
    return driver.run(max_iterations, max_rewrites)


class _GreedyDriver(RewriteListener):
    """One run of the algorithm; it listens to its own rewriter (step 3)."""

    def __init__(
        self, root: Operation, patterns: Sequence[RewritePattern], fold: bool, cse_constants: bool
    ) -> None:
        self.root = root
        self.patterns = list(patterns)
        self.fold = fold
        self.constants = ConstantUniquer() if cse_constants else None
        self.worklist = Worklist()
        self.rewriter = PatternRewriter(self)
        self._patterns_by_name: dict[str, list[RewritePattern]] = {}

    # -- steps 1, 4 and 5 --------------------------------------------------------------------
    def run(self, max_iterations: int, max_rewrites: int | None) -> GreedyRewriteResult:
        total: Firings = Counter()
        changed_at_all = False
        for iteration in range(1, max_iterations + 1):
            self._seed_worklist()
            budget = max_rewrites if max_rewrites is not None else 10 * len(self.worklist) + 100
            fired: Firings = Counter()
            changed = self._process_worklist(fired, budget, iteration)
            total.update(fired)
            changed_at_all = changed_at_all or changed
            if not changed:
                return GreedyRewriteResult(changed_at_all, iteration, total)
        raise RewriteError(
            f"did not converge after {max_iterations} iterations: patterns still firing: "
            + _still_firing(fired)
        )

    def _seed_worklist(self) -> None:
        for region in self.root.regions:
            for op in region.walk():
                if self.constants is not None and is_constant_op(op):
                    if not self.constants.insert_known_constant(op, self.rewriter):
                        continue  # an equal constant already existed and replaced it
                self.worklist.push(op)
        self.worklist.reverse()  # pop() takes the last one: make it the first op

    # -- step 2 --------------------------------------------------------------------------------
    def _process_worklist(self, fired: Firings, budget: int, iteration: int) -> bool:
        changed = False
        rewrites = 0
        while (op := self.worklist.pop()) is not None:
            if is_trivially_dead(op):
                self.rewriter.erase_op(op)
                changed = True
                continue
            name = op.name
            if self.fold and not is_constant_op(op) and self._try_fold(op):
                fired[FOLDING, name] += 1
            else:
                pattern = self._try_patterns(op)
                if pattern is None:
                    continue
                fired[pattern.name, name] += 1
            changed = True
            rewrites += 1
            if rewrites >= budget and len(self.worklist) > 0:
                raise RewriteError(
                    f"did not converge: iteration {iteration} reached max_rewrites={budget} "
                    "rewrites: patterns still firing: " + _still_firing(fired)
                )
        return changed

    def _try_fold(self, op: Operation) -> bool:
        """Step 2b: replace ``op`` by what its folder says, creating constants as needed."""
        folded = fold_op(op)
        if folded is None:
            return False
        constants: dict[int, Operation] = {}  # result number -> its new arith.constant
        for item, result in zip(folded, op.results, strict=True):
            if not isinstance(item, Value):
                constant = materialize_constant(item, result.type)
                if constant is None:  # a value arith.constant cannot hold: do not fold
                    return False
                constants[result.index] = constant
        self.rewriter.set_current_op(op)
        replacements: list[Value] = []
        for item, result in zip(folded, op.results, strict=True):
            if result.index in constants:
                item = self.rewriter.insert(constants[result.index]).results[0]
            replacements.append(item)
        self.rewriter.replace_op(op, replacements)
        return True

    def _try_patterns(self, op: Operation) -> RewritePattern | None:
        """Step 2c: the first pattern (by benefit) that rewrites ``op``, if any."""
        for pattern in self._patterns_for(op.name):
            self.rewriter.set_current_op(op)
            if pattern.match_and_rewrite(op, self.rewriter):
                return pattern
        return None

    def _patterns_for(self, name: str) -> list[RewritePattern]:
        """Patterns for op ``name`` and for any op, highest benefit first (cached)."""
        found = self._patterns_by_name.get(name)
        if found is None:
            found = [p for p in self.patterns if p.root is None or p.root == name]
            found.sort(key=lambda pattern: -pattern.benefit)  # stable: ties keep their order
            self._patterns_by_name[name] = found
        return found

    # -- step 3: what the rewriter tells us ------------------------------------------------------
    def notify_op_inserted(self, op: Operation) -> None:
        self._add_with_ancestors(op)

    def notify_op_modified(self, op: Operation) -> None:
        self._add_with_ancestors(op)

    def notify_op_replaced(self, op: Operation, new_values: Sequence[Value]) -> None:
        for result in op.results:
            for user in result.users:
                self._add_with_ancestors(user)

    def notify_op_erased(self, op: Operation) -> None:
        for operand in op.operands:
            producer = operand.defining_op()
            if producer is not None and _only_user_is(operand, op):
                self._add_with_ancestors(producer)
        self.worklist.remove(op)
        if self.constants is not None:
            self.constants.notify_erased(op)

    def _add_with_ancestors(self, op: Operation) -> None:
        """Push ``op`` and the ops enclosing it, up to (not including) the root; ops
        outside the root are left alone."""
        chain = []
        current: Operation | None = op
        while current is not None and current is not self.root:
            chain.append(current)
            current = current.parent_op()
        if current is self.root:
            for member in chain:
                self.worklist.push(member)


def _only_user_is(value: Value, op: Operation) -> bool:
    """True when every use of ``value`` is by ``op`` (so erasing ``op`` frees it)."""
    if value.num_uses > len(op.operands):
        return False
    return all(use.user is op for use in value.uses)


def _still_firing(fired: Firings) -> str:
    """The patterns of the last iteration for an error message, or why there are none."""
    if not fired:
        return "none (the last iteration only erased dead ops)"
    return ", ".join(_describe_firings(fired))


def _describe_firings(fired: Firings, style: str = "error") -> list[str]:
    """Per pattern, most frequent first: ``AddZero (3 times on arith.addi)`` (``"error"``
    style) or ``AddZero: 3 on arith.addi`` (``"summary"`` style)."""
    by_pattern: dict[str, Counter[str]] = {}
    for (pattern, op_name), count in fired.items():
        by_pattern.setdefault(pattern, Counter())[op_name] += count
    ordered = sorted(by_pattern.items(), key=lambda item: -sum(item[1].values()))
    lines = []
    for pattern, ops in ordered:
        if style == "summary":
            parts = ", ".join(f"{count} on {op_name}" for op_name, count in ops.most_common())
            lines.append(f"{pattern}: {parts}")
        else:
            parts = ", ".join(
                f"{count} time{'s' if count != 1 else ''} on {op_name}"
                for op_name, count in ops.most_common()
            )
            lines.append(f"{pattern} ({parts})")
    return lines

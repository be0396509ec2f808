"""Stage 5, partition, the one engine: split the input space over rule cubes into a decision DAG.

Rules are cubes (one bitmask per input). A split reads one input at a time, in table
order, over the rules still alive, and groups that input's values by which of those
rules contain them; it never enumerates the Cartesian product. Each DAG node is keyed
by its level and the alive rules that can still matter, and identical sub-problems are
shared. What "can still matter" is what keeps the DAG small: a split that answers the
first `keep` matching rules drops every rule after the `keep`-th rule that already
covers the rest of the region (a rule that settles the answer), so chains of rules that
each add one condition (rule i: x_i = true, then a catch-all) give O(n * keep) nodes
instead of 2^n. Every node and every reported pair is paid from an explicit `Budget`.
"""

from __future__ import annotations

import bisect

from .record import Record
from .refine import Cube, refine

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Iterator, Sequence

#: Work one analysis may do before it stops with `BudgetExceeded`: each DAG node costs
#: one step per rule alive at it and per rule it hands to a child (what building it
#: reads and keeps in memory), each reported pair of overlapping rules one step.
DEFAULT_BUDGET = 2_000_000


class BudgetExceeded(Exception):
    """The analysis needed more nodes than its budget (the caller turns this into a finding)."""

    def __init__(self, limit: int, what: str):
        super().__init__(f"{what}: more than {limit:,} steps")
        self.limit = limit
        self.what = what


class Budget:
    """The steps an analysis may take, and those it has taken."""

    def __init__(self, limit: int = DEFAULT_BUDGET, used: int = 0):
        self.limit = limit
        self.used = used

    def __repr__(self) -> str:
        return f"Budget(limit={self.limit}, used={self.used})"

    def spend(self, amount: int = 1, what: str = "splitting the input space") -> None:
        self.used += amount
        if self.used > self.limit:
            raise BudgetExceeded(self.limit, what)


class Leaf:
    """Every point below has `matched` as its first matching rules (indices, table order).
    A DAG node is itself (compared by identity), never changed once built."""

    __slots__ = ("matched",)

    def __init__(self, matched: tuple[int, ...]):
        self.matched = matched


class Branch:
    """Read input `level`; `arms` pairs a value mask with the sub-DAG for those values."""

    __slots__ = ("level", "arms")

    def __init__(self, level: int, arms: tuple[tuple[int, Node], ...]):
        self.level = level
        self.arms = arms


Node = Leaf | Branch


def _full_from(cubes: Sequence[Cube], region: Cube) -> list[int]:
    """For each rule, the lowest level from which it covers the region on every input."""
    out = []
    for c in cubes:
        level = len(region)
        while level > 0 and c[level - 1] & region[level - 1] == region[level - 1]:
            level -= 1
        out.append(level)
    return out


_Key = tuple[int, tuple[int, ...]]  # (level, rules alive there)


class _FirstHitBuilder:
    """Builds first-hit DAG nodes into one shared memo. With `seconds` set, it also records,
    for every place a rule becomes the first hit, the key of the DAG that decides there
    when that rule is removed (what `needed_rules` asks), without building it yet."""

    def __init__(self, cubes: Sequence[Cube], region: Cube, budget: Budget, keep: int = 1):
        self.cubes, self.region, self.budget, self.keep = cubes, region, budget, keep
        self.full_from = _full_from(cubes, region)
        self.memo: dict[_Key, Node] = {}
        self.seconds: set[tuple[int, "_Key | Leaf"]] | None = None
        # suffix[r][level]: an id shared by the rules whose cells from `level` on are equal
        n = len(region)
        ids: dict[tuple[int, int], int] = {}
        self.suffix = []
        for c in cubes:
            row = [0] * (n + 1)
            for level in range(n - 1, -1, -1):
                row[level] = ids.setdefault((c[level] & region[level], row[level + 1]), len(ids) + 1)
            self.suffix.append(row)

    def key_of(self, level: int, alive: tuple[int, ...], record: bool = True) -> "_Key | Leaf":
        """The memo key of a node: the alive rules that can still be among the first `keep`
        hits below. Dropped: rules after the `keep`-th one that covers the rest of the
        region (settles), and rules whose remaining cells equal those of `keep` earlier
        rules (rule i = {x_i: true, y: a} for many i: only the first ones can decide)."""
        settled = 0
        copies: dict[int, int] = {}
        kept = []
        for k, r in enumerate(alive):
            sid = self.suffix[r][level]
            if copies.get(sid, 0) >= self.keep:
                continue
            copies[sid] = copies.get(sid, 0) + 1
            kept.append(r)
            if self.full_from[r] <= level:
                if not settled and len(kept) == 1 and record and self.seconds is not None:
                    self.seconds.add((r, self.key_of(level, alive[k + 1:], record=False)))
                settled += 1
                if settled == self.keep:
                    break
        return (level, tuple(kept)) if kept else _GAP

    def root(self) -> "_Key | Leaf":
        n = len(self.region)
        return self.key_of(0, tuple(r for r, c in enumerate(self.cubes)
                                    if all(c[j] & self.region[j] for j in range(n))))

    def build(self, root: "_Key | Leaf") -> Node:
        """The node of `root`, building what the memo lacks with an explicit stack (a
        table with thousands of inputs cannot overflow Python's recursion limit)."""
        if isinstance(root, Leaf):
            return root
        cubes, region, full_from, memo, budget = self.cubes, self.region, self.full_from, self.memo, self.budget
        plans: dict[_Key, tuple[int, list[tuple[int, _Key | Leaf]]]] = {}
        stack: list[_Key] = [root]
        while stack:
            key = stack[-1]
            if key in memo:
                stack.pop()
                continue
            plan = plans.get(key)
            if plan is None:
                level, alive = key
                budget.spend(len(alive))
                if full_from[alive[0]] <= level:
                    memo[key] = Leaf(alive[:1])
                    stack.pop()
                    continue
                while all(cubes[r][level] & region[level] == region[level] for r in alive):
                    level += 1
                groups = refine(cubes, alive, level, region[level], budget.spend)
                budget.spend(sum(map(len, groups)))
                arms = [(mask, self.key_of(level + 1, members)) for members, mask in groups.items()]
                plans[key] = (level, arms)
                stack.extend(c for _, c in arms if not isinstance(c, Leaf) and c not in memo)
                continue
            level, arms = plan
            memo[key] = Branch(level, tuple((mask, c if isinstance(c, Leaf) else memo[c]) for mask, c in arms))
            del plans[key]
            stack.pop()
        return memo[root]


_GAP = Leaf(())


def split(cubes: Sequence[Cube], region: Cube, budget: Budget) -> Node:
    """The first-hit DAG of `cubes` over `region`: each leaf names the first matching rule
    of every point below it, or none (a gap)."""
    builder = _FirstHitBuilder(cubes, region, budget)
    return builder.build(builder.root())


def needed_rules(cubes: Sequence[Cube], outputs: Sequence[str], region: Cube, budget: Budget
                 ) -> tuple[Node, frozenset[int]]:
    """The first-hit DAG and the rules whose removal changes some decision: where rule a
    is the first hit, the first hit among the rules alive after it must decide another
    output (or nothing). Those "after" DAGs share the memo of the first one, so a chain
    (rule i: x_i, then a catch-all) costs O(n^2) steps, not the O(n^3) of tracking the
    first two hits per node."""
    builder = _FirstHitBuilder(cubes, region, budget, keep=2)
    builder.seconds = set()
    root = builder.build(builder.root())
    pending, builder.seconds = builder.seconds, None
    below: dict[int, frozenset[str | None]] = {}
    walked: set[int] = set()  # shared, so nodes under several first hits are walked once

    def outputs_below(node: Node) -> frozenset[str | None]:
        for nd in postorder(node, walked):
            if isinstance(nd, Leaf):
                below[id(nd)] = frozenset([outputs[nd.matched[0]] if nd.matched else None])
            else:
                below[id(nd)] = frozenset().union(*(below[id(child)] for _, child in nd.arms))
        return below[id(node)]

    needed = {a for a, rest in pending if outputs_below(builder.build(rest)) != {outputs[a]}}
    return root, frozenset(needed)


def reachable(root: Node) -> Iterator[Node]:
    """Every node of the DAG once (no path is expanded)."""
    seen: set[int] = set()
    stack = [root]
    while stack:
        nd = stack.pop()
        if id(nd) in seen:
            continue
        seen.add(id(nd))
        yield nd
        if isinstance(nd, Branch):
            stack.extend(child for _, child in nd.arms)


def pieces(root: Node, region: Cube, budget: Budget, wanted: "set[int] | None" = None
           ) -> Iterator[tuple[Cube, Leaf]]:
    """Every leaf with the cube it covers (a partition of `region`); with `wanted`, only
    the paths into nodes whose id is in it."""
    stack: list[tuple[Node, Cube]] = [(root, region)]
    while stack:
        nd, reg = stack.pop()
        if wanted is not None and id(nd) not in wanted:
            continue
        budget.spend(what="listing the pieces of the input space")
        if isinstance(nd, Leaf):
            yield reg, nd
            continue
        for mask, child in reversed(nd.arms):
            mask &= reg[nd.level]  # a DAG built over a larger region, walked inside this one
            if mask:
                stack.append((child, reg[: nd.level] + (mask,) + reg[nd.level + 1:]))


def first_hits(cubes: Sequence[Cube], region: Cube, budget: Budget, *, root: Node | None = None
               ) -> Iterator[tuple[Cube, int | None]]:
    """First-hit decisions over `region`: (piece, index of the first matching rule, or None
    where no rule matches). `root`: the first-hit DAG of `cubes` over `region` or any
    region containing it, when the caller has it already."""
    for reg, leaf in pieces(root or split(cubes, region, budget), region, budget):
        yield reg, (leaf.matched[0] if leaf.matched else None)


def gap_regions(root: Node, region: Cube, budget: Budget) -> list[Cube]:
    """The pieces no rule matches, expanding only the paths that lead to one."""
    has_gap: dict[int, bool] = {}
    for nd in postorder(root):
        if isinstance(nd, Leaf):
            has_gap[id(nd)] = not nd.matched
        else:
            has_gap[id(nd)] = any(has_gap[id(child)] for _, child in nd.arms)
    wanted = {k for k, v in has_gap.items() if v}
    return [reg for reg, leaf in pieces(root, region, budget, wanted) if not leaf.matched]


def postorder(root: Node, done: "set[int] | None" = None) -> Iterator[Node]:
    """Children before parents, each node once (also across calls that share `done`)."""
    done = set() if done is None else done
    stack: list[tuple[Node, bool]] = [(root, False)]
    while stack:
        nd, expanded = stack.pop()
        if id(nd) in done:
            continue
        if expanded or isinstance(nd, Leaf):
            done.add(id(nd))
            yield nd
            continue
        stack.append((nd, True))
        stack.extend((child, False) for _, child in nd.arms if id(child) not in done)


class Overlaps(Record):
    """For each rule, how many earlier rules decide some input with it, and the first few."""

    earliest: dict[int, tuple[int, ...]]
    count: dict[int, int]  # type: ignore[assignment]  # a field, as tuple's count() is a method


def overlaps(cubes: Sequence[Cube], region: Cube, budget: Budget, show: int = 8) -> Overlaps:
    """Every pair of rules that share a point of `region`, as counts and the `show`
    earliest partners per later rule. Rules with identical cubes are one class: a class
    overlaps itself, and the search runs over one representative per class, so 2,000
    copies of a rule cost 2,000 steps, not 2,000,000."""
    n = len(region)
    classes: dict[Cube, list[int]] = {}
    for r, c in enumerate(cubes):
        if all(c[j] & region[j] for j in range(n)):
            classes.setdefault(tuple(c), []).append(r)
    members_of = {members[0]: members for members in classes.values()}
    partners: dict[int, list[int]] = {rep: [rep] for rep in members_of}
    for a, b in _overlapping_pairs(cubes, region, tuple(members_of), budget):
        partners[a].append(b)
        partners[b].append(a)
    result = Overlaps({}, {})
    for rep, members in members_of.items():
        for b in members:
            earlier: list[int] = []
            total = 0
            for other in partners[rep]:
                group = members_of[other]
                below = bisect.bisect_left(group, b)
                total += below
                earlier.extend(group[:min(below, show)])
            if total:
                result.count[b] = total
                result.earliest[b] = tuple(sorted(earlier)[:show])
    return result


def _overlapping_pairs(cubes: Sequence[Cube], region: Cube, reps: tuple[int, ...], budget: Budget
                       ) -> set[tuple[int, int]]:
    """The pairs of `reps` that share a point of `region`, found by splitting on one input at
    a time: a rule whose cube spans every input from this level on meets every rule alive."""
    full_from = _full_from(cubes, region)
    pairs: set[tuple[int, int]] = set()
    seen: set[tuple[int, tuple[int, ...]]] = set()
    stack: list[tuple[int, tuple[int, ...]]] = [(0, reps)]
    while stack:
        level, alive = stack.pop()
        settled = [r for r in alive if full_from[r] <= level]
        if settled:
            budget.spend(len(settled) * len(alive), "pairing overlapping rules")
            for s in settled:
                pairs.update((min(s, a), max(s, a)) for a in alive if a != s)
            alive = tuple(r for r in alive if full_from[r] > level)
        if len(alive) < 2 or (level, alive) in seen:
            continue
        seen.add((level, alive))
        budget.spend(len(alive), "pairing overlapping rules")
        while all(cubes[r][level] & region[level] == region[level] for r in alive):
            level += 1
        groups = refine(cubes, alive, level, region[level], lambda n: budget.spend(n, "pairing overlapping rules"))
        budget.spend(sum(map(len, groups)), "pairing overlapping rules")
        stack += [(level + 1, members) for members in groups if len(members) >= 2]
    return pairs


def merge_regions(regions: list[Cube]) -> list[Cube]:
    """Join disjoint cubes that differ on one input only, until none do (maximal-ish regions).
    One pass per input buckets the cubes by their other inputs, so it is linear per pass."""
    regions = list(dict.fromkeys(regions))
    if not regions:
        return regions
    n = len(regions[0])
    changed = True
    while changed and len(regions) > 1:
        changed = False
        for j in range(n):
            merged: dict[Cube, int] = {}
            for reg in regions:
                rest = reg[:j] + reg[j + 1:]
                merged[rest] = merged.get(rest, 0) | reg[j]
            if len(merged) < len(regions):
                changed = True
                regions = [rest[:j] + (mask,) + rest[j:] for rest, mask in merged.items()]
    return regions


def intersect(a: Cube, b: Cube) -> Cube:
    return tuple(x & y for x, y in zip(a, b))


def is_empty(c: Cube) -> bool:
    return any(m == 0 for m in c)

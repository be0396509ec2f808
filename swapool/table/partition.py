"""Stage 4, the one engine: split a region of the input space into pieces matched by the same rules.

Rules are cubes (one bitmask per input). The split reads one input at a time, in
table order, over the rules still alive, and groups that input's values by which of
those rules contain them; it never enumerates the Cartesian product. Levels where no
alive rule cares are skipped, so the result is also the lazy decision diagram the
runtime walks. Identical sub-problems are shared (memoised on level and alive rules).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Iterator, Sequence, Union

Cube = tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Leaf:
    """Every point below matches exactly `matched` (rule indices, table order)."""

    matched: tuple[int, ...]


@dataclass(frozen=True, eq=False)
class Branch:
    """Read input `level`; `arms` pairs a value mask with the sub-tree for those values."""

    level: int
    arms: tuple[tuple[int, "Node"], ...]


Node = Union[Leaf, Branch]


@functools.lru_cache(maxsize=None)
def bits(mask: int) -> tuple[int, ...]:
    """Indices of the set bits of `mask`, lowest first."""
    out = []
    i = 0
    while mask:
        if mask & 1:
            out.append(i)
        mask >>= 1
        i += 1
    return tuple(out)


def split(cubes: Sequence[Cube], region: Cube, *, first_only: bool = False) -> Node:
    """The decision tree of `cubes` over `region`.

    Exact mode: each leaf lists every rule that matches its whole piece (what gaps,
    overlaps and redundancy need). `first_only`: a leaf is made as soon as the first
    alive rule covers the rest of the piece (what a first-hit decision needs: smaller,
    and it reads the fewest inputs).
    """
    n = len(region)
    alive0 = tuple(r for r, c in enumerate(cubes) if all(c[j] & region[j] for j in range(n)))
    # full_from[r]: the lowest level from which rule r covers the region on every input.
    full_from = []
    for c in cubes:
        level = n
        while level > 0 and c[level - 1] & region[level - 1] == region[level - 1]:
            level -= 1
        full_from.append(level)
    memo: dict[tuple[int, tuple[int, ...]], Node] = {}
    gap = Leaf(())

    def node(level: int, alive: tuple[int, ...]) -> Node:
        if not alive:
            return gap
        key = (level, alive)
        hit = memo.get(key)
        if hit is not None:
            return hit
        if first_only:
            done = full_from[alive[0]] <= level
        else:
            done = all(full_from[r] <= level for r in alive)
        if done:
            result: Node = Leaf(alive[:1] if first_only else alive)
        else:
            while all(cubes[r][level] & region[level] == region[level] for r in alive):
                level += 1
            reg = region[level]
            buckets: dict[int, list[int]] = {v: [] for v in bits(reg)}
            for r in alive:
                m = cubes[r][level] & reg
                for v in bits(m):
                    buckets[v].append(r)
            groups: dict[tuple[int, ...], int] = {}
            for v, members in buckets.items():
                t = tuple(members)
                groups[t] = groups.get(t, 0) | (1 << v)
            result = Branch(level, tuple((mask, node(level + 1, members)) for members, mask in groups.items()))
        memo[key] = result
        return result

    return node(0, alive0)


def pieces(root: Node, region: Cube) -> Iterator[tuple[Cube, Leaf]]:
    """Every leaf with the cube it covers (a partition of `region`)."""
    stack: list[tuple[Node, Cube]] = [(root, region)]
    while stack:
        nd, reg = stack.pop()
        if isinstance(nd, Leaf):
            yield reg, nd
            continue
        for mask, child in reversed(nd.arms):
            stack.append((child, reg[: nd.level] + (mask,) + reg[nd.level + 1:]))


def first_hits(cubes: Sequence[Cube], region: Cube) -> Iterator[tuple[Cube, int | None]]:
    """First-hit decisions over `region`: (piece, index of the first matching rule, or None
    where no rule matches)."""
    for reg, leaf in pieces(split(cubes, region, first_only=True), region):
        yield reg, (leaf.matched[0] if leaf.matched else None)


def merge_regions(regions: list[Cube]) -> list[Cube]:
    """Join cubes that differ on one input only, until none do (maximal-ish regions)."""
    regions = list(dict.fromkeys(regions))
    changed = True
    while changed and len(regions) > 1:
        changed = False
        out: list[Cube] = []
        for reg in regions:
            for i, other in enumerate(out):
                diff = [j for j in range(len(reg)) if reg[j] != other[j]]
                if len(diff) <= 1:
                    if diff:
                        j = diff[0]
                        out[i] = other[:j] + (other[j] | reg[j],) + other[j + 1:]
                    changed = True
                    break
            else:
                out.append(reg)
        regions = out
    return regions


def intersect(a: Cube, b: Cube) -> Cube:
    return tuple(x & y for x, y in zip(a, b))


def is_empty(c: Cube) -> bool:
    return any(m == 0 for m in c)

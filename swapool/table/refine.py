"""One step of the partition: the values of one input grouped by the rules that hold them.

The engine (partition.py) splits the input space one input at a time; at each split it asks
which alive rules contain each value of the region. Narrow inputs (up to 64 values) are
bucketed value by value. Wider ones (an input with thousands of values) are refined rule by
rule as masks while the groups are few, and past that by each value's group, so that a rule
reads only the values on the smaller side of its cell and splits only the groups they are
in: a mask operation on every group for every rule grows with rules x groups x values
(cubic in a table of a rule per value, which this way costs a step per rule)."""

from __future__ import annotations

import functools

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Callable, Iterator, Sequence

#: A rule's cells, one value mask per input (the engine's unit).
Cube = tuple[int, ...]

#: Up to this many values, values are bucketed one by one; past this many groups of a wider
#: input, groups are kept by value.
BUCKET_LIMIT = 64
GROUP_LIMIT = 64


def set_bits(mask: int) -> list[int]:
    """The indices of `mask`'s set bits, lowest first, read off its binary digits in one
    pass: testing each bit, or peeling the lowest, costs a pass over a wide mask (an input
    of thousands of values) for every bit."""
    digits = bin(mask)[:1:-1]
    out = []
    i = digits.find("1")
    while i >= 0:
        out.append(i)
        i = digits.find("1", i + 1)
    return out


@functools.lru_cache(maxsize=4096)
def bits(mask: int) -> tuple[int, ...]:
    """Indices of the set bits of `mask`, lowest first (a narrow mask's, kept: the same
    cells are read again and again)."""
    return tuple(set_bits(mask))


def refine(cubes: Sequence[Cube], alive: Sequence[int], level: int, reg: int,
           spend: Callable[[int], None]) -> dict[tuple[int, ...], int]:
    """The values of `reg` at input `level`, grouped by which alive rules contain them:
    members -> value mask. `spend` is charged a step for each value a rule reads past
    GROUP_LIMIT groups (the caller charges the groups it is handed)."""
    if reg < 1 << BUCKET_LIMIT:
        buckets: dict[int, list[int]] = {v: [] for v in bits(reg)}
        for r in alive:
            for v in bits(cubes[r][level] & reg):
                buckets[v].append(r)
        out: dict[tuple[int, ...], int] = {}
        for v, holding in buckets.items():
            key = tuple(holding)
            out[key] = out.get(key, 0) | 1 << v
        return out
    groups: dict[tuple[int, ...], int] = {(): reg}
    rules = iter(alive)
    for r in rules:
        m = cubes[r][level] & reg
        if not m:
            continue
        nxt: dict[tuple[int, ...], int] = {}
        for members, mask in groups.items():
            inside, outside = mask & m, mask & ~m
            if inside:
                nxt[members + (r,)] = inside
            if outside:
                nxt[members] = outside
        groups = nxt
        if len(groups) > GROUP_LIMIT:
            return _by_value(cubes, rules, level, reg, groups, spend)
    return groups


def _by_value(cubes: Sequence[Cube], rules: Iterator[int], level: int, reg: int,
              groups: dict[tuple[int, ...], int], spend: Callable[[int], None]) -> dict[tuple[int, ...], int]:
    """`refine` past GROUP_LIMIT groups, keeping each value's group: a rule reads the values
    on the smaller side of its cell (inside it, or outside when it holds most of them) and
    moves those of a group it splits to a group of their own."""
    members = [list(key) for key in groups]
    size = []
    group_of: dict[int, int] = {}
    for g, mask in enumerate(groups.values()):
        held = set_bits(mask)
        size.append(len(held))
        group_of.update(dict.fromkeys(held, g))
    half = reg.bit_count() // 2
    for r in rules:
        m = cubes[r][level] & reg
        if not m:
            continue
        dense = m.bit_count() > half
        read = set_bits(reg & ~m if dense else m)
        spend(len(read))
        touched: dict[int, list[int]] = {}
        for v in read:
            touched.setdefault(group_of[v], []).append(v)
        for g in range(len(members)) if dense else touched:
            vs = touched.get(g, ())
            if len(vs) == (0 if dense else size[g]):
                members[g].append(r)  # the whole group lies in the cell
            elif len(vs) < size[g]:  # split: the values read (inside, or outside when dense) move out
                members.append(members[g] + [r] if not dense else list(members[g]))
                if dense:
                    members[g].append(r)
                size.append(len(vs))
                size[g] -= len(vs)
                group_of.update(dict.fromkeys(vs, len(members) - 1))
    out: dict[tuple[int, ...], int] = {}
    for v, g in group_of.items():
        key = tuple(members[g])
        out[key] = out.get(key, 0) | 1 << v
    return out

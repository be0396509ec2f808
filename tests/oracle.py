"""Brute-force reference semantics (test-only): enumerate every input, scan every rule.

It shares nothing with swapool's engine but the Table model, so the two can be
checked against each other (differential testing)."""

from __future__ import annotations

import itertools

from swapool.table.model import Table


def inside(cube, point) -> bool:
    return all(m >> v & 1 for m, v in zip(cube, point))


def cube_points(cube) -> set[tuple]:
    return set(itertools.product(*([i for i in range(m.bit_length()) if m >> i & 1] for m in cube)))


def priority_order(table: Table) -> list[int]:
    """DMN's priority, written out here on its own: the matching rule whose output comes
    first in the output's values decides; among those, the first in the table."""
    rank = list(table.output.values)
    return sorted(range(len(table.rules)), key=lambda i: (rank.index(table.rules[i].then), i))


class Brute:
    def __init__(self, table: Table):
        self.table = table
        self.order = priority_order(table) if table.hit_policy.value == "priority" else list(range(len(table.rules)))
        self.points = list(itertools.product(*(range(len(i.values)) for i in table.inputs)))
        self.matches = {p: [r.index for r in table.rules if inside(r.cube, p)] for p in self.points}
        self.ranked = {p: sorted(m, key=self.order.index) for p, m in self.matches.items()}
        self.decisions = {p: (m[0] if m else None) for p, m in self.ranked.items()}

    def output_of(self, rule: int | None) -> str | None:
        return None if rule is None else self.table.rules[rule].then

    def output_at(self, p: tuple) -> str | None:
        return self.output_of(self.decisions[p])

    def gaps(self) -> set[tuple]:
        return {p for p, m in self.matches.items() if not m}

    def overlap_pairs(self) -> set[tuple[int, int]]:
        return {(a, b) for m in self.matches.values() for a, b in itertools.combinations(m, 2)}

    def conflicting_pairs(self) -> set[tuple[int, int]]:
        """Overlapping rules that decide differently (what `any` forbids)."""
        rules = self.table.rules
        return {(a, b) for a, b in self.overlap_pairs() if rules[a].then != rules[b].then}

    def firing(self) -> set[int]:
        return {m[0] for m in self.ranked.values() if m}

    def outputs_without(self, removed: set[int]) -> dict[tuple, str | None]:
        """Every input's output once the rules in `removed` are gone."""
        return {p: next((self.table.rules[i].then for i in m if i not in removed), None)
                for p, m in self.ranked.items()}

    def needed(self) -> set[int]:
        """Rules whose removal changes the output (or leaves no decision) somewhere, once
        the rules that never fire are taken out (as their own finding asks)."""
        rules, fires = self.table.rules, self.firing()
        needed = set()
        for m in self.ranked.values():
            alive = [i for i in m if i in fires]
            if alive and (len(alive) < 2 or rules[alive[1]].then != rules[alive[0]].then):
                needed.add(alive[0])
        return needed

    def breaches(self) -> set[tuple[str, str]]:
        """(rule, invariant) where the rule's output breaks the invariant at a point it decides
        (first, priority) or, under unique and any, at any point it matches: each such rule
        claims all it matches, so an overlap does not hide what it breaks."""
        own = self.table.hit_policy.value in ("unique", "any")
        found = set()
        for p, r in self.decisions.items():
            for rule in ([self.table.rules[i] for i in self.matches[p]] if own else
                         [] if r is None else [self.table.rules[r]]):
                for inv in self.table.invariants:
                    if inside(inv.if_region, p) and rule.then in inv.if_outputs:
                        if not inside(inv.then_region, p) or rule.then not in inv.then_outputs:
                            found.add((rule.id, inv.id))
        return found

    def failing_cases(self) -> set[int]:
        return {c.index for c in self.table.cases for p in self.points
                if inside(c.region, p) and self.output_at(p) != c.expect}

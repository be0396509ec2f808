"""Stage 4, model: the table as frozen values (no I/O), every cell a bitmask over its domain.

Bit i of a cell is the i-th value of its input, so a rule is a cube and the analysis
works on small integers.
"""

from __future__ import annotations

import enum
import functools

from .record import Record
from .refine import set_bits
from .diagnostics import Span, format_value
from .text import describe_terms

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Value = Any  # str, or bool for `type: bool` inputs

OUTPUT = "output"  # the key that names the output in an invariant's condition


class HitPolicy(enum.Enum):
    """How the rules that match one input make one decision (DMN's single-hit policies)."""

    UNIQUE = "unique"      # every input matches exactly one rule; overlaps are errors
    FIRST = "first"        # the first matching rule decides; hidden rules are errors
    ANY = "any"            # rules may overlap where they decide alike; deciding differently is an error
    PRIORITY = "priority"  # the matching rule whose output is listed first decides (then table order)

    @property
    def ordered(self) -> bool:
        """Whether rules may hide others: then a rule that never decides is an error, not
        an overlap."""
        return self in (HitPolicy.FIRST, HitPolicy.PRIORITY)


class CellForm(enum.Enum):
    """How a cell was written (the values it matches are its mask either way)."""

    ANY = "any"          # '-' or the input left out
    LITERAL = "literal"  # one value
    LIST = "list"        # [a, b]
    NOT = "not"          # {not: [a, b]}
    SET = "set"          # {in: name}: the members of named value sets of the input


class Input(Record):
    name: str
    values: tuple[Value, ...]
    is_bool: bool
    span: Span
    description: str | None = None
    enum: str | None = None
    wildcard: bool = False
    sets: tuple[tuple[str, int], ...] = ()  # named value sets: name -> mask, in declared order
    imported_from: str | None = None        # the table file the values were taken from
    #: where each value is first written (in `imported_from` for an imported input): not part
    #: of what the input is (equality, hash)
    value_spans: tuple[Span, ...] = ()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Input) and self[:-1] == other[:-1]

    def __hash__(self) -> int:
        return hash(self[:-1])

    @property
    def full(self) -> int:
        return (1 << len(self.values)) - 1

    @functools.cached_property
    def position(self) -> dict[Value, int]:
        """value -> its bit (values of one input share a type, so True never meets 1)."""
        return {v: i for i, v in enumerate(self.values)}

    def holds(self, value: Any) -> bool:
        """Whether `value` is one of this input's values (same type, not merely equal)."""
        return type(value) is type(self.values[0]) and value in self.position

    @functools.cached_property
    def set_masks(self) -> dict[str, int]:
        return dict(self.sets)

    def mask_of(self, values: Any) -> int:
        return sum(1 << self.position[v] for v in values)

    def values_of(self, mask: int) -> tuple[Value, ...]:
        values = self.values
        return tuple(values[i] for i in set_bits(mask & self.full))


class Output(Record):
    values: tuple[str, ...]
    span: Span
    description: str | None = None


class Cell(Record):
    """One input's condition in a rule: the values it matches and how it was written."""

    mask: int
    form: CellForm
    named: int  # values the author wrote down (a literal, a list, a `not` list, or sets' members)
    span: Span | None
    sets: tuple[str, ...] = ()  # the value sets an `{in: ...}` cell names


class Rule(Record):
    id: str
    index: int  # type: ignore[assignment]  # a field, as tuple's index() is a method
    cells: tuple[Cell, ...]  # one per input, in input order
    then: str
    span: Span
    why: str | None = None

    @functools.cached_property
    def cube(self) -> tuple[int, ...]:
        return tuple(c.mask for c in self.cells)


class Case(Record):
    index: int  # type: ignore[assignment]  # a field, as tuple's index() is a method
    region: tuple[int, ...]  # an omitted input means any of its values
    expect: str
    span: Span
    why: str | None = None
    sets: tuple[tuple[str, ...], ...] = ()  # per input, the value sets an `{in: ...}` names
    given: frozenset[str] = frozenset()  # the inputs the case writes down
    expect_span: Span | None = None  # where its `expect` value is written

    def named(self, k: int, inp: "Input") -> int:
        """The values of input `k` this case names (a value or sets' members; none when
        the input is left out)."""
        return self.region[k] if inp.name in self.given else 0


class Invariant(Record):
    id: str
    if_region: tuple[int, ...]
    if_outputs: frozenset[str]
    then_region: tuple[int, ...]
    then_outputs: frozenset[str]
    span: Span
    why: str | None = None


class Table(Record):
    file: str
    digest: str
    format: int
    decision: str
    hit_policy: HitPolicy
    inputs: tuple[Input, ...]
    output: Output
    rules: tuple[Rule, ...]
    cases: tuple[Case, ...] = ()
    invariants: tuple[Invariant, ...] = ()
    description: str | None = None
    rules_span: Span | None = None  # the `rules:` key, where a missing rule belongs
    decision_span: Span | None = None

    @property
    def input_names(self) -> tuple[str, ...]:
        return tuple(i.name for i in self.inputs)

    @functools.cached_property
    def ranked(self) -> tuple[int, ...]:
        """Rule indices in the order a first-hit search reads them: table order, except
        under `priority`, where rules deciding an output listed earlier come first (table
        order among equals). Every hit policy decides an input as the first rule in this
        order that matches it (under `unique` and `any`, in a valid table, any match does)."""
        if self.hit_policy is not HitPolicy.PRIORITY:
            return tuple(range(len(self.rules)))
        rank = {v: k for k, v in enumerate(self.output.values)}
        return tuple(sorted(range(len(self.rules)), key=lambda i: rank.get(self.rules[i].then, len(rank))))

    @functools.cached_property
    def ranked_cubes(self) -> list[tuple[int, ...]]:
        """The rules' cubes in `ranked` order: what the partition engine splits over."""
        return [self.rules[i].cube for i in self.ranked]

    def ranked_rule(self, position: int | None) -> "Rule | None":
        """The rule at `position` of the ranked order (None: no rule, a gap)."""
        return None if position is None else self.rules[self.ranked[position]]

    @property
    def full_region(self) -> tuple[int, ...]:
        return tuple(i.full for i in self.inputs)

    def point(self, region: tuple[int, ...]) -> dict[str, Value]:
        """One concrete input inside `region` (its lowest value on every input)."""
        return {inp.name: inp.values[lowest_bit(m)] for inp, m in zip(self.inputs, region)}

    def terms(self, region: tuple[int, ...]) -> dict[str, list[Value]]:
        return region_terms(self.inputs, region)

    def restricted(self, name: str, value: Value) -> "Table":
        """The table for inputs with `name` fixed to `value`, without that input: rules, cases
        and invariants that cannot apply there are dropped (e.g. one backend's view)."""
        k = self.input_names.index(name)
        inp = self.inputs[k]
        if not inp.holds(value):
            raise ValueError(f"{value!r} is not a value of input '{name}'")
        bit = 1 << inp.position[value]

        def drop(seq: tuple) -> tuple:
            return seq[:k] + seq[k + 1:]

        kept = [r for r in self.rules if r.cells[k].mask & bit]
        rules = tuple(r._replace(index=i, cells=drop(r.cells)) for i, r in enumerate(kept))
        cases = tuple(c._replace(region=drop(c.region), sets=drop(c.sets) if c.sets else ())
                      for c in self.cases if c.region[k] & bit)
        invariants = tuple(v._replace(if_region=drop(v.if_region), then_region=drop(v.then_region))
                           for v in self.invariants if v.if_region[k] & bit and v.then_region[k] & bit)
        return self._replace(file=f"{self.file}[{name}={format_value(value)}]",
                             inputs=drop(self.inputs), rules=rules, cases=cases, invariants=invariants)


def lowest_bit(mask: int) -> int:
    """Index of the lowest set bit: the first value of a non-empty value set."""
    return (mask & -mask).bit_length() - 1


def region_terms(inputs: tuple[Input, ...], region: tuple[int, ...]) -> dict[str, list[Value]]:
    """`region` as data: the values of each input it restricts (an input spanning its
    domain is left out)."""
    return {inp.name: list(inp.values_of(mask)) for inp, mask in zip(inputs, region) if mask != inp.full}


def describe_region(inputs: tuple[Input, ...], region: tuple[int, ...]) -> str:
    """`region` as `name=value` / `name in [a, b]` terms; inputs spanning their domain are left out."""
    return describe_terms(region_terms(inputs, region))

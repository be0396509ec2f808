"""`swapool plan`'s answer, as data: what each place of each runner sglang builds for a
deployment's flags decides, by which rule, and where that differs from the intended
decision (the SWA pool policy). The command renders it."""

from __future__ import annotations

import itertools

from ...table.decided import Decided, decided
from ...table.decider import Decider, PolicyError
from ...table.diff import IncomparableTables, diff_tables
from ...table.model import Rule, Table
from ...table.record import Record
from .sglang_places import BACKENDS, DRAFT_FALLBACK, FLAG_PLACES, TRANSLATOR, flag_choices

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: At most this many combinations of the inputs only a place's table has are compared.
MAX_EXTRA = 64


class Runner(Record):
    """A runner sglang builds: its role, whether it is the draft, each (flag value, place or
    None) of its attention backends, and notes on how sglang chose them."""

    role: str
    is_draft: bool
    flags: tuple[tuple[str, str | None], ...]
    notes: tuple[str, ...] = ()


class Divergence(Record):
    """A region where a place, as sglang's code decides it, differs from the intended table:
    each side's output and rule."""

    region: str
    intended: tuple[str | None, Rule | None]
    here: tuple[str | None, Rule | None]


class PlacePlan(Record):
    """One place of one runner: which table decides it, what it decides where, and where
    that differs from the intended decision."""

    role: str
    place: str
    flag: str | None  # the flag value that builds it (None: the runner's translator)
    how: str
    table: str | None
    rows: tuple[Decided, ...]
    divergences: tuple[Divergence, ...] = ()


def runners(attention_backend: str | None, *, prefill: str | None = None, decode: str | None = None,
            draft: str | None = None, algorithm: str = "NONE") -> list[Runner]:
    """Each runner sglang builds for these flags (its --attention-backend, prefill and decode
    backends, the draft's, --speculative-algorithm): which places its backends are. Raises
    ValueError for a value sglang does not have."""
    from difflib import get_close_matches

    choices = flag_choices()

    def known(flag: str, value: str | None) -> str | None:
        if value is not None and value not in choices.attention:
            flags_of_place = [f for f, place in FLAG_PLACES.items() if place == value and f in choices.attention]
            close = flags_of_place or get_close_matches(value, choices.attention, n=1)
            raise ValueError(f"{flag} {value}: sglang has no such attention backend"
                             + (f"; did you mean '{close[0]}'?" if close else "")
                             + f" (values from {choices.source}: {', '.join(choices.attention)})")
        return value

    attention = known("--attention-backend", attention_backend)
    prefill = known("--prefill-attention-backend", prefill) or attention
    decode = known("--decode-attention-backend", decode) or attention
    if prefill is None or decode is None:
        raise ValueError("name the target's backend: --attention-backend (or both --prefill-attention-backend and "
                         "--decode-attention-backend); sglang's own default depends on the model and the machine")
    draft = known("--speculative-draft-attention-backend", draft) or prefill
    out = [Runner("target", False, tuple((f, FLAG_PLACES.get(f)) for f in dict.fromkeys((prefill, decode))))]
    if algorithm != "NONE":
        notes = []
        if draft not in choices.draft:
            notes.append(f"{draft} is not a draft backend of sglang; on a CUDA machine it falls back to "
                         f"{DRAFT_FALLBACK}")
            draft = DRAFT_FALLBACK
        out.append(Runner("draft", True, ((draft, FLAG_PLACES.get(draft)),), tuple(notes)))
    return out


def plan_runner(policy: Decider, places: Decider, runner: Runner, algorithm: str, *,
                plugin: bool = True) -> list[PlacePlan]:
    """A runner's attention places and its KV index translator: which table decides each
    (the policy where swapool's resolver does, else the table of places), what it decides
    where, and where that differs from the policy. Raises ValueError for a speculative
    algorithm outside the tables' domains."""
    role, is_draft, flags = runner.role, runner.is_draft, runner.flags
    facts = {"is_draft_worker": is_draft, "spec_algorithm": algorithm}
    try:
        intended = policy.restrict(**{k: v for k, v in facts.items() if k in policy.table.input_names})
    except PolicyError as exc:
        raise ValueError(str(exc)) from None
    out = []
    for flag, place in [*flags, (None, TRANSLATOR)]:
        if place is None:
            out.append(PlacePlan(role, str(flag), flag, "makes no SWA pool decision (its runner's "
                                                          f"{TRANSLATOR} still does)", None, ()))
            continue
        by_resolver = plugin and place in BACKENDS
        table = policy if by_resolver else places
        how = ("the table's resolver" if by_resolver else "start-up guard" if plugin
               else "sglang's own code (the plugin is off)")
        try:
            view = table.restrict(**{k: v for k, v in {"backend": place, **facts}.items()
                                     if k in table.table.input_names})
        except PolicyError as exc:
            raise ValueError(str(exc)) from None
        diverging = () if by_resolver else tuple(divergences(intended.table, view.table))
        out.append(PlacePlan(role, place, flag, how, table.path, tuple(decided(view.table)), diverging))
    return out


def divergences(intended: Table, here: Table) -> list[Divergence]:
    """Where `here` (a place's view) decides otherwise than `intended`, over every
    combination of the inputs only `here` has and reads (fixed, then compared); a region is
    named with those of them that matter to it."""
    extra = [inp for j, inp in enumerate(here.inputs) if inp.name not in intended.input_names
             and any(rule.cells[j].mask != inp.full for rule in here.rules)]
    combos = list(itertools.islice(itertools.product(*(inp.values for inp in extra)), MAX_EXTRA + 1))
    if len(combos) > MAX_EXTRA:
        raise ValueError(f"the place's table reads {len(extra)} inputs the policy lacks; too many to compare")
    found: dict[tuple, set[tuple]] = {}
    for combo in combos:
        fixed = here
        for inp, value in zip(extra, combo):
            fixed = fixed.restricted(inp.name, value)
        try:
            result = diff_tables(intended, fixed)
        except IncomparableTables as exc:
            raise ValueError(f"cannot compare the place with the policy: {exc}") from None
        for c in result.changes:
            key = (result.describe(c), c.old.output, c.old.rule_id, c.new.output, c.new.rule_id)
            found.setdefault(key, set()).add(combo)
    rule_of = {r.id: r for r in here.rules}
    intended_rule = {r.id: r for r in intended.rules}
    out = []
    for (region, old, old_rule, new, new_rule), where in found.items():
        named = [", ".join(f"{extra[i].name}={_word(v)}" for i, v in enumerate(combo) if v is not None)
                 for combo in sorted(_project(where, extra), key=str)]
        region = "; ".join(f"{n}, {region}" if n else region for n in named)
        out.append(Divergence(region, (old, intended_rule.get(old_rule)), (new, rule_of.get(new_rule))))
    return out


def _project(combos: set[tuple], extra: list) -> set[tuple]:
    """`combos` with each input that takes every value alike left out (None)."""
    for i, inp in enumerate(extra):
        merged = {c[:i] + (None,) + c[i + 1:] for c in combos}
        if all({c[:i] + (v,) + c[i + 1:] for v in inp.values} <= combos for c in merged):
            combos = merged
    return combos


def _word(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)

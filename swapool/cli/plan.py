"""`swapool plan`: what every sglang place will decide for a deployment's flags, by which
rule, and where that differs from the intended decision (policies/swa.yaml), from the
tables, and the plugin's opt-outs, that a server started here would use."""

from __future__ import annotations

import argparse
import itertools
import sys
from dataclasses import dataclass
from typing import Any

from .jsonout import to_json
from .reading import add_server_tables
from .render import EXIT_OK, EXIT_USAGE, refuse, say
from .show import Decided, decided

#: Planned, but in some region a place decides otherwise than the intended table.
EXIT_DIVERGES = 3
#: At most this many combinations of the inputs only a place's table has are compared.
MAX_EXTRA = 64


@dataclass(frozen=True)
class Divergence:
    """A region where a place, as sglang's code decides it, differs from the intended table."""

    region: str
    intended: tuple[str | None, Any]  # output, rule
    here: tuple[str | None, Any]


@dataclass(frozen=True)
class PlacePlan:
    """One place of one runner: which table decides it, what it decides where, and where
    that differs from the intended decision."""

    role: str
    place: str
    flag: str | None  # the flag value that builds it (None: the runner's translator)
    how: str
    table: str | None
    rows: tuple[Decided, ...]
    divergences: tuple[Divergence, ...] = ()


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "plan", parents=[reading], help="what every sglang place will decide for a deployment's flags, and why",
        description="For sglang's flags, print what the target runner (and the draft runner, with a "
                    "speculative algorithm) will decide in each place that picks a SWA pool: its "
                    "attention backends and its KV index translator, for every value of the facts only "
                    "the running server knows (the pools' kinds), each with its rule and file:line:col. "
                    "Backends whose resolver swapool replaces (trtllm_mha, flashinfer, aiter) follow the "
                    "SWA pool policy; the others are sglang's own code, checked at start against the table "
                    "of places, and each region where that differs from the policy is marked '!'. The "
                    "flags take sglang's values (read from the installed sglang, else those of the release "
                    "the table of places was verified on); the tables and opt-outs are the ones a server "
                    "started here would use.",
        epilog=f"Exit codes: 0 planned, {EXIT_DIVERGES} planned but a place decides otherwise than the policy "
               "somewhere (marked !), 2 a table does not load as a server's would, or a flag is unknown. "
               "Example: swapool plan --attention-backend fa3 --speculative-algorithm EAGLE")
    p.add_argument("--attention-backend", metavar="NAME", help="sglang's --attention-backend (e.g. fa3, triton, "
                                                               "flashinfer, trtllm_mha, torch_native)")
    p.add_argument("--prefill-attention-backend", metavar="NAME", help="sglang's, when prefill differs")
    p.add_argument("--decode-attention-backend", metavar="NAME", help="sglang's, when decode differs")
    p.add_argument("--speculative-algorithm", default="NONE", metavar="NAME",
                   help="sglang's --speculative-algorithm (default: NONE, no draft runner)")
    p.add_argument("--speculative-draft-attention-backend", dest="draft_backend", metavar="NAME",
                   help="the draft runner's backend (default: the prefill backend, as sglang)")
    add_server_tables(p)
    p.set_defaults(func=run)


def runners(args: argparse.Namespace) -> list[tuple[str, bool, list[tuple[str, str | None]], list[str]]]:
    """(role, is_draft, [(flag value, place or None)], notes) for each runner sglang builds
    for these flags. Raises ValueError for a value sglang does not have."""
    from difflib import get_close_matches

    from ..swa.integrations.sglang_places import DRAFT_FALLBACK, FLAG_PLACES, flag_choices

    choices = flag_choices()

    def known(flag: str, value: str | None) -> str | None:
        if value is not None and value not in choices.attention:
            flags_of_place = [f for f, place in FLAG_PLACES.items() if place == value and f in choices.attention]
            close = flags_of_place or get_close_matches(value, choices.attention, n=1)
            raise ValueError(f"{flag} {value}: sglang has no such attention backend"
                             + (f"; did you mean '{close[0]}'?" if close else "")
                             + f" (values from {choices.source}: {', '.join(choices.attention)})")
        return value

    attention = known("--attention-backend", args.attention_backend)
    prefill = known("--prefill-attention-backend", args.prefill_attention_backend) or attention
    decode = known("--decode-attention-backend", args.decode_attention_backend) or attention
    if prefill is None or decode is None:
        raise ValueError("name the target's backend: --attention-backend (or both --prefill-attention-backend and "
                         "--decode-attention-backend); sglang's own default depends on the model and the machine")
    draft = known("--speculative-draft-attention-backend", args.draft_backend) or prefill
    out: list[tuple[str, bool, list[tuple[str, str | None]], list[str]]] = [
        ("target", False, [(f, FLAG_PLACES.get(f)) for f in dict.fromkeys((prefill, decode))], [])]
    if args.speculative_algorithm != "NONE":
        notes = []
        if draft not in choices.draft:
            notes.append(f"{draft} is not a draft backend of sglang; on a CUDA machine it falls back to "
                         f"{DRAFT_FALLBACK}")
            draft = DRAFT_FALLBACK
        out.append(("draft", True, [(draft, FLAG_PLACES.get(draft))], notes))
    return out


def run(args: argparse.Namespace) -> int:
    from ..swa.integrations.sglang import load_tables
    from ..swa.integrations.sglang_places import ALGORITHM_ALIASES, PLACES, TRANSLATOR, expected_kind, sglang_release
    from ..swa.integrations.sglang_plugin import plugin_off
    from ..table.decider import PolicyError

    given = args.speculative_algorithm
    args.speculative_algorithm = ALGORITHM_ALIASES.get(given, given)
    try:
        deployment = runners(args)
        tables = load_tables(args.policy, args.places, import_enums=not args.no_enum_import,
                             enum_modules=args.enum_module)
    except ValueError as exc:
        say(f"swapool plan: {exc}", sys.stderr)
        return EXIT_USAGE
    except PolicyError as exc:
        return refuse("plan", exc.diagnostics, exc.headline)
    off = plugin_off()
    try:
        plans = [p for role, is_draft, flags, _ in deployment
                 for p in plan_runner(tables.policy, tables.places, role, is_draft, flags, args.speculative_algorithm,
                                      plugin=off is None)]
    except ValueError as exc:
        say(f"swapool plan: {exc}", sys.stderr)
        return EXIT_USAGE
    release = sglang_release()
    other = [p for p in PLACES if release and expected_kind(p, release)[0] != PLACES[p].kind]
    # The translator decides where SWA layers write, not what attention reads: shown, not counted
    diverging = sum(len(p.divergences) for p in plans if p.place != TRANSLATOR)
    if args.format == "json":
        print(to_json({"attention_backend": args.attention_backend, "draft_attention_backend": args.draft_backend,
                       "speculative_algorithm": args.speculative_algorithm, "speculative_algorithm_given": given,
                       "plugin_off": off,
                       "policy": tables.policy.path, "places_table": tables.places.path,
                       "installed_sglang": release, "decides_otherwise": other,
                       "places": [{"role": p.role, "place": p.place, "flag": p.flag, "how": p.how, "table": p.table,
                                   "decisions": [r.json() for r in p.rows],
                                   "divergences": [_divergence_json(d) for d in p.divergences]} for p in plans]},
                      indent=2))
    else:
        _say_plan(args, given, off, release, other, deployment, plans)
        if diverging:
            say(f"{diverging} region(s) where an attention backend decides otherwise than {tables.policy.path} "
                f"(marked !; the {TRANSLATOR}'s are shown for review and not counted; docs/sglang.md says what each "
                "means on a GPU)")
    return EXIT_DIVERGES if diverging else EXIT_OK


def _say_plan(args: argparse.Namespace, given: str, off: str | None, release: str | None, other: list[str],
              deployment: list, plans: list) -> None:
    from ..swa.integrations.sglang_places import VERIFIED_RELEASE

    if given != args.speculative_algorithm:
        say(f"note: sglang turns --speculative-algorithm {given} into {args.speculative_algorithm} before it builds "
            f"any runner; planned as {args.speculative_algorithm} (with a Gemma4 assistant draft model sglang makes "
            "it FROZEN_KV_MTP: plan that instead)")
    if off:
        say(f"the swapool plugin is off here ({off}): sglang's own code decides every place, as the table of "
            "places describes it")
    if other:
        say(f"note: the sglang installed here is {release}: the places are planned as sglang {VERIFIED_RELEASE} "
            f"decides them, and {release} decides otherwise in {', '.join(other)} ('swapool doctor' says how)")
    for role, _, _, notes in deployment:
        say(f"{role} runner (spec_algorithm={args.speculative_algorithm}):")
        for note in notes:
            say(f"  note: {note}")
        for p in (p for p in plans if p.role == role):
            _say_place(p)


def _say_place(p: PlacePlan) -> None:
    named = p.place if p.flag in (None, p.place) else f"{p.place} ({p.flag})"
    if p.table is None:
        say(f"  {named}: {p.how}")
        return
    say(f"  {named}: {p.how}, {p.table}")
    width = max((len(r.output or "(gap)") for r in p.rows), default=0)
    for r in p.rows:
        where = f"rule {r.rule.id} at {r.rule.span}" if r.rule else "no rule decides it"
        say(f"    {(r.output or '(gap)'):<{width}}  when {r.region}  ({where})")
    for d in p.divergences:
        (here, by), (intended, rule) = d.here, d.intended
        say(f"    ! when {d.region}: {here or '(gap)'} here ({by.id if by else 'no rule'}), {intended or '(gap)'} "
            f"intended" + (f" ({rule.id} at {rule.span})" if rule else ""))


def _divergence_json(d: Divergence) -> dict[str, Any]:
    def side(s: tuple[str | None, Any]) -> dict[str, Any]:
        return {"output": s[0], "rule": s[1].id if s[1] else None, "at": str(s[1].span) if s[1] else None}

    return {"region": d.region, "here": side(d.here), "intended": side(d.intended)}


def plan_runner(policy: Any, places: Any, role: str, is_draft: bool, flags: list[tuple[str, str | None]],
                algorithm: str, *, plugin: bool = True) -> list[PlacePlan]:
    """A runner's attention places and its KV index translator. Raises ValueError for a
    speculative algorithm outside the tables' domains."""
    from ..swa.integrations.sglang_places import BACKENDS, TRANSLATOR
    from ..table.decider import PolicyError

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


def divergences(intended: Any, here: Any) -> list[Divergence]:
    """Where `here` (a place's view) decides otherwise than `intended`, over every
    combination of the inputs only `here` has and reads (fixed, then compared); a region is
    named with those of them that matter to it."""
    from ..table.diff import IncomparableTables, diff_tables

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

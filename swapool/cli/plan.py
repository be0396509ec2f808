"""`swapool plan`: what every sglang place will decide for a deployment's flags, by which
rule, and where that differs from the intended decision (policies/swa.yaml), from the
tables, and the plugin's opt-outs, that a server started here would use."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from .jsonout import to_json
from .reading import add_server_tables
from .render import EXIT_OK, EXIT_USAGE, refuse, say
from .show import decided_json

TYPE_CHECKING = False
if TYPE_CHECKING:
    from ..swa.integrations.sglang_plan import Divergence, PlacePlan, Runner

#: Planned, but in some region a place decides otherwise than the intended table.
EXIT_DIVERGES = 3
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
    p.add_argument("--attention-backend", metavar="NAME",
                   help="sglang's --attention-backend (e.g. fa3, triton, flashinfer, trtllm_mha, torch_native)")
    p.add_argument("--prefill-attention-backend", metavar="NAME", help="sglang's, when prefill differs")
    p.add_argument("--decode-attention-backend", metavar="NAME", help="sglang's, when decode differs")
    p.add_argument("--speculative-algorithm", default="NONE", metavar="NAME",
                   help="sglang's --speculative-algorithm (default: NONE, no draft runner)")
    p.add_argument("--speculative-draft-attention-backend", dest="draft_backend", metavar="NAME",
                   help="the draft runner's backend (default: the prefill backend, as sglang)")
    add_server_tables(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..swa.integrations.sglang import load_tables
    from ..swa.integrations.sglang_plan import plan_runner, runners
    from ..swa.integrations.sglang_places import ALGORITHM_ALIASES, PLACES, TRANSLATOR, expected_kind, sglang_release
    from ..swa.integrations.sglang_plugin import plugin_off
    from ..table.decider import PolicyError

    given = args.speculative_algorithm
    args.speculative_algorithm = ALGORITHM_ALIASES.get(given, given)
    try:
        deployment = runners(args.attention_backend, prefill=args.prefill_attention_backend,
                             decode=args.decode_attention_backend, draft=args.draft_backend,
                             algorithm=args.speculative_algorithm)
        tables = load_tables(args.policy, args.places, import_enums=not args.no_enum_import,
                             enum_modules=args.enum_module)
    except ValueError as exc:
        say(f"swapool plan: {exc}", sys.stderr)
        return EXIT_USAGE
    except PolicyError as exc:
        return refuse("plan", exc.diagnostics, exc.headline)
    off = plugin_off()
    try:
        plans = [p for runner in deployment
                 for p in plan_runner(tables.policy, tables.places, runner, args.speculative_algorithm,
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
                                   "decisions": [decided_json(r) for r in p.rows],
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
              deployment: list[Runner], plans: list[PlacePlan]) -> None:
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
    for runner in deployment:
        say(f"{runner.role} runner (spec_algorithm={args.speculative_algorithm}):")
        for note in runner.notes:
            say(f"  note: {note}")
        for p in (p for p in plans if p.role == runner.role):
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

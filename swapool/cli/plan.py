"""`swapool plan`: what every sglang place will decide for a deployment's flags, and by
which rule, from the tables a server started here would load."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Any

from .render import EXIT_OK, EXIT_USAGE, refuse, say, to_json
from .show import Decided, decided

TRANSLATOR = "kv_index_translator"


@dataclass(frozen=True)
class PlacePlan:
    """One place of one runner: which table decides it, and what it decides where."""

    role: str
    place: str
    how: str  # "the table's resolver" or "start-up guard"
    table: str
    rows: tuple[Decided, ...]


def add(commands: Any, reading: argparse.ArgumentParser) -> None:
    p = commands.add_parser(
        "plan", parents=[reading], help="what every sglang place will decide for a deployment's flags, and why",
        description="For sglang's flags, print what the target runner (and the draft runner, with a "
                    "speculative algorithm) will decide in each place that picks a SWA pool: its "
                    "attention backend and its KV index translator, for every value of the facts only "
                    "the running server knows (the pools' kinds), each with its rule and file:line:col. "
                    "Backends whose resolver swapool replaces (trtllm_mha, flashinfer, aiter) follow the "
                    "SWA pool policy; the others are checked at start against the table of places. The "
                    "tables are the ones a server started here loads.",
        epilog="Exit codes: 0 planned, 2 a table does not load as a server's would, or a flag is unknown. "
               "Example: swapool plan --attention-backend triton --speculative-algorithm EAGLE")
    p.add_argument("--attention-backend", required=True, metavar="NAME",
                   help="sglang's --attention-backend (e.g. triton, flashinfer, trtllm_mha, torch_native)")
    p.add_argument("--speculative-algorithm", default="NONE", metavar="NAME",
                   help="sglang's --speculative-algorithm (default: NONE, no draft runner)")
    p.add_argument("--speculative-draft-attention-backend", dest="draft_backend", metavar="NAME",
                   help="the draft runner's backend (default: the --attention-backend)")
    p.add_argument("--policy", metavar="PATH", help="the SWA pool policy (default: $SWAPOOL_POLICY, else the "
                                                     "installed policies/swa.yaml, as the server)")
    p.add_argument("--places", metavar="PATH", help="the table of places (default: $SWAPOOL_PLACES_POLICY, else "
                                                     "the installed policies/swa_backends.yaml, as the server)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..swa.paths import table_path
    from ..swa.policy import load_policy
    from ..table.decider import PolicyError

    tables = {}
    for role in ("policy", "places"):
        try:
            path = table_path(role, getattr(args, role))
            tables[role] = load_policy(path, import_enums=not args.no_enum_import, enum_modules=args.enum_module)
        except PolicyError as exc:
            return refuse("plan", exc.diagnostics, f"{exc.headline}: a server would refuse to start with it "
                                                   "('swapool validate' says why)")
    try:
        plans = plan(tables["policy"], tables["places"], args.attention_backend,
                     args.draft_backend or args.attention_backend, args.speculative_algorithm)
    except ValueError as exc:
        say(f"swapool plan: {exc}", sys.stderr)
        return EXIT_USAGE
    if args.format == "json":
        print(to_json({"attention_backend": args.attention_backend, "draft_attention_backend": args.draft_backend,
                       "speculative_algorithm": args.speculative_algorithm,
                       "places": [{"role": p.role, "place": p.place, "how": p.how, "table": p.table,
                                   "decisions": [r.json() for r in p.rows]} for p in plans]}, indent=2))
        return EXIT_OK
    runner = None
    for p in plans:
        if p.role != runner:
            runner = p.role
            say(f"{runner} runner (spec_algorithm={args.speculative_algorithm}):")
        say(f"  {p.place}: {p.how}, {p.table}")
        width = max((len(r.output or "(gap)") for r in p.rows), default=0)
        for r in p.rows:
            where = f"rule {r.rule.id} at {r.rule.span}" if r.rule else "no rule decides it"
            say(f"    {(r.output or '(gap)'):<{width}}  when {r.region}  ({where})")
    return EXIT_OK


def plan(policy: Any, places: Any, backend: str, draft_backend: str, algorithm: str) -> list[PlacePlan]:
    """For the target runner (and the draft runner, when there is a speculative algorithm),
    its attention backend and its KV index translator. Raises ValueError for a flag outside
    the tables' domains."""
    from ..swa.integrations.sglang_places import BACKENDS, GUARDED
    from ..table.decider import PolicyError

    attention_places = [p for p in (*BACKENDS, *GUARDED) if p != TRANSLATOR]
    for name in dict.fromkeys((backend, draft_backend)):
        if name not in attention_places:
            raise ValueError(f"'{name}' is not an attention backend that picks a SWA pool; known: "
                             f"{', '.join(attention_places)}")
    roles = [("target", False, backend)] + ([("draft", True, draft_backend)] if algorithm != "NONE" else [])
    out = []
    for role, is_draft, attention in roles:
        for place in (attention, TRANSLATOR):
            replaced = place in BACKENDS
            table = policy if replaced else places
            facts = {"backend": place, "is_draft_worker": is_draft, "spec_algorithm": algorithm}
            try:
                view = table.restrict(**{k: v for k, v in facts.items() if k in table.table.input_names})
            except PolicyError as exc:
                raise ValueError(str(exc)) from None
            out.append(PlacePlan(role, place, "the table's resolver" if replaced else "start-up guard",
                                 table.path, tuple(decided(view.table))))
    return out

"""`swapool plan`: what every sglang place will decide for a deployment's flags, and by
which rule, before anything starts."""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from ..swa.integrations.sglang_places import BACKENDS, GUARDED
from ..table.analysis import decided_regions
from ..table.decider import Decider, PolicyError
from ..table.model import describe_region
from .render import to_json

TRANSLATOR = "kv_index_translator"
ATTENTION_PLACES = tuple(p for p in (*BACKENDS, *GUARDED) if p != TRANSLATOR)


@dataclass(frozen=True)
class PlacePlan:
    """One place of one runner: which table decides it, and what it decides where."""

    role: str
    place: str
    how: str  # "the table's resolver" or "start-up guard"
    table: str
    rows: tuple[dict[str, Any], ...]


def plan(policy: Decider, places: Decider, backend: str, draft_backend: str, algorithm: str) -> list[PlacePlan]:
    """For the target runner (and the draft runner, when there is a speculative algorithm),
    its attention backend and its KV index translator. Raises ValueError for a flag outside
    the tables' domains."""
    for name in {backend, draft_backend}:
        if name not in ATTENTION_PLACES:
            raise ValueError(f"'{name}' is not an attention backend that picks a SWA pool; known: "
                             f"{', '.join(ATTENTION_PLACES)}")
    roles = [("target", False, backend)] + ([("draft", True, draft_backend)] if algorithm != "NONE" else [])
    out = []
    for role, is_draft, attention in roles:
        for place in (attention, TRANSLATOR):
            replaced = place in BACKENDS
            decider = policy if replaced else places
            view = _fixed(decider, backend=place, is_draft_worker=is_draft, spec_algorithm=algorithm)
            out.append(PlacePlan(role, place, "the table's resolver" if replaced else "start-up guard",
                                 decider.path, tuple(_rows(view))))
    return out


def _fixed(decider: Decider, **facts: Any) -> Decider:
    present = {k: v for k, v in facts.items() if k in decider.table.input_names}
    try:
        return decider.restrict(**present)
    except PolicyError as exc:
        raise ValueError(str(exc)) from None


def _rows(view: Decider) -> list[dict[str, Any]]:
    table = view.table
    rows = []
    for ri, regions in decided_regions(table):
        rule = table.rules[ri] if ri is not None else None
        for region in regions:
            rows.append({"output": rule.then if rule else None, "rule": rule.id if rule else None,
                         "at": str(rule.span) if rule else None,
                         "when": describe_region(table.inputs, region)})
    return rows


def render_text(plans: list[PlacePlan], algorithm: str) -> str:
    lines: list[str] = []
    role = None
    for p in plans:
        if p.role != role:
            role = p.role
            lines.append(f"{role} runner (spec_algorithm={algorithm}):")
        lines.append(f"  {p.place}: {p.how}, {p.table}")
        width = max(len(r["output"] or "(gap)") for r in p.rows)
        for r in p.rows:
            where = f"rule {r['rule']} at {r['at']}" if r["rule"] else "no rule decides it"
            lines.append(f"    {(r['output'] or '(gap)'):<{width}}  when {r['when']}  ({where})")
    return "\n".join(lines)


def render_json(plans: list[PlacePlan], args: argparse.Namespace) -> str:
    return to_json({"attention_backend": args.attention_backend, "draft_attention_backend": args.draft_backend,
                       "speculative_algorithm": args.speculative_algorithm,
                       "places": [{"role": p.role, "place": p.place, "how": p.how, "table": p.table,
                                   "decisions": list(p.rows)} for p in plans]}, indent=2)

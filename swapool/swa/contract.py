"""What a table must be to decide `swa_kv_pool`: checked in code, for every table.

Invariants live in a table and an edit can delete them; these checks cannot be edited
away. They run in `swapool validate` and in `load_policy`.
"""

from __future__ import annotations

from ..table.analysis import Analysis, Contract
from ..table.codes import Facts
from ..table.diagnostics import Diagnostic, error
from ..table.lazy import lazy_module
from ..table.model import Table
from .facts import BOOL_FACTS, DECISION, POOL_FACTS, POOL_VALUES, SAFE_WHEN, SELECTORS, SWA_FACTS, SWA_OUTPUTS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from . import codes
else:  # imported when a finding of its is made: a valid table makes none
    codes = lazy_module(f"{__package__}.codes")


def check_contract(analysis: Analysis) -> list[Diagnostic]:
    """Shape: the inputs are facts the resolver reads (or selectors fixed before it runs),
    pool facts are valued swa/other, is_draft_worker is a bool, the outputs are pools.
    Safety: `allocator` is answered only where allocator_kvcache=swa, `active` only where
    active_pool=swa, so a backend never translates through a pool that is not SWA."""
    table = analysis.table
    if table.decision != DECISION:
        return []
    found: list[Diagnostic] = []
    for inp in table.inputs:
        if inp.name not in SWA_FACTS and inp.name not in SELECTORS:
            found.append(error(codes.DecisionKindNotAFact(expected=list(SWA_FACTS + SELECTORS), got=inp.name,
                                                          decision=DECISION, reads=list(SWA_FACTS),
                                                          selectors=list(SELECTORS)), inp.span))
        elif inp.name in POOL_FACTS and (inp.is_bool or not set(inp.values) <= set(POOL_VALUES)):
            found.append(error(codes.DecisionKindPoolValues(input=inp.name, expected=list(POOL_VALUES),
                                                            got=list(inp.values)), inp.span))
        elif inp.name in BOOL_FACTS and not inp.is_bool:
            found.append(error(codes.DecisionKindBoolFact(input=inp.name, expected="type: bool", got=list(inp.values)),
                               inp.span))
    extra = [v for v in table.output.values if v not in SWA_OUTPUTS]
    if extra:
        found.append(error(codes.DecisionKindOutputs(expected=list(SWA_OUTPUTS), got=extra), table.output.span))
    if found:
        return found
    return _unsafe_answers(analysis)


def _unsafe_answers(analysis: Analysis) -> list[Diagnostic]:
    table = analysis.table
    names = table.input_names
    found: list[Diagnostic] = []
    reported: set[int] = set()
    for reg, ri in analysis.hits(table.full_region):
        if ri is None or ri in reported:
            continue
        rule = table.rules[ri]
        fact = SAFE_WHEN.get(rule.then)
        if fact is None:
            continue
        if fact in names:
            k = names.index(fact)
            inp = table.inputs[k]
            outside = reg[k] & ~(1 << inp.position["swa"]) if "swa" in inp.position else reg[k]
            if not outside:
                continue
            bad = reg[:k] + (outside,) + reg[k + 1:]
            facts: Facts = codes.UnsafePoolRead(rule=rule.id, fact=fact, expected={fact: "swa"}, got=rule.then,
                                                value=inp.values_of(outside)[0])
        else:
            bad = reg
            facts = codes.UnsafePoolUnread(rule=rule.id, fact=fact, expected={fact: "swa"}, got=rule.then)
        reported.add(ri)
        found.append(error(facts, rule.span, rules=(rule.id,), witness=table.point(bad)))
    return found


def forbidden_outputs(table: Table, region: tuple[int, ...]) -> dict[str, str]:
    """The pools a rule deciding all of `region` must not answer (the safety half of the
    contract), so that a gap's proposed fix never names one `unsafe-pool` would refuse."""
    names = table.input_names
    out = {}
    for output, fact in SAFE_WHEN.items():
        if output not in table.output.values:
            continue
        if fact not in names:
            out[output] = f"'{output}' needs {fact}=swa, which this table does not read"
            continue
        inp = table.inputs[names.index(fact)]
        if region[names.index(fact)] & ~(1 << inp.position["swa"] if "swa" in inp.position else 0):
            out[output] = f"'{output}' only where {fact}=swa"
    return out


#: For `check_path(..., contracts=CONTRACTS)`: the decision kinds this package knows.
CONTRACTS = {DECISION: Contract(check_contract, forbidden_outputs)}

"""The codes of the analysis: gaps, overlaps, rules that never fire or change nothing, invariants,
cases and the budget."""

from __future__ import annotations

from ..text import describe_terms, quoted, shown_list
from . import LISTED_VALUES, SHOWN_RULES, Code, Facts, Severity, _ids, _v, yaml_flow

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Mapping

    from . import Words


def _forbidden(forbidden: Mapping[str, str]) -> str:
    return ", ".join(f"'{_v(o)}' ({why})" for o, why in forbidden.items())


_OVERLAP_HELP = ("narrow one of the rules so it leaves out what both decide (a value in two of an input's sets: keep "
                 "it in one)")


def _requirement_words(required: Mapping[str, Any]) -> str:
    """What an invariant's `then` asks for: `output` (the outputs it allows, when not all)
    and the region its inputs must lie in."""
    parts = []
    outputs = required.get("output")
    if outputs is not None:
        parts.append("output " + " or ".join(quoted(o) for o in outputs))
    region = {k: v for k, v in required.items() if k != "output"}
    if region:
        parts.append(describe_terms(region))
    return " and ".join(parts) or "nothing"


GAP: Code = Code(
    name="gap", severity=Severity.ERROR,
    summary="an input combination that no rule decides",
    example="`no rule decides mode=exact, draft=true`",
    fix="add the rule its help shows, with the output you choose, or widen a rule",
    why="an input combination no rule decides has no answer at run time: the server would refuse it, or an engine "
        "would crash")


class Gap(Facts, code=GAP):
    region: Any
    closing: Any
    outputs: Any
    forbidden: Any = None

    def words(self) -> Words:
        return (
            f"no rule decides {describe_terms(self.region)}",
            (f"add - {yaml_flow(self.closing, then='TODO')} with TODO one of: "
             f"{shown_list(self.outputs, LISTED_VALUES)} (or widen a rule's cell to cover it)" if self.outputs else
             f"no output is allowed there: {_forbidden(self.forbidden or {})}; fix an invariant, or the inputs' values")
            + (f"; ruled out: {_forbidden(self.forbidden)}" if self.outputs and self.forbidden else ""))


OVERLAP: Code = Code(
    name="overlap", severity=Severity.ERROR,
    summary="under hit_policy unique, an input combination that two rules decide; under any, one two rules decide "
            "differently",
    example="`rules 'a' and 'b' conflict: both decide ..., 'a' as 'none' and 'b' as 'cache'`",
    fix="narrow one rule so the cells are disjoint; a hit policy that lets order decide is a choice of its own, not a "
        "fix",
    why="two rules that both match and decide differently leave the answer to their order, which nobody reviewed")


class OverlapConflict(Facts, code=OVERLAP, problem="conflict"):
    first: str
    rule: str
    region: Any
    first_then: str
    then: str

    def words(self) -> Words:
        return (
            f"rules '{self.first}' and '{self.rule}' conflict: both decide {describe_terms(self.region)}, "
            f"'{self.first}' as '{self.first_then}' and '{self.rule}' as '{self.then}'", _OVERLAP_HELP)


class OverlapShared(Facts, code=OVERLAP, problem="shared"):
    rule: str
    then: str
    partners: Any
    partner_outputs: Any
    total: int
    same: bool
    region: Any

    def words(self) -> Words:
        if self.same:
            partners = shown_list(self.partners, SHOWN_RULES, quoted, total=self.total)
            named = f"rule '{self.rule}' overlaps {partners} (same output)"
        else:
            pairs = [f"'{p}' ('{o}')" for p, o in zip(self.partners, self.partner_outputs)]
            partners = shown_list(pairs, SHOWN_RULES, str, total=self.total)
            named = f"rule '{self.rule}' ('{self.then}') overlaps {partners}"
        return named + f": both decide {describe_terms(self.region)}", _OVERLAP_HELP


UNREACHABLE_RULE: Code = Code(
    name="unreachable-rule", severity=Severity.ERROR,
    summary="under hit_policy first or priority, a rule that rules ranked before it hide everywhere",
    example="`rule 'c' can never fire: earlier rules 'a', 'b' decide every input it matches`",
    fix="remove it, or move it up (first) or change its output (priority)",
    why="a rule that others always pre-empt never decides anything; its presence misleads a reader about what the "
        "table does")


class UnreachableRuleFirst(Facts, code=UNREACHABLE_RULE, problem="first"):
    rule: str
    hiders: list

    def words(self) -> Words:
        hidden_by = f"earlier rule {_ids(self.hiders)} decides" if len(self.hiders) == 1 else \
            f"earlier rules {_ids(self.hiders)} decide"
        return (f"rule '{self.rule}' can never fire: {hidden_by} every input it matches",
                "remove the rule, or move it above the rules that hide it")


class UnreachableRulePriority(Facts, code=UNREACHABLE_RULE, problem="priority"):
    rule: str
    hiders: list

    def words(self) -> Words:
        hidden_by = f"rule {_ids(self.hiders)}, of higher or equal priority, decides" if len(self.hiders) == 1 else \
            f"rules {_ids(self.hiders)}, of higher or equal priority, decide"
        return (f"rule '{self.rule}' can never fire: {hidden_by} every input it matches",
                "remove the rule; its output is listed after theirs in output: values")


REDUNDANT_RULE: Code = Code(
    name="redundant-rule", severity=Severity.WARNING,
    summary="under hit_policy first, any or priority, a rule whose removal changes no decision; removing "
            "every one named keeps every decision",
    example="`rule 'c' is redundant: later rules decide every input it decides the same way`",
    fix="remove it",
    why="a rule whose inputs other rules decide the same way can be removed without changing any decision; the rules "
        "named are judged one after another, so removing all of them is safe too")


class RedundantRuleLater(Facts, code=REDUNDANT_RULE, problem="later"):
    rule: str
    then: str

    def words(self) -> Words:
        return (
            f"rule '{self.rule}' is redundant: later rules decide every input it decides the same way ('{self.then}')",
            "remove the rule, or narrow the later rules if it should matter")


class RedundantRuleOthers(Facts, code=REDUNDANT_RULE, problem="others"):
    rule: str
    then: str

    def words(self) -> Words:
        return (
            f"rule '{self.rule}' is redundant: other rules decide every input it decides the same way ('{self.then}')",
            "remove the rule, or narrow the other rules if it should matter")


ANALYSIS_PARTIAL: Code = Code(
    name="analysis-partial", severity=Severity.NOTE,
    summary="some rules, cases or invariants failed to build; the findings about the rest (marked "
            "partial) are still given",
    example="`the analysis left out rule 'r1' (which failed to build); the findings about the rest are partial`",
    fix="fix the errors above; the partial findings may change once every rule builds",
    why="one misspelt value should not hide a gap or an overlap elsewhere; but a gap may be one the broken rule would "
        "close, so those findings are marked partial")


class AnalysisPartial(Facts, code=ANALYSIS_PARTIAL):
    rules_left_out: Any
    cases_left_out: Any
    invariants_left_out: Any

    def words(self) -> Words:
        parts = []
        for kind, items, show in (("rules", self.rules_left_out, quoted), ("cases", self.cases_left_out, str),
                                  ("invariants", self.invariants_left_out, quoted)):
            if items:
                noun = kind if len(items) > 1 else kind[:-1]
                parts.append(f"{noun} {shown_list(items, LISTED_VALUES, show)}")
        return (f"the analysis left out {', '.join(parts)} (which failed to build); the findings about the rest are "
                "partial", None)


MERGEABLE_RULES: Code = Code(
    name="mergeable-rules", severity=Severity.NOTE,
    summary="rules that differ in one cell only and decide alike: one rule can replace them, deciding "
            "every input as before",
    example="`rules 'fast', 'safe' can be one rule: they differ only in 'mode' and decide alike ('cache')`",
    fix="replace them with the merged rule it shows",
    why="fewer rules say the same; a note, not a warning, because rules kept apart (with a why each) can be "
        "deliberate, and a strict check must not fail a correct table")


class MergeableRules(Facts, code=MERGEABLE_RULES):
    ids: Any
    input: str
    then: str
    merged: Any

    def words(self) -> Words:
        return (
            f"rules {_ids(self.ids)} can be one rule: they differ only in '{self.input}' and decide alike "
            f"('{self.then}')",
            f"replace them with - {yaml_flow(self.merged)}")


INVARIANT: Code = Code(
    name="invariant", severity=Severity.ERROR,
    summary="an input the table decides against one of its invariants",
    example="`rule 'cache-drafts' breaks invariant 'drafts-never-cache'`",
    fix="fix the rule (or the invariant)",
    why="an invariant states what must hold whatever the rules say; a broken one is the bug the table exists to "
        "prevent")


class BrokenInvariant(Facts, code=INVARIANT):
    rule: str
    invariant: Any
    region: Any
    then: str
    expected: Any
    got: Any
    why: str | None = None

    def words(self) -> Words:
        return (
            f"rule '{self.rule}' breaks invariant '{self.invariant}': where {describe_terms(self.region)} it decides "
            f"'{self.then}', but the invariant requires {_requirement_words(self.expected)}"
            + (f" ({' '.join(self.why.split())})" if self.why else ""),
            "narrow the rule, or fix the invariant if the rule is right")


CASE_FAILED: Code = Code(
    name="case-failed", severity=Severity.ERROR,
    summary="a golden case whose expected output differs from the table's decision",
    example="`case 4 expects 'none', but rule 'cache-drafts' decides 'cache'`",
    fix="fix the rule (or the case)",
    why="a golden case is the specification by example; a table that disagrees with one has changed behaviour someone "
        "pinned down")


class CaseFailed(Facts, code=CASE_FAILED):
    case: int
    expected: Any
    got: Any
    rule: str | None
    invariant: Any = None

    def words(self) -> Words:
        return (
            f"case {self.case} expects '{_v(self.expected)}', but "
            + (f"rule '{self.rule}' decides '{_v(self.got)}'" if self.rule is not None else "no rule decides it"),
            f"the case is wrong: invariant '{self.invariant}' forbids '{_v(self.expected)}' there; expect what the "
            "invariant allows" if self.invariant
            else "fix the rule if the case is right; fix the case if the rule is" if self.rule is not None
            else "no rule decides its input: add the rule the gap finding's help shows (or fix the case)")


ANALYSIS_BUDGET: Code = Code(
    name="analysis-budget", severity=Severity.ERROR,
    summary="the analysis needed more steps than its budget allows (the table is checked no further)",
    example="`the analysis stopped while splitting the input space (2,000,000 steps)`",
    fix="split the table, or order rules as a decision tree",
    why="exact gap and overlap analysis is coNP-hard in general; past its budget swapool stops rather than run away")


class AnalysisBudgetSteps(Facts, code=ANALYSIS_BUDGET, problem="steps"):
    what: str
    limit: int

    def words(self) -> Words:
        return (
            f"the analysis stopped while {self.what} ({self.limit:,} steps); the table is too irregular to check "
            "exactly",
            "split the table, or make its rules follow the input order (as a decision tree does)")


class AnalysisBudgetCells(Facts, code=ANALYSIS_BUDGET, problem="cells"):
    inputs: int
    rows: int
    cells: int
    limit: int

    def words(self) -> Words:
        return (
            f"the table has {self.inputs:,} inputs and {self.rows:,} rules, cases and invariant conditions: "
            f"{self.cells:,} cells, more "
            f"than the {self.limit:,} swapool checks", "split the table; a decision table is a few dozen rows")

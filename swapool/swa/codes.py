"""The finding codes of the SWA decision: the engine knows nothing of pools, the SWA
decision's contract (swa/contract.py) emits these. `CATALOGUE` is every code swapool
emits: the engine's and these."""

from __future__ import annotations

from ..table.codes import Code, Facts, Severity
from ..table.codes.every import CODES
from ..table.text import format_value

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from ..table.codes import Words

_FAILED = "the backend would translate through a pool that failed the SWA check (an illegal memory access on a GPU)"


DECISION_KIND: Code = Code(
    name="decision-kind", severity=Severity.ERROR,
    summary="the table does not have the shape its decision needs (swa_kv_pool: its facts and pools)",
    example="`input 'is_draft_worker' is model_runner.is_draft_worker, a bool: write 'type: bool'`",
    fix="give the table the inputs and outputs its decision reads and returns",
    why="the SWA runtime reads specific facts and returns specific pools; a table of another shape cannot drive it")


class DecisionKindNotAFact(Facts, code=DECISION_KIND, problem="not-a-fact"):
    got: Any
    decision: str
    reads: Any
    selectors: Any
    expected: Any

    def words(self) -> Words:
        return (
            f"input '{self.got}' is not a fact the {self.decision} resolver reads",
            f"{self.decision} reads {', '.join(self.reads)}; {', '.join(self.selectors)} names the place deciding and "
            "is fixed before the resolver runs")


class DecisionKindPoolValues(Facts, code=DECISION_KIND, problem="pool-values"):
    input: str
    expected: Any
    got: Any

    def words(self) -> Words:
        return (
            f"input '{self.input}' is whether a pool passes the SWA check: its values are {self.expected[0]} and "
            f"{self.expected[1]}",
            None)


class DecisionKindBoolFact(Facts, code=DECISION_KIND, problem="bool-fact"):
    input: str
    expected: Any
    got: Any

    def words(self) -> Words:
        return (f"input '{self.input}' is a bool fact of the model runner: write 'type: bool'", None)


class DecisionKindOutputs(Facts, code=DECISION_KIND, problem="outputs"):
    got: Any
    expected: Any

    def words(self) -> Words:
        return (f"output value(s) {', '.join(map(format_value, self.got))} are not pools the resolver can return",
                None)


class DecisionKindLoads(Facts, code=DECISION_KIND, problem="loads"):
    expected: Any
    got: Any

    def words(self) -> Words:
        return (f"load_policy loads {self.expected} tables; this one decides '{self.got}'",
                "use swapool.table (check_path and Decider) for other decisions")


UNSAFE_POOL: Code = Code(
    name="unsafe-pool", severity=Severity.ERROR,
    summary="a swa_kv_pool rule that answers a pool where that pool did not pass the SWA check",
    example="`rule 'frozen-kv-mtp' answers 'allocator' where allocator_kvcache=other: the backend would translate "
            "through a pool that failed the SWA check`",
    fix="answer a pool only where it passed the SWA check",
    why="a backend translating through a pool that is not SWA reads the wrong KV: an illegal memory access or silently "
        "wrong attention")


class UnsafePoolRead(Facts, code=UNSAFE_POOL, problem="read"):
    rule: str
    got: Any
    fact: str
    expected: Any
    value: Any

    def words(self) -> Words:
        return (
            f"rule '{self.rule}' answers '{self.got}' where {self.fact}={self.value}: " + _FAILED,
            f"answer '{self.got}' only under {self.fact}: swa; decide 'none' where it is not")


class UnsafePoolUnread(Facts, code=UNSAFE_POOL, problem="unread"):
    rule: str
    got: Any
    fact: str
    expected: Any

    def words(self) -> Words:
        return (
            f"rule '{self.rule}' answers '{self.got}' without reading {self.fact}: " + _FAILED,
            f"answer '{self.got}' only under {self.fact}: swa; decide 'none' where it is not")


#: Every code swapool emits, by name, in the order `swapool codes` lists them.
CATALOGUE = {code.name: code for code in (*CODES, DECISION_KIND, UNSAFE_POOL)}

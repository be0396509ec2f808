"""The finding codes of the SWA decision: the engine knows nothing of pools, the SWA
decision's contract (swa/contract.py) emits these. `CATALOGUE` is every code swapool
emits: the engine's and these."""

from __future__ import annotations

from ..table.codes import CODES, Code, Variant
from ..table.text import format_value

_FAILED = "the backend would translate through a pool that failed the SWA check (an illegal memory access on a GPU)"


class Shape(Variant):
    NOT_A_FACT = "not-a-fact"
    POOL_VALUES = "pool-values"
    BOOL_FACT = "bool-fact"
    OUTPUTS = "outputs"
    LOADS = "loads"


DECISION_KIND = Code(
    "decision-kind", "the table does not have the shape its decision needs (swa_kv_pool: its facts and pools)", "error",
    "`input 'is_draft_worker' is model_runner.is_draft_worker, a bool: write 'type: bool'`",
    "give the table the inputs and outputs its decision reads and returns",
    "the SWA runtime reads specific facts and returns specific pools; a table of another shape cannot drive it",
    {Shape.NOT_A_FACT: lambda got, decision, reads, selectors: (
        f"input '{got}' is not a fact the {decision} resolver reads",
        f"{decision} reads {', '.join(reads)}; {', '.join(selectors)} names the place deciding and is fixed before "
        "the resolver runs"),
     Shape.POOL_VALUES: lambda input, expected: (
         f"input '{input}' is whether a pool passes the SWA check: its values are {expected[0]} and {expected[1]}",
         None),
     Shape.BOOL_FACT: lambda input: (f"input '{input}' is a bool fact of the model runner: write 'type: bool'", None),
     Shape.OUTPUTS: lambda got: (f"output value(s) {', '.join(map(format_value, got))} are not pools the resolver can return",
                                 None),
     Shape.LOADS: lambda expected, got: (f"load_policy loads {expected} tables; this one decides '{got}'",
                                         "use swapool.table (check_path and Decider) for other decisions")})


class Answer(Variant):
    READ = "read"
    UNREAD = "unread"


UNSAFE_POOL = Code(
    "unsafe-pool", "a swa_kv_pool rule that answers a pool where that pool did not pass the SWA check", "error",
    "`rule 'frozen-kv-mtp' answers 'allocator' where allocator_kvcache=other: the backend would translate through a "
    "pool that failed the SWA check`", "answer a pool only where it passed the SWA check",
    "a backend translating through a pool that is not SWA reads the wrong KV: an illegal memory access or silently "
    "wrong attention",
    {Answer.READ: lambda rule, got, fact, value: (
        f"rule '{rule}' answers '{got}' where {fact}={value}: " + _FAILED,
        f"answer '{got}' only under {fact}: swa; decide 'none' where it is not"),
     Answer.UNREAD: lambda rule, got, fact: (
         f"rule '{rule}' answers '{got}' without reading {fact}: " + _FAILED,
         f"answer '{got}' only under {fact}: swa; decide 'none' where it is not")})

#: Every code swapool emits, by name, in the order `swapool codes` lists them.
CATALOGUE = {code.name: code for code in (*CODES, DECISION_KIND, UNSAFE_POOL)}

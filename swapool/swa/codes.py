"""The finding codes of the SWA decision, registered with the engine's registry: the engine
knows nothing of pools, the SWA decision's contract (swa/contract.py) emits these."""

from __future__ import annotations

from ..table.codes import Code, register

_FAILED = "the backend would translate through a pool that failed the SWA check (an illegal memory access on a GPU)"

register(
    Code('decision-kind',
         'the table does not have the shape its decision needs (swa_kv_pool: its facts and pools)',
         'error',
         "`input 'is_draft_worker' is model_runner.is_draft_worker, a bool: write 'type: bool'`",
         'give the table the inputs and outputs its decision reads and returns',
         why='the SWA runtime reads specific facts and returns specific pools; a table of another shape cannot drive it',
         says={'not-a-fact': "input '{got}' is not a fact the {decision} resolver reads",
               'pool-values': "input '{input}' is whether a pool passes the SWA check: its values are "
                              "{expected[0]} and {expected[1]}",
               'bool-fact': "input '{input}' is a bool fact of the model runner: write 'type: bool'",
               'outputs': 'output value(s) {got:all} are not pools the resolver can return',
               'loads': "load_policy loads {expected} tables; this one decides '{got}'"},
         helps={'not-a-fact': '{decision} reads {reads:all}; {selectors:all} names the place deciding and is fixed '
                              'before the resolver runs',
                'loads': 'use swapool.table (check_path and Decider) for other decisions'}),
    Code('unsafe-pool',
         'a swa_kv_pool rule that answers a pool where that pool did not pass the SWA check',
         'error',
         "`rule 'frozen-kv-mtp' answers 'allocator' where allocator_kvcache=other: the backend would translate through a pool that failed the SWA check`",
         'answer a pool only where it passed the SWA check',
         why='a backend translating through a pool that is not SWA reads the wrong KV: an illegal memory access or silently wrong attention',
         says={'read': "rule '{rule}' answers '{got}' where {fact}={value}: " + _FAILED,
               'unread': "rule '{rule}' answers '{got}' without reading {fact}: " + _FAILED},
         helps="answer '{got}' only under {fact}: swa; decide 'none' where it is not"),
)

"""The finding codes of the SWA decision, registered with the engine's registry: the engine
knows nothing of pools, the SWA decision's contract (swa/contract.py) emits these."""

from __future__ import annotations

from ..table.codes import Code, register

register(
    Code('decision-kind',
         'the table does not have the shape its decision needs (swa_kv_pool: its facts and pools)',
         'error',
         "`input 'is_draft_worker' is model_runner.is_draft_worker, a bool: write 'type: bool'`",
         'give the table the inputs and outputs its decision reads and returns',
         why='the SWA runtime reads specific facts and returns specific pools; a table of another shape cannot drive it'),
    Code('unsafe-pool',
         'a swa_kv_pool rule that answers a pool where that pool did not pass the SWA check',
         'error',
         "`rule 'frozen-kv-mtp' answers 'allocator' where allocator_kvcache=other: the backend would translate through a pool that failed the SWA check`",
         'answer a pool only where it passed the SWA check',
         why='a backend translating through a pool that is not SWA reads the wrong KV: an illegal memory access or silently wrong attention'),
)

"""The swa_kv_pool contract is code: no edit of a table makes a backend translate
through a pool that is not SWA."""

from __future__ import annotations
import os
import pytest
from swapool import PolicyError, load_policy
from swapool.cli import main
from swapool.swa.policy import Policy, clear_cache
from swapool.table.check import check_bytes, check_path
from swapool.table.enums import EnumPolicy
from ..helpers import SHIPPED


NO_IMPORT = EnumPolicy(do_import=False)



def check(text: str):
    return check_bytes(text, "t.yaml", enums=NO_IMPORT)



CORPUS = os.path.join(os.path.dirname(os.path.dirname(__file__)), "corpus", "hostile")



def test_deleting_the_invariants_cannot_make_the_allocator_answer_unsafe(capsys):
    """The issue's attack: without invariants and with the FROZEN_KV_MTP rules merged,
    the table would hand back the allocator's non-SWA kvcache."""
    path = os.path.join(CORPUS, "unsafe-allocator-without-invariants.yaml")
    assert main(["validate", path]) == 1
    out = capsys.readouterr().out
    assert "error[unsafe-pool]: rule 'frozen-kv-mtp-reads-target' answers 'allocator' where " \
           "allocator_kvcache=other" in out
    clear_cache()
    with pytest.raises(PolicyError, match="unsafe-pool"):
        load_policy(path, import_enums=False)



def test_the_resolver_refuses_an_unsafe_answer_even_without_the_contract():
    """The walk hands out only a pool it saw pass the SWA check on its path."""
    from .test_policy import runner

    table = check(open(os.path.join(CORPUS, "unsafe-allocator-without-invariants.yaml")).read()).table
    assert table is not None  # the generic checks alone accept it
    policy = Policy(table, "unsafe.yaml")
    with pytest.raises(PolicyError, match="answered 'allocator', a pool that did not pass the SWA check"):
        policy.resolve(runner("other", True, "FROZEN_KV_MTP", "other"))



def test_the_shipped_tables_meet_the_contract():
    from swapool.swa.contract import CONTRACTS
    for name in ("swa.yaml", "swa_backends.yaml"):
        c = check_path(SHIPPED.parent / name, enums=NO_IMPORT, contracts=CONTRACTS)
        assert c.ok, [str(d) for d in c.diagnostics]

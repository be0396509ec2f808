"""The one entrance from bytes to a checked table: what it does to the process around it."""

import gc

import pytest

from .. import hostile_families as families
from ..helpers import check


@pytest.mark.parametrize("enabled", [True, False])
def test_a_check_runs_no_collection_and_leaves_the_collector_as_it_found_it(enabled):
    """A 300-rule table allocates tens of thousands of objects: with the collector running,
    each generation fills again and again (in a server, every full collection scans its heap).
    Counted, not timed: no collection starts during the check, and the collector is as it was."""
    text = families.random_cubes(10, 4, 300)
    started = []
    gc.callbacks.append(lambda phase, info: phase == "start" and started.append(info["generation"]))
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        checked = check(text)
        assert checked.table is not None and len(checked.table.rules) > 300
        assert gc.isenabled() is enabled
    finally:
        gc.callbacks.pop()
        (gc.enable if was else gc.disable)()
    assert started == []

"""Ranks agree on the loaded table: gloo process groups of 2 and 4 CPU processes."""

from __future__ import annotations

import socket

import pytest

torch = pytest.importorskip("torch", reason="multi-rank agreement needs torch.distributed (the [torch] extra)")
mp = pytest.importorskip("torch.multiprocessing")

from ..dist_worker import run_rank  # noqa: E402
from ..helpers import SHIPPED, mini  # noqa: E402

TIMEOUT_S = 4.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(world: int, paths: dict) -> dict:
    ctx = mp.get_context("spawn")
    results = ctx.Queue()
    port = free_port()
    procs = [ctx.Process(target=run_rank, args=(r, world, port, paths, results, TIMEOUT_S)) for r in range(world)]
    for p in procs:
        p.start()
    out = {}
    for _ in range(world):
        rank, kind, detail = results.get(timeout=120)
        out[rank] = (kind, detail)
    for p in procs:
        p.join(timeout=60)
    return out


@pytest.fixture
def tables(tmp_path):
    same = tmp_path / "same.yaml"
    same.write_text(SHIPPED.read_text())
    edited = tmp_path / "edited.yaml"
    edited.write_text(SHIPPED.read_text().replace("why: no SWA pool anywhere", "why: edited on one rank"))
    broken = tmp_path / "broken.yaml"
    broken.write_text(mini("- {id: rx, when: {a: x}, then: p}\n"))
    return {"same": str(same), "edited": str(edited), "broken": str(broken)}


@pytest.mark.parametrize("world", [2, 4])
def test_equal_tables_start_on_every_rank(tables, world):
    out = launch(world, {r: tables["same"] for r in range(world)})
    assert {kind for kind, _ in out.values()} == {"ok"}
    assert len({digest for _, digest in out.values()}) == 1


def test_a_different_table_on_one_rank_is_refused_on_all_ranks(tables):
    paths = {r: tables["same"] for r in range(4)}
    paths[2] = tables["edited"]
    out = launch(4, paths)
    assert {kind for kind, _ in out.values()} == {"PolicyError"}, out
    for _, message in out.values():
        assert "rank(s) 0, 1, 3: sha256:" in message and "rank(s) 2: sha256:" in message


def test_a_rank_that_fails_to_load_is_named_by_the_others(tables):
    out = launch(2, {0: tables["same"], 1: tables["broken"]})
    assert out[1][0] == "PolicyError" and "gap" in out[1][1]
    assert out[0][0] == "PolicyError" and "rank(s) 1: failed to load" in out[0][1]


def test_a_rank_that_never_loads_does_not_hang_the_others(tables):
    out = launch(2, {0: tables["same"]})
    kind, message = out[0]
    assert kind == "PolicyError" and "within 4 s" in message
    seconds = float(message.rsplit("[after ", 1)[1].rstrip("s]"))
    assert seconds < TIMEOUT_S + 10

"""The SWA pool resolver: the table's decision diagram walked over a model runner's facts."""

from __future__ import annotations

from typing import Any

from ..table.decider import Decider, PolicyError
from .facts import SAFE_WHEN, RunnerFacts


def resolve(decider: Decider, model_runner: Any, types: tuple[type, ...]) -> Any:
    """The pool the table answers for this runner, with the place's SWA pool check `types`.

    Facts are read as the walk needs them, in table order. An answered pool is one that
    passed the check on the walk's path (the contract makes every table so at load); a
    diagram that answered another would be refused here rather than translate through it.
    """
    facts = RunnerFacts(model_runner, types)
    decision = decider.answer(facts.read)
    if decision is None:
        raise PolicyError(f"{decider.path}: no rule decides this model runner; the table has a gap")
    if decision.output == "none":
        return None
    fact = SAFE_WHEN[decision.output]
    try:
        return facts.passed[fact]
    except KeyError:
        raise PolicyError(f"{decider.path}: rule '{decision.rule_id}' answered '{decision.output}', a pool "
                          "that did not pass the SWA check") from None

"""Deciding: facts outside the domain, hostile fact objects, and what is said first."""

from __future__ import annotations
import pytest
from swapool import PolicyError, load_policy
from swapool.cli import main

from ..helpers import SHIPPED, algorithms, mini


class _PosesAsStr:
    """Claims to be a str through `__class__` and equals every string."""

    @property  # type: ignore[misc]
    def __class__(self):
        return str

    def __hash__(self):
        return hash("EAGLE")

    def __eq__(self, other):
        return True



class _ReprRaises:
    def __repr__(self):
        raise RuntimeError("repr exploded")



@pytest.mark.parametrize("fact", [_PosesAsStr(), _ReprRaises()], ids=["poses-as-str", "repr-raises"])
def test_a_hostile_fact_object_is_refused_as_out_of_domain(fact):
    from ..swa.test_policy import runner

    policy = load_policy(SHIPPED, import_enums=False)
    with pytest.raises(PolicyError, match="spec_algorithm=.* is not in the domain"):
        policy.decide(active_pool="other", is_draft_worker=True, spec_algorithm=fact, allocator_kvcache="swa")
    with pytest.raises(PolicyError, match="spec_algorithm=.* is not in the domain"):
        policy.resolve(runner("other", True, fact, "swa"))



def test_a_misspelt_fact_is_named_as_such_before_the_advice_to_add_it():
    policy = load_policy(SHIPPED, import_enums=False)
    facts = dict(active_pool="other", is_draft_worker=True, allocator_kvcache="swa")
    with pytest.raises(PolicyError, match="Did you mean 'EAGLE'[?] If it is a new value: append it"):
        policy.decide(spec_algorithm="EAGEL", **facts)
    unknown = "ZZQX_UNLISTED"  # like no algorithm's name, so no "did you mean"
    assert unknown not in algorithms()
    with pytest.raises(PolicyError) as refused:
        policy.decide(spec_algorithm=unknown, **facts)
    assert "Did you mean" not in str(refused.value) and "Append it to" in str(refused.value)


def test_explain_answers_mid_edit_with_exit_1(capsys, write):
    mid_edit = str(write(mini("- {id: rx, when: {a: x}, then: p}\n- {id: ry, when: {a: y}, then: q}\n")))
    assert main(["explain", mid_edit, "--set", "a=x"]) == 1
    captured = capsys.readouterr()
    assert "decision: p" in captured.out and "has 1 error(s) (gap)" in captured.err
    assert main(["explain", mid_edit, "--set", "a=z", "--set", "b=true"]) == 1
    assert "gap" in capsys.readouterr().err


@pytest.mark.parametrize("fact", [1, "true", None])
def test_a_non_bool_fact_for_a_bool_input_says_the_input_takes_true_or_false(fact):
    from ..swa.test_policy import runner

    policy = load_policy(SHIPPED, import_enums=False)
    said = "is_draft_worker=.* is not a bool: input 'is_draft_worker' .* takes true or false"
    with pytest.raises(PolicyError, match=said) as refused:
        policy.decide(active_pool="other", is_draft_worker=fact, spec_algorithm="EAGLE", allocator_kvcache="swa")
    assert "values of" not in str(refused.value) and "Append" not in str(refused.value)
    with pytest.raises(PolicyError, match=said):
        policy.resolve(runner("other", fact, "EAGLE", "swa"))


def test_str_is_what_the_cli_prints_and_repr_is_short(capsys):
    from swapool.table.check import check_path

    policy = load_policy(SHIPPED, import_enums=False)
    facts = dict(active_pool="other", is_draft_worker=True, spec_algorithm="EAGLE", allocator_kvcache="swa")
    explained = policy.explain(**facts)
    assert main(["explain", str(SHIPPED), *[f"--set={k}={str(v).lower() if v is True else v}" for k, v in facts.items()]]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith(str(explained) + "\n") and printed.count("\n") == str(explained).count("\n") + 2
    assert "not read: allocator_kvcache" in printed  # the CLI adds what the facts given did not decide
    assert str(explained.decision) == f"{explained.decision.output} by rule '{explained.rule.id}'"
    assert repr(explained) == f"<Explanation {explained.decision.output} by rule {explained.rule.id} at {explained.rule.span}>"
    assert str(policy).startswith(f"swa_kv_pool table {SHIPPED} (sha256:") and len(repr(policy)) < 200
    checked = check_path(SHIPPED)
    assert str(checked).splitlines()[-1].startswith(f"{SHIPPED}: valid (0 error(s)")
    assert repr(checked).startswith(f"<Checked {SHIPPED}: valid") and "Cell(" not in repr(checked) + str(checked)

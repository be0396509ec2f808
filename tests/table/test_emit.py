"""Rules written back as table data."""

from ..helpers import SHIPPED, check


def test_rules_written_back_as_data_build_the_same_rules():
    """One cell grammar both ways: the rules as `rule_data` writes them (what a merge or a
    mutant proposes to paste), put back in the table, build the same cells."""
    import yaml

    from swapool.table.emit import rule_data

    for path in (SHIPPED, SHIPPED.parent / "swa_backends.yaml"):
        table = check(path.read_text(), folder=path.parent).table
        data = yaml.safe_load(path.read_text())
        data["rules"] = [rule_data(table, r) for r in table.rules]
        again = check(yaml.safe_dump(data, sort_keys=False), folder=path.parent).table
        assert again is not None

        def shape(t):
            return [(r.id, r.then, r.why, [(c.mask, c.form, c.named, c.sets) for c in r.cells]) for r in t.rules]
        assert shape(again) == shape(table)

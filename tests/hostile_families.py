"""Generators of hostile tables that are too large or too many to keep as files in
tests/corpus/hostile: each returns YAML text (see tests/table/test_partition.py for what each must do)."""

from __future__ import annotations


def chain(n: int, hit_policy: str = "first") -> str:
    """n bool inputs; rule i decides when x_i is true; a catch-all decides the rest. An
    analysis that memoises on sets of live rules needs 2^n nodes here."""
    inputs = "".join(f"  x{i}: {{type: bool}}\n" for i in range(n))
    rules = "".join(f"  - {{id: r{i}, when: {{x{i}: true}}, then: p}}\n" for i in range(n))
    return (f"format: 1\ndecision: chain\nhit_policy: {hit_policy}\ninputs:\n{inputs}"
            f"output: {{values: [p, q]}}\nrules:\n{rules}  - {{id: rest, then: q}}\n")


def wide_input(values: int) -> str:
    """One input with `values` values, two rules splitting them."""
    names = ", ".join(f"v{i}" for i in range(values))
    return (f"format: 1\ndecision: wide\nhit_policy: first\ninputs:\n  a: {{values: [{names}], wildcard: true}}\n"
            "output: {values: [p, q]}\nrules:\n  - {id: first, when: {a: v0}, then: p}\n  - {id: rest, then: q}\n")


def identical_rules(n: int) -> str:
    """n rules with the same cell: every pair overlaps."""
    rules = "".join(f"  - {{id: r{i}, when: {{a: x}}, then: p}}\n" for i in range(n))
    return ("format: 1\ndecision: same\nhit_policy: unique\ninputs:\n  a: {values: [x, y]}\n"
            f"output: {{values: [p]}}\nrules:\n{rules}  - {{id: ry, when: {{a: y}}, then: p}}\n")


def random_cubes(inputs: int, values: int, rules: int, seed: int = 0) -> str:
    """Rules with no common structure over wide inputs: the analysis's worst case."""
    import random
    rng = random.Random(seed)
    ins = "".join(f"  i{k}: {{values: [{', '.join(f'v{j}' for j in range(values))}], wildcard: true}}\n"
                  for k in range(inputs))
    body = []
    for r in range(rules):
        cells = ", ".join(f"i{k}: [{', '.join(f'v{j}' for j in rng.sample(range(values), values // 2))}]"
                          for k in range(inputs))
        body.append(f"  - {{id: r{r}, when: {{{cells}}}, then: p}}\n")
    return (f"format: 1\ndecision: noise\nhit_policy: first\ninputs:\n{ins}output: {{values: [p, q]}}\n"
            f"rules:\n{''.join(body)}  - {{id: rest, then: q}}\n")


def guarded_chain(n: int) -> str:
    """Rule i decides when x_i is true and y is a; a catch-all decides the rest. The alive
    rule sets are all 2^n subsets, but rules whose remaining cells are equal decide alike."""
    inputs = "".join(f"  x{i}: {{type: bool}}\n" for i in range(n)) + "  y: {values: [a, b], wildcard: true}\n"
    rules = "".join(f"  - {{id: r{i}, when: {{x{i}: true, y: a}}, then: p}}\n" for i in range(n))
    return (f"format: 1\ndecision: guarded\nhit_policy: first\ninputs:\n{inputs}"
            f"output: {{values: [p, q]}}\nrules:\n{rules}  - {{id: rest, then: q}}\n")


def many_anchors(n: int) -> str:
    """n small anchored mappings in one list: a reader whose work per anchor grows with the
    document (copying every mark so far) is quadratic here (8,000 took 38 s)."""
    items = "".join(f"  - &a{i} {{k: v{i}}}\n" for i in range(n))
    return f"format: 1\nextra:\n{items}"


def misspelt_keys(n: int) -> str:
    """n rules, each with `id` misspelt: every rule is both missing a key and holding an
    unknown one. Pairing each missing key with its typo by rescanning every error is
    quadratic here (80 KB took 26 s)."""
    rules = "".join(f"  - {{idd: r{i}, when: {{a: x}}, then: p}}\n" for i in range(n))
    return ("format: 1\ndecision: typos\nhit_policy: first\ninputs:\n  a: {values: [x, y]}\n"
            f"output: {{values: [p]}}\nrules:\n{rules}")


def misspelt_values(n: int, values: int) -> str:
    """An input with `values` values and n rules naming a misspelt one: did-you-mean over
    the whole domain for every unknown value is n x values edit distances (46 KB: 23 s)."""
    names = ", ".join(f"value{i}" for i in range(values))
    rules = "".join(f"  - {{id: r{i}, when: {{a: valeu{i % values}}}, then: p}}\n" for i in range(n))
    return (f"format: 1\ndecision: typos\nhit_policy: first\ninputs:\n  a: {{values: [{names}]}}\n"
            f"output: {{values: [p]}}\nrules:\n{rules}")

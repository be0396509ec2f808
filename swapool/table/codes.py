"""The registry of finding codes: for each, what it means, why it matters, an example, the
fix, and the words a finding of it is said in.

A finding is data (its code, span and facts); the words live here, one place per code,
and are put together only when a finding is shown. `swapool codes CODE` prints an entry,
SARIF lists them, and docs/codes.md is generated from them
(tests/test_docs.py). The engine registers its own codes here; an application built on it
registers its own with `register`, and a finding with a code nobody registered, a variant
its code does not word, or without a fact its words need cannot be made."""

from __future__ import annotations

import string
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping, Union

from .text import article, describe_terms, format_value, quoted, shown_list

#: A sentence: a template over the finding's facts (see `Words`), or a function of them.
Wording = Union[str, Callable[[Mapping[str, Any]], "str | None"]]

#: Rule ids a sentence names before "and N more"; values before it, in two lengths.
SHOWN_RULES = 3
SHOWN_VALUES = 8
LISTED_VALUES = 12


def _ids(ids: Any) -> str:
    return shown_list(ids, SHOWN_RULES, quoted)


def _json(value: Any) -> str:
    import json  # only when a finding is shown: the happy path imports no more than it needs

    text = json.dumps(value, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def _yaml(value: Any) -> str:
    return "null" if value is None else repr(value).lower() if isinstance(value, bool) else repr(value)


class Words(string.Formatter):
    """Templates over facts. `{x}` writes a value as a table does (true, not True); a spec
    says how else: `q` quoted, `r` its repr, `ids` rule ids ('a', 'b' and 3 more),
    `values`/`list` values (8/12 before "and N more"), `all` every value, `region` a region
    (`a=x, b in [y, z]`), `a` a noun with its article, `json` a shortened JSON value, `yaml` a YAML scalar; other specs
    are Python's (`04x`, `,`)."""

    SPECS: Mapping[str, Callable[[Any], str]] = {
        "q": lambda v: quoted(format_value(v)),
        "r": lambda v: repr(format_value(v)),
        "ids": _ids,
        "values": lambda v: shown_list(v, SHOWN_VALUES),
        "list": lambda v: shown_list(v, LISTED_VALUES),
        "all": lambda v: ", ".join(map(format_value, v)),
        "region": describe_terms,
        "json": _json,
        "yaml": _yaml,
        "a": article,
    }

    def format_field(self, value: Any, format_spec: str) -> str:
        show = self.SPECS.get(format_spec)
        if show is not None:
            return show(value)
        return format(value, format_spec) if format_spec else format_value(value)


_WORDS = Words()


def fields_of(template: str) -> frozenset[str]:
    """The facts a template reads."""
    return frozenset(name.split("[")[0].split(".")[0] for _, name, _, _ in _WORDS.parse(template) if name)


@dataclass(frozen=True)
class Code:
    """One finding code. `says` and `helps` word a finding: one wording, or one per variant
    (the finding's `problem` fact names its variant: a file can be missing or a directory)."""

    name: str
    summary: str
    severity: str  # as docs/codes.md states it (some depend on the table: "error (warning with ...)")
    example: str
    fix: str
    why: str = ""  # why it matters: what `swapool codes CODE` explains beyond the summary
    says: Wording | Mapping[str, Wording] = ""
    helps: Wording | Mapping[str, Wording] | None = None
    derived: Mapping[str, Callable[[Mapping[str, Any]], Any]] = field(default_factory=dict)  # facts put in words

    def variants(self) -> tuple[str, ...]:
        return tuple(self.says) if isinstance(self.says, Mapping) else ("",)

    def needs(self, problem: str) -> frozenset[str]:
        """The facts a finding of this variant must carry (what its templates read)."""
        needed: set[str] = set()
        for wording in (_pick(self.says, problem), _pick(self.helps, problem)):
            if isinstance(wording, str):
                needed |= fields_of(wording)
        return frozenset(needed - set(self.derived)) | (frozenset({"problem"}) if problem else frozenset())

    def message(self, facts: Mapping[str, Any]) -> str:
        return _say(self, self.says, facts) or ""

    def help(self, facts: Mapping[str, Any]) -> str | None:
        return _say(self, self.helps, facts)


def _pick(wording: Any, problem: str) -> Wording | None:
    return wording.get(problem) if isinstance(wording, Mapping) else wording


def _say(code: Code, wording: Any, facts: Mapping[str, Any]) -> str | None:
    chosen = _pick(wording, facts.get("problem", ""))
    if chosen is None:
        return None
    if code.derived:
        facts = {**facts, **{name: make(facts) for name, make in code.derived.items()}}
    if callable(chosen):
        return chosen(facts)
    return _WORDS.vformat(chosen, (), facts)


def say(template: str, facts: Mapping[str, Any]) -> str:
    """`template` over `facts`, for a wording function that picks among templates."""
    return _WORDS.vformat(template, (), facts)


def _did_you_mean(facts: Mapping[str, Any]) -> str | None:
    near = facts.get("suggestion")
    return None if near is None else f"did you mean '{format_value(near)}'?"


def _left_out(facts: Mapping[str, Any]) -> str:
    """rule 'a', case 2 and invariant 'b' (each kind shortened on its own)."""
    parts = []
    for kind, show in (("rules", quoted), ("cases", str), ("invariants", quoted)):
        items = facts.get(f"{kind}_left_out") or []
        if items:
            noun = kind if len(items) > 1 else kind[:-1]
            parts.append(f"{noun} {shown_list(items, LISTED_VALUES, show)}")
    return ", ".join(parts)


def _parser_help(problem: str, at: str) -> str | None:
    if at == "\t" or "'\\t'" in problem:
        return "YAML indentation must use spaces, not tabs"
    if "found unexpected ':'" in problem:
        return "quote a value that holds ':', and write ': ' (a colon and a space) after a key"
    if "sequence entries are not allowed" in problem:
        return "a bare '-' is a list marker in block style; quote it ('-') for the 'any value' cell"
    return None


_ITEMS = {"rules": "rule", "invariants": "invariant", "cases": "case"}


def _where(facts: Mapping[str, Any]) -> str:
    """A place in the document as a person names it: rules and invariants by id (the
    `item` fact), cases by number, the rest as a path."""
    path = tuple(facts.get("path", ()))
    if len(path) >= 2 and path[0] in _ITEMS and isinstance(path[1], int):
        ident = facts.get("item")
        kind = _ITEMS[path[0]]
        head = f"{kind} '{ident}'" if isinstance(ident, str) and path[0] != "cases" else f"{kind} {path[1] + 1}"
        rest = "/".join(str(p) for p in path[2:])
        return head + (f" ({rest})" if rest else "")
    return "/".join(str(p) for p in path) or "the document"


_VALUE_HINTS = {"yaml-bool": "YAML reads yes/no/on/off/true/false as booleans; quote the value",
                "bool": "this input has type bool: write true or false"}


def _requirement(required: Mapping[str, Any]) -> str:
    """What an invariant's `then` asks for: `output` (the outputs it allows, when not all)
    and the region its inputs must lie in."""
    parts = []
    outputs = required.get("output")
    if outputs is not None:
        parts.append("output " + " or ".join(quoted(o) for o in outputs))
    region = {k: v for k, v in required.items() if k != "output"}
    if region:
        parts.append(describe_terms(region))
    return " and ".join(parts) or "nothing"


def yaml_flow(rule: Mapping[str, Any], **missing: Any) -> str:
    """A rule given as table data, as one line of flow-style YAML to paste under `rules:`
    (PyYAML writes it, quoting what YAML would misread: `yes`, `-`, `1.0`); `missing`
    stands in for values the data leaves open (None)."""
    import yaml  # only when the words are shown

    data = {k: missing.get(k, v) if v is None else v for k, v in rule.items()}
    return yaml.safe_dump(data, default_flow_style=True, sort_keys=False, width=float("inf")).strip()


def adding_hint(name: str, sets: Any, value: Any) -> str:
    """How to add `value` to input `name`'s domain: with named sets, into the one it belongs to."""
    if sets:
        return f"append {format_value(value)} to the one of {name}'s sets ({', '.join(sets)}) it belongs to"
    return f"add {format_value(value)} to the values of {name} and name it in the rule that should decide it"


#: Every registered code, in the order registered.
CATALOGUE: dict[str, Code] = {}


def register(*codes: Code) -> None:
    """Add codes to the registry (registering the same code again is a no-op; a different
    code under a registered name is a mistake)."""
    for code in codes:
        if CATALOGUE.setdefault(code.name, code) != code:
            raise ValueError(f"finding code {code.name!r} is registered twice, differently")


register(*(
    Code('io',
         'the file cannot be read (missing, a directory, too large, not UTF-8)',
         'error (exit 2)',
         '`t.yaml: no such file`',
         'check the path; files must be UTF-8 and under 1 MiB',
         why='swapool judges only what it can read whole; a table it cannot read must not be mistaken for a valid one',
         says={'empty-path': 'an empty path names no table file',
               'missing': '{file}: no such file',
               'directory': '{file} is a directory, expected a YAML table file',
               'unreadable': '{file}: cannot read: {reason}',
               'not-regular': '{file} is not a regular file (a pipe or device?); expected a YAML table file',
               'too-large': '{file} is larger than {limit} bytes; a policy table is a few kilobytes',
               'closed': '{file}: standard input is closed',
               'utf-16': 'the file is UTF-16; a policy table must be UTF-8',
               'not-utf-8': 'byte 0x{byte:02x} is not valid UTF-8; save the file as UTF-8'}),
    Code('yaml-syntax',
         'the file is not well-formed YAML',
         'error',
         '`t.yaml:3:1: found character that cannot start any token`',
         'fix the YAML (spaces, not tabs; quote a bare `-`)',
         why="a table that is not YAML has no meaning to check; swapool accepts only what libyaml and PyYAML's own parser read alike, so a verdict never depends on the machine",
         says={'tab': 'a tab character',
               'bom': 'a byte-order mark (U+FEFF) inside the text',
               'parser': '{parser}',
               'control-character': 'character #x{char:04x} is not allowed in YAML text',
               'recursive-alias': 'alias *{anchor} is inside the value it names (a recursive alias)',
               'tight-colon': "no space after the ':' inside [...] or {{...}}",
               'flow-indicator': "an unquoted value holding '{char}' inside [...] or {{...}}",
               'block-comment': "a comment right after a block scalar's '|' or '>'",
               'too-deep': 'nesting deeper than {limit} levels'},
         helps={'tab': "swapool's YAML has no tabs (YAML parsers disagree about them); use spaces, and "
                       "write \\t in a double-quoted string",
                'bom': 'remove it',
                'parser': lambda f: _parser_help(f['parser'], f.get('at', '')),
                'control-character': 'remove the control character',
                'recursive-alias': 'write the table out without anchors and aliases',
                'tight-colon': "write ': ' (a colon and a space)",
                'flow-indicator': "quote it: '{value}'",
                'block-comment': "put a space before the '#'"}),
    Code('yaml-duplicate-key',
         'a mapping names the same key twice',
         'error',
         "`key 'then' appears twice in this mapping (first at line 7)`",
         'keep one',
         why='YAML parsers keep one of the two silently; which one the author meant is a guess swapool will not make',
         says="key '{key}' appears twice in this mapping (first at line {first_line})",
         helps='remove or rename one of them'),
    Code('yaml-tag',
         'a YAML tag or type that a table cannot hold (python objects, dates, merges)',
         'error',
         "`a value of YAML type 'python/object/apply' cannot appear in a policy table`",
         'plain strings, lists and mappings only',
         why='a table is data: a tag that builds objects, dates or merges would run code or change meaning outside the format',
         says={'long-number': "a number of {length} characters; a table's numbers have at most {limit}",
               'bad-value': "'{value}' is not a valid {kind} (its tag says !!{kind})",
               'misfit': 'the tag !!{kind} does not fit {on}',
               'type': "a value of YAML type '{kind}' cannot appear in a policy table"},
         helps={'long-number': 'quote it if it is a name',
                'bad-value': 'remove the tag or fix the value',
                'misfit': 'remove the tag',
                'type': 'use plain strings, numbers, booleans, lists and mappings; quote the value if it should be '
                        'a string'}),
    Code('yaml-alias-bomb',
         'aliases expand past the node limit',
         'error',
         '`the document expands to more than 200000 nodes`',
         'write the table out without aliases',
         why="a few aliases can expand to millions of nodes (the 'billion laughs'); the check must stay bounded",
         says='the document expands to more than {limit} nodes (aliases?)',
         helps='write the table out without anchors and aliases'),
    Code('yaml-key-type',
         'a mapping key that is not a string',
         'error',
         '`mapping key true is not a string`',
         'quote `on`/`yes`/... keys',
         why='YAML reads unquoted yes/no/on/off and numbers as non-strings; a key that is not a string cannot name anything',
         says='mapping key {key:yaml} is not a string',
         helps='quote the key; YAML reads yes/no/on/off as booleans'),
    Code('schema',
         'the document does not match the table format (its JSON Schema: `swapool schema`)',
         'error',
         "`unknown key 'than' in rule 'ry'; expected one of: id, when, then, why` (help: did you mean 'then'?)",
         'follow the format',
         why='the format is a contract (its JSON Schema); anything outside it has no defined meaning',
         says={'unknown-key': "unknown key '{got}' in {where}; expected one of: {expected:all}",
               'missing-key': "{where} is missing the required key '{expected[0]}'",
               'type': '{where}: expected {expected:a}, got {got} {value:json}',
               'domain': lambda f: say("input '{input}' takes its values from one of 'type: bool', 'values: [...]' "
                                       "and/or 'sets: {{...}}', or 'from: FILE' (no 'enum' with it); it has ", f)
                                   + (', '.join(f['given']) or 'none of them'),
               'set-name': "{where}: expected a value set's name or a list of them, got {got} {value:json}",
               'identifier': "{where}: name {got:json} is not an identifier (letters, digits and '_', not starting "
                             "with a digit)",
               'pattern': '{where}: {got:json} does not match the pattern {expected}',
               'const': '{where}: expected {expected:json}, got {got:json}',
               'enum': '{where}: expected one of {expected:all}, got {got:json}',
               'dash-value': "{where}: a value cannot be named '-': a cell reads '-' as any value",
               'empty': '{where}: must not be empty',
               'other': '{where}: {detail}',
               'cell-key': "{where}: a mapping cell is {{not: [values]}} or {{in: set}}; '{got}' is not a cell key",
               'cell-keys': '{where}: a mapping cell is {{not: [values]}} or {{in: set}}; it holds one of the two '
                            'keys, not both',
               'cell-empty': '{where}: a mapping cell is {{not: [values]}} or {{in: set}}; this one is empty',
               'cell-form': "{where}: a cell is a value, a list of values, '-', {{not: [values]}} or {{in: set}}; "
                            "got {got} {value:json}",
               'no-document': 'the file holds no YAML document; expected a table mapping'},
         helps={'unknown-key': _did_you_mean, 'enum': _did_you_mean, 'cell-key': _did_you_mean},
         derived={'where': _where}),
    Code('unknown-input',
         'a rule, case or invariant names an input the table does not declare',
         'error',
         "`'algo' is not an input of this table`",
         'use a declared input name',
         why='a cell for an input the table does not declare would decide on a fact that is never read',
         says="'{got}' is not an input of this table (inputs: {expected:all})",
         helps=_did_you_mean),
    Code('unknown-value',
         "a cell or case names a value outside the input's or output's domain",
         'error',
         "`'fsat' is not a value of input 'mode'` (help: did you mean 'fast'?)",
         'use a declared value (quote `yes`/`no`)',
         why="a value outside the input's domain is usually a misspelling; the rule would silently never match it",
         says={'input': "{got:r} is not a value of input '{input}' (expected one of: {expected:list})",
               'output': "'{got}' is not an output value (expected one of: {expected:all})"},
         helps=lambda f: _VALUE_HINTS.get(f.get('hint', '')) or _did_you_mean(f)),
    Code('unknown-set',
         "an `{in: ...}` cell or case names a value set its input does not declare",
         'error',
         "`'quick' is not a value set of input 'mode'` (help: did you mean 'quickly'?)",
         'use a set declared under the input\'s `sets:`',
         why='a set name that is not declared matches nothing, so the rule means less than it says',
         says=lambda f: say("'{got}' is not a value set of input '{input}' ", f) + (
             say('(its sets: {expected:all})', f) if f['expected'] else '(it declares no sets)'),
         helps=lambda f: _did_you_mean(f) or (None if f['expected'] else say('declare it under inputs: {input}: sets:', f))),
    Code('import',
         'an input written `from: FILE` cannot take its values from there',
         'error',
         "`input 'mode' imports from base.yaml, which has no input 'mode'`",
         'name a table in the same folder that lists the input (not imported again)',
         why="an input's values come from another table; if that table cannot supply them, this one has no domain",
         says={'no-folder': "input '{input}' imports from {file}, but this table was not read from a file, so "
                            "there is no folder to find it in",
               'outside': "input '{input}' imports from {file}, which leads out of the table's folder (a link to "
                          "elsewhere); an import must be a file beside the table",
               'no-input': "input '{got}' imports from {file}, which has no input '{got}' (its inputs: {expected:all})",
               'imported-again': "input '{input}' imports from {file}, where it is imported again (from {again}); "
                                 "import from the table that lists the values",
               'itself': 'a table cannot import from itself ({file})',
               'unreadable': 'cannot import from {file}: {reason}',
               'too-large': 'cannot import from {file}: the tables this one imports hold more than {limit} bytes '
                            'together',
               'invalid': lambda f: say('{shown}, imported here, is not a valid table ({count} problem(s); the first '
                                        'is {first}', f) + (say(' at {first_line}:{first_column}', f)
                                                            if f.get('first_line') else '') + ')'},
         helps={'no-folder': 'check the file itself, or give standard input the name of a file in the folder of the '
                             'table it imports from',
                'outside': 'copy the table beside this one, or import from the file it links to',
                'no-input': _did_you_mean,
                'invalid': 'run: swapool validate {shown}'}),
    Code('uncased-value',
         'a value of an engine-bound input (`enum:`) that no case names, by value or through its set',
         'warning (error with --strict)',
         "`no case exercises exact of input 'mode' (bound to the engine's Mode)`",
         'add a case naming the value, or a case over its set (`{in: quickly}`)',
         why='a value of an engine-bound input that no golden case exercises can change behaviour without any case noticing',
         says="no case exercises {got:values} of input '{input}' (bound to the engine's {enum_class})",
         helps=lambda f: say('add a case that names it, or its set: given: {{{input}: {{in: {homes[0]}}}}}, ...', f)
         if f['homes'] else say('add a case with given: {{{input}: {got[0]}, ...}}', f),
         derived={'enum_class': lambda f: f['enum'].split(':')[-1]}),
    Code('duplicate-value',
         'an input or output lists the same value twice',
         'error',
         "`input 'mode' lists the value 'fast' twice`",
         'remove one',
         why='a value listed twice in one list is a slip; with sets it can also mean a value was put in two lists',
         says={'input': "input '{input}' lists the value '{got}' twice",
               'output': "output lists the value '{got}' twice",
               'set': "value set '{set}' of input '{input}' lists the value '{got}' twice"}),
    Code('duplicate-rule-id',
         'two rules share an id',
         'error',
         "`rule id 'x' is already used by the rule at line 51`",
         'rename',
         why='findings, diffs and server logs name rules by id; two rules with one id make every such line ambiguous',
         says="rule id '{got}' is already used by the rule at line {first_line}",
         helps='give every rule a distinct id'),
    Code('gap',
         'an input combination that no rule decides',
         'error',
         '`no rule decides mode=exact, draft=true`',
         'add the rule its help shows, with the output you choose, or widen a rule',
         why='an input combination no rule decides has no answer at run time: the server would refuse it, or an engine would crash',
         says='no rule decides {region:region}',
         helps=lambda f: f"add - {yaml_flow(f['closing'], then='TODO')} with TODO one of: "
         + shown_list(f['outputs'], LISTED_VALUES) + " (or widen a rule's cell to cover it)"),
    Code('overlap',
         'under hit_policy unique, an input combination that two rules decide; under any, one two rules decide differently',
         'error',
         "`rules 'a' and 'b' conflict: both decide ..., 'a' as 'none' and 'b' as 'cache'`",
         'make the cells disjoint, or choose a hit policy that decides (`first`, `priority`)',
         why='two rules that both match and decide differently leave the answer to their order, which nobody reviewed',
         says={'conflict': "rules '{first}' and '{rule}' conflict: both decide {region:region}, '{first}' as "
                           "'{first_then}' and '{rule}' as '{then}'",
               'shared': lambda f: (say("rule '{rule}' overlaps ", f) + shown_list(f['partners'], SHOWN_RULES, quoted,
                                                                                total=f['total']) + ' (same output)'
                                    if f['same'] else say("rule '{rule}' ('{then}') overlaps ", f) + shown_list(
                                        [f"'{p}' ('{o}')" for p, o in zip(f['partners'], f['partner_outputs'])],
                                        SHOWN_RULES, str, total=f['total']))
               + say(': both decide {region:region}', f)},
         helps='make the cells disjoint, or use hit_policy: first (or priority) if order should decide'),
    Code('unreachable-rule',
         'under hit_policy first or priority, a rule that rules ranked before it hide everywhere',
         'error',
         "`rule 'c' can never fire: earlier rules 'a', 'b' decide every input it matches`",
         'remove it, or move it up (first) or change its output (priority)',
         why='a rule that others always pre-empt never decides anything; its presence misleads a reader about what the table does',
         says={'first': lambda f: say("rule '{rule}' can never fire: ", f) + (
                   say('earlier rule {hiders:ids} decides', f) if len(f['hiders']) == 1
                   else say('earlier rules {hiders:ids} decide', f)) + ' every input it matches',
               'priority': lambda f: say("rule '{rule}' can never fire: ", f) + (
                   say('rule {hiders:ids}, of higher or equal priority, decides', f) if len(f['hiders']) == 1
                   else say('rules {hiders:ids}, of higher or equal priority, decide', f)) + ' every input it matches'},
         helps={'first': 'remove the rule, or move it above the rules that hide it',
                'priority': "remove the rule; its output is listed after theirs in output: values"}),
    Code('redundant-rule',
         'under hit_policy first, any or priority, a rule whose removal changes no decision; removing every one named keeps every decision',
         'warning',
         "`rule 'c' is redundant: later rules decide every input it decides the same way`",
         'remove it',
         why='a rule whose inputs other rules decide the same way can be removed without changing any decision; '
             'the rules named are judged one after another, so removing all of them is safe too',
         says={'later': "rule '{rule}' is redundant: later rules decide every input it decides the same way ('{then}')",
               'others': "rule '{rule}' is redundant: other rules decide every input it decides the same way ('{then}')"},
         helps={'later': 'remove the rule, or narrow the later rules if it should matter',
                'others': 'remove the rule, or narrow the other rules if it should matter'}),
    Code('analysis-partial',
         'some rules, cases or invariants failed to build; the findings about the rest (marked partial) are still given',
         'note',
         "`the analysis left out rule 'r1' (which failed to build); the findings about the rest are partial`",
         'fix the errors above; the partial findings may change once every rule builds',
         why="one misspelt value should not hide a gap or an overlap elsewhere; but a gap may be one the broken rule "
             "would close, so those findings are marked partial",
         says=lambda f: 'the analysis left out ' + _left_out(f) + ' (which failed to build); the findings about '
         'the rest are partial'),
    Code('mergeable-rules',
         'rules that differ in one cell only and decide alike: one rule can replace them, deciding every input as before',
         'note',
         "`rules 'fast', 'safe' can be one rule: they differ only in 'mode' and decide alike ('cache')`",
         'replace them with the merged rule it shows',
         why='fewer rules say the same; a note, not a warning, because rules kept apart (with a why each) can be '
             'deliberate, and a strict check must not fail a correct table',
         says="rules {ids:ids} can be one rule: they differ only in '{input}' and decide alike ('{then}')",
         helps=lambda f: f"replace them with - {yaml_flow(f['merged'])}"),
    Code('invariant',
         'an input the table decides against one of its invariants',
         'error',
         "`rule 'cache-drafts' breaks invariant 'drafts-never-cache'`",
         'fix the rule (or the invariant)',
         why='an invariant states what must hold whatever the rules say; a broken one is the bug the table exists to prevent',
         says=lambda f: say("rule '{rule}' breaks invariant '{invariant}': where {region:region} it decides "
                           "'{then}', but the invariant requires ", f) + _requirement(f['expected'])
         + (f" ({' '.join(f['why'].split())})" if f.get('why') else ''),
         helps='narrow the rule, or fix the invariant if the rule is right'),
    Code('case-failed',
         "a golden case whose expected output differs from the table's decision",
         'error',
         "`case 4 expects 'none', but rule 'cache-drafts' decides 'cache'`",
         'fix the rule (or the case)',
         why='a golden case is the specification by example; a table that disagrees with one has changed behaviour someone pinned down',
         says=lambda f: say("case {case} expects '{expected}', but ", f) + (
             say("rule '{rule}' decides '{got}'", f) if f.get('rule') is not None else 'no rule decides it'),
         helps='fix the rule if the case is right; fix the case if the rule is'),
    Code('empty-cell',
         'a cell whose value set is empty, so its rule can never match',
         'error',
         "`rule 'r' can never match: its cell for 'a' matches no value`",
         'a `not` listing everything matches nothing',
         why='a cell that matches no value makes its rule dead, which is never what was written',
         says="rule '{rule}' can never match: its cell for '{input}' matches no value",
         helps='a {{not: [...]}} that lists every value, or an empty list, matches nothing'),
    Code('full-domain-cell',
         "a cell that lists the whole domain; write '-' instead",
         'warning',
         "`rule 'r' lists every value of 'mode'`",
         'write `-`',
         why="listing every value reads as a restriction but is none; '-' says it, and stays right when a value is added",
         says="rule '{rule}' lists every value of '{input}'",
         helps="write '-' so that a value added later is not silently left out"),
    Code('unnamed-value',
         "an enumeration value that no rule names, decided only through '-' or 'not' cells",
         'error (a note with `wildcard: true`, the author\'s opt-in); `values` inputs only, a bool cannot grow',
         "`no rule names exact of input 'mode'; only wildcards in ... decide it`",
         'name the value in the rule that should decide it',
         why='a value only wildcards decide gets whatever the catch-all says, including a value added later without review',
         says=lambda f: say("no rule names {got:values} of input '{input}'; ", f) + (
             say('only wildcards in {absorbers:ids} decide it', f) if f['absorbers'] else 'nothing decides it'),
         helps=lambda f: 'name the value in the rule that should decide it' + (
             '' if f['wildcard'] else ", or set 'wildcard: true' on the input to allow wildcards")),
    Code('unused-input',
         'an input that no rule names: the decision never depends on it',
         'warning',
         "`no rule names a value of input 'x'`",
         'remove the input',
         why='an input no rule reads makes the decision look like it depends on a fact it ignores',
         says="no rule names a value of input '{input}': the decision never depends on it",
         helps='remove the input, or name its values in the rules that depend on it'),
    Code('enum-import',
         "an input's enum binding names a module that is not installed here",
         'note',
         "`'engine' is not installed here; drift from its members is not checked`",
         'install the engine to check',
         why="the drift check needs the engine's enum; where the engine is not installed it cannot run, and says so",
         says="input '{input}' is bound to {enum}, but '{module}' is not installed here; drift from its "
              "members is not checked",
         helps='install the engine in this environment to check the binding'),
    Code('enum-import-failed',
         "an input's enum binding names an installed module whose import fails",
         'warning',
         "`... is bound to engine.modes:Mode, and 'engine' is installed, but the import failed (...)`",
         'fix the environment so the engine imports, or check without importing enums',
         why='the engine is installed but its enum did not import, so the drift check silently did not run; --strict fails on it',
         says="input '{input}' is bound to {enum}, and '{module}' is installed, but the import failed "
              "({reason}); drift is not checked",
         helps='fix the environment so that the engine imports (a strict check fails on this), or check without '
               'importing enums'),
    Code('enum-missing-member',
         "an enum member that is not in the input's values",
         'error',
         "`... has member EXACT, which is not a value of input 'mode'`",
         'add and decide it',
         why='the engine has a member the table does not know: at run time that value has no decision',
         says="{enum} has member {got}, which is not a value of input '{input}': no rule decides it",
         helps=lambda f: adding_hint(f['input'], f['sets'], f['got'])),
    Code('enum-extra-value',
         "a value in the input's values that is not a member of its enum",
         'warning',
         "`value fsat of input 'mode' is not a member of ...`",
         'remove it',
         why='a value the engine does not have is a misspelling, or a table ahead of the engine; either should be seen',
         says="value {got} of input '{input}' is not a member of {enum}",
         helps='remove the value, or check the binding names the right enum'),
    Code('enum-not-allowed',
         "an input's enum binding names a module outside the allowed prefixes, so it is not imported",
         'warning',
         "`input 'mode' is bound to evil:A, but swapool imports enums only from engine`",
         "bind the engine's enum, or allow the module (`$SWAPOOL_ENUM_MODULES`) after reviewing it",
         why='importing a module runs its code; only modules the person running swapool allowed are imported, never ones a table names',
         says=lambda f: say("input '{input}' is bound to {enum}, but swapool imports enums only from ", f)
         + (', '.join(f['allowed']) or '(no module)') + '; drift is not checked',
         helps="bind to the engine's own enum, or allow the module (${setting}) after reviewing it: importing a "
               "module runs its code"),
    Code('analysis-budget',
         'the analysis needed more steps than its budget allows (the table is checked no further)',
         'error',
         '`the analysis stopped while splitting the input space (2,000,000 steps)`',
         'split the table, or order rules as a decision tree',
         why='exact gap and overlap analysis is coNP-hard in general; past its budget swapool stops rather than run away',
         says={'steps': 'the analysis stopped while {what} ({limit:,} steps); the table is too irregular to '
                         'check exactly',
               'cells': 'the table has {inputs:,} inputs and {rows:,} rules, cases and invariant conditions: '
                        '{cells:,} cells, more than the {limit:,} swapool checks'},
         helps={'steps': 'split the table, or make its rules follow the input order (as a decision tree does)',
                'cells': 'split the table; a decision table is a few dozen rows'}),
    Code('reserved-name',
         "an input named like a key the format reserves ('output')",
         'error',
         "`an input cannot be named 'output'`",
         'rename the input',
         why="invariant conditions use the key 'output' for the decision; an input of that name could not be told apart",
         says="an input cannot be named '{got}': invariant conditions use that key for the decision's output",
         helps='rename the input'),
))

"""Strict, safe YAML loading: every rejection names its line and column."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from swapool.table.check import check_path
from swapool.table.files import MAX_BYTES
from swapool.table.source import parse_document

from .. import hostile_families as families
from ..helpers import check, mini


def diag(text):
    doc, found = parse_document(text, "t.yaml")
    assert doc is None
    assert len(found) == 1
    return found[0]


def test_values_keep_line_and_column():
    doc, found = parse_document("a:\n  b: [x, 'y']\n", "t.yaml")
    assert not found
    assert doc.data == {"a": {"b": ["x", "y"]}}
    assert (doc.span(("a", "b", 1)).line, doc.span(("a", "b", 1)).column) == (2, 10)
    assert doc.key_span(("a", "b")).column == 3


def test_duplicate_key_is_an_error_with_both_lines():
    d = diag("a: 1\nb:\n  c: 1\n  c: 2\n")
    assert d.code == "yaml-duplicate-key"
    assert (d.span.line, d.span.column) == (4, 3)
    assert (d.facts.key, d.facts.first_line) == ("c", 3)


def test_python_tag_is_refused_without_constructing_anything():
    d = diag("a: !!python/object/apply:os.system ['echo hacked']\n")
    assert d.code == "yaml-tag"
    assert d.span.line == 1


def test_custom_tag_and_timestamp_are_refused():
    assert diag("a: !custom x\n").code == "yaml-tag"
    assert diag("a: 2024-01-01\n").code == "yaml-tag"


def test_merge_key_is_refused():
    assert diag("base: &b {x: 1}\nc:\n  <<: *b\n").code == "yaml-tag"


def test_boolean_key_is_refused_with_a_quoting_hint():
    d = diag("on: 1\n")
    assert d.code == "yaml-key-type"
    assert d.facts.key is True


def test_syntax_error_points_at_the_problem():
    d = diag("a: [x, y\nb: 1\n")
    assert d.code == "yaml-syntax"
    assert d.span.line == 2


def test_tab_indentation_gets_help():
    d = diag("a:\n\tb: 1\n")
    assert d.code == "yaml-syntax"
    assert d.span.line == 2
    assert d.facts.problem == "tab"


def test_alias_bomb_is_capped():
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 8):
        prev = f"*a{i-1}"
        lines.append(f"a{i}: &a{i} [{', '.join([prev] * 10)}]")
    d = diag("\n".join(lines) + "\n")
    assert d.code == "yaml-alias-bomb"


def test_recursive_alias_is_refused():
    assert diag("a: &x [*x]\n").code in ("yaml-syntax", "yaml-alias-bomb")


def test_non_utf8_byte_is_located():
    d = diag(b"a: 1\nb: \xff\n")
    assert d.code == "io"
    assert (d.span.line, d.span.column) == (2, 4)


def test_bom_is_accepted():
    doc, found = parse_document(b"\xef\xbb\xbfa: 1\n", "t.yaml")
    assert not found and doc.data == {"a": 1}


def test_empty_file_is_an_error():
    assert diag("").code == "schema"


def test_two_documents_are_refused():
    assert diag("a: 1\n---\nb: 2\n").code == "yaml-syntax"


def test_directory_missing_and_oversized_paths(tmp_path):
    found = check_path(tmp_path)
    assert found.table is None and found.diagnostics[0].code == "io" and found.diagnostics[0].facts.problem == "directory"
    found = check_path(tmp_path / "nope.yaml")
    assert found.table is None and found.diagnostics[0].facts.problem == "missing"
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    found = check_path(big)
    assert found.table is None and found.diagnostics[0].facts.as_dict() == {"problem": "too-large", "file": str(big), "limit": MAX_BYTES}


def test_digest_is_of_the_bytes():
    import hashlib
    doc, _ = parse_document(b"a: 1\n", "t.yaml")
    assert doc.digest == hashlib.sha256(b"a: 1\n").hexdigest()


# The data and positions come from PyYAML's composed nodes. The reference is PyYAML itself:
# the data yaml.load makes, and the marks of the nodes a separate yaml.compose makes.

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SCALARS = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
           | st.text(max_size=10) | st.sampled_from(["EAGLE", "-", "yes", "0x1F", "1_000", "~", "2.5e3", ""]))
DOCUMENTS = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4)
                         | st.dictionaries(st.text(max_size=6), kids, max_size=4), max_leaves=30)


def composed_marks(node, path=(), marks=None, key_marks=None):
    """(path -> value mark, path -> key mark) from PyYAML's node graph."""
    marks = {} if marks is None else marks
    key_marks = {} if key_marks is None else key_marks
    marks[path] = node.start_mark
    if isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            composed_marks(item, path + (i,), marks, key_marks)
    elif isinstance(node, yaml.MappingNode):
        for key, value in node.value:
            key_marks[path + (key.value,)] = key.start_mark
            composed_marks(value, path + (key.value,), marks, key_marks)
    return marks, key_marks


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(DOCUMENTS, st.sampled_from([None, True, False]), st.integers(2, 6), st.booleans())
def test_the_data_and_positions_are_the_ones_pyyaml_makes(data, flow, indent, canonical):
    text = yaml.safe_dump(data, default_flow_style=flow, indent=indent, canonical=canonical, allow_unicode=True)
    doc, found = parse_document(text, "t.yaml")
    assert not found, (text, found)
    assert doc.data == yaml.load(text, Loader=yaml.CSafeLoader)
    marks, key_marks = composed_marks(yaml.compose(text, Loader=yaml.CSafeLoader))
    for path, mark in marks.items():
        assert doc.span(path) == doc.lines.at(mark.index), (text, path)  # at: as an editor counts lines
    for path, mark in key_marks.items():
        assert doc.key_span(path) == doc.lines.at(mark.index), (text, path)


def test_a_path_past_the_data_is_located_at_its_deepest_value():
    doc, _ = parse_document("a:\n  b: [x, y]\n", "t.yaml")
    assert doc.span(("a", "b", 7)) == doc.span(("a", "b")) and doc.span(("a", "zz", 0)) == doc.span(("a",))
    assert doc.key_span(("a", "b", 1)) == doc.span(("a", "b", 1))  # a list item has no key


def test_an_alias_repeats_the_value_located_where_the_anchored_value_is_written():
    text = "a: &x {b: &y [1, two]}\nc: *x\nd: *y\n"
    doc, found = parse_document(text, "t.yaml")
    assert not found
    assert doc.data == yaml.safe_load(text)
    assert doc.span(("c",)) == doc.span(("a",)) and doc.span(("d",)) == doc.span(("a", "b"))
    assert doc.span(("c", "b", 1)) == doc.span(("a", "b", 1))
    assert doc.key_span(("c", "b")) == doc.key_span(("a", "b"))
    assert doc.key_span(("c",)).line == 2  # the key is the alias's own


def test_anchor_and_alias_errors_name_the_place():
    assert diag("a: &x 1\nb: &x 2\n").span.line == 2  # duplicate anchor
    undefined = diag("a: 1\nb: *nope\n")
    assert (undefined.code, undefined.span.line) == ("yaml-syntax", 2) and "nope" in undefined.facts.parser
    recursive = diag("a: &x [1, *x]\n")
    assert recursive.code == "yaml-syntax" and recursive.facts.as_dict() == {"problem": "recursive-alias", "anchor": "x"}


def test_explicit_tags_are_checked_not_trusted():
    assert parse_document("a: !!int 0x1F\nb: !!str yes\n", "t.yaml")[0].data == {"a": 31, "b": "yes"}
    for text in ("a: !!int many\n", "a: !!float x\n", "a: !!bool maybe\n", "a: !!seq x\n", "a: !!str [1]\n",
                 "a: !!map [1]\n"):
        d = diag(text)
        assert (d.code, d.span.line, d.span.column) == ("yaml-tag", 1, 4), text


def test_nesting_past_the_limit_is_refused_before_python_recursion():
    from swapool.table.source import MAX_DEPTH

    d = diag("a: " + "[" * (MAX_DEPTH + 5) + "]" * (MAX_DEPTH + 5) + "\n")
    assert d.code == "yaml-syntax" and d.facts.as_dict() == {"problem": "too-deep", "limit": MAX_DEPTH}
    assert parse_document("a: " + "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1) + "\n", "t.yaml")[1] == []


# One dialect whatever the PyYAML build: libyaml's parser and PyYAML's pure-Python one
# disagree on a few constructs; swapool refuses those with either, so a table's verdict and
# data never depend on which parser the machine has.

import swapool.table.source as source_module

from ..helpers import SHIPPED

PARSERS = [getattr(yaml, "CSafeLoader", None), yaml.SafeLoader]
needs_libyaml = pytest.mark.skipif(PARSERS[0] is None, reason="PyYAML here has no libyaml: one parser only")


def read_with(loader, text):
    saved = source_module._LOADER
    source_module._LOADER = loader
    try:
        doc, found = parse_document(text, "t.yaml")
    finally:
        source_module._LOADER = saved
    return (doc.data, ()) if doc is not None else (None, tuple((d.code, d.span.line, d.span.column) for d in found))


DISAGREEING = {
    "tab-between-tokens": "a: {b: c,\tc: d}\n",
    "tab-in-a-plain-value": "a: [tr\tue]\n",
    "question-mark-in-a-flow-value": "a: {b: is it?}\n",
    "colon-in-a-flow-value": "a: [sw:a, b]\n",
    "no-space-after-a-flow-colon": "a: {b:{c: d}}\n",
    "inner-byte-order-mark": "a: 1\n\ufeffb: 2\n",
    "comment-right-after-a-block-indicator": "a: |# note\n  text\n",
    "empty-non-specific-tag": "a: !\nb: c\n",
}


@needs_libyaml
@pytest.mark.parametrize("text", DISAGREEING.values(), ids=DISAGREEING.keys())
def test_what_the_two_parsers_disagree_on_reads_the_same_with_both(text):
    (data, found), (pure_data, pure_found) = read_with(PARSERS[0], text), read_with(PARSERS[1], text)
    assert data == pure_data and [f[:2] for f in found] == [f[:2] for f in pure_found]  # where a parser
    # refuses on its own, its column can differ


@pytest.mark.parametrize("text", DISAGREEING.values(), ids=DISAGREEING.keys())
@pytest.mark.parametrize("loader", [p for p in PARSERS if p is not None], ids=lambda p: p.__name__)
def test_each_disagreement_is_a_located_refusal_or_one_reading(loader, text):
    data, found = read_with(loader, text)
    assert found or data == {"a": "", "b": "c"}, (data, found)
    assert all(code == "yaml-syntax" for code, _, _ in found)


MUTATIONS = list(" \t\n:-?[]{},#&*!|>'\"%\\.0az\x01\x85\u2028\ufeff")


@needs_libyaml
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(["swa.yaml", "swa_backends.yaml"]),
       st.lists(st.tuples(st.floats(0, 1), st.sampled_from(MUTATIONS + ["DEL"])), min_size=1, max_size=3))
def test_the_two_parsers_agree_on_mutated_shipped_tables(name, edits):
    text = (SHIPPED.parent / name).read_text()
    for where_, what in edits:
        i = int(where_ * len(text))
        text = text[:i] + text[i + 1:] if what == "DEL" else text[:i] + what + text[i:]
    with_libyaml, pure = read_with(PARSERS[0], text)[0], read_with(PARSERS[1], text)[0]
    assert with_libyaml == pure, text


@pytest.mark.parametrize("loader", [p for p in PARSERS if p is not None], ids=lambda p: p.__name__)
def test_nesting_past_either_composer_s_own_limit_is_located_too_deep(loader):
    """Past Python's recursion limit (the pure composer) and libyaml's 1,000 levels alike."""
    from swapool.table.source import MAX_DEPTH

    data, found = read_with(loader, "a: " + "[" * 400 + "]" * 400 + "\n")
    assert data is None and found == (("yaml-syntax", 1, 4 + MAX_DEPTH),), found
    deeper = parse_document("a: " + "[" * 5000 + "]" * 5000 + "\n", "t.yaml")[1]  # located at 1:1 for now
    assert [(d.code, d.facts.as_dict()) for d in deeper] == [("yaml-syntax", {"problem": "too-deep", "limit": MAX_DEPTH})]


def test_a_fifo_is_refused_without_blocking(tmp_path):
    """Run in a child with a deadline: a regression must fail, not hang the suite."""
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "swapool", "validate", str(fifo)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 2 and "not a regular file" in done.stdout
    code = "import swapool\ntry:\n    swapool.load_policy()\nexcept swapool.PolicyError as e:\n    print(e)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env=dict(os.environ, SWAPOOL_POLICY=str(fifo)))
    assert "not a regular file" in done.stdout, done.stderr



def test_a_pipe_swapped_in_after_a_check_cannot_block_the_read(tmp_path):
    """The file is opened without blocking, then examined: a FIFO that a stat() would have
    called a regular file (the race) is still refused. In a child with a deadline."""
    fifo = tmp_path / "table.yaml"
    os.mkfifo(fifo)
    code = ("import os, stat, sys\nfrom swapool.table import files\nreal = os.stat\n"
            "class Regular:\n    st_mode = stat.S_IFREG | 0o644\n    st_size = 10\n"
            "files.os.stat = lambda p, *a, **k: Regular() if str(p) == sys.argv[1] else real(p, *a, **k)\n"
            "print(files.read_bytes(sys.argv[1])[1][0].facts.problem)")
    done = subprocess.run([sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "not-regular", done.stderr



def test_a_file_that_reports_no_size_is_not_read():
    """A /proc file says size 0 and some block when read (/proc/kmsg): taken as empty, unread."""
    from swapool.table.files import read_bytes

    assert read_bytes("/proc/self/status") == (b"", [])



def test_positions_are_the_editors_when_a_comment_holds_a_line_separator():
    """YAML counts U+0085 and U+2028 as line breaks; editors do not."""
    body = mini("- {id: rx, when: {a: w}, then: p}\n")
    for odd in ("\u0085", "\u2028", "\u2029"):
        text = body.replace("format: 1\n", f"format: 1\n# a comment with {odd}\n", 1)
        d = check(text).diagnostics[0]
        want = text.split("\n").index("  - {id: rx, when: {a: w}, then: p}") + 1
        assert (d.code, d.span.line) == ("unknown-value", want), (repr(odd), str(d))



@pytest.mark.parametrize("text, says", [('a: !!int ""\n', {"problem": "bad-value", "value": "", "kind": "int"}),
                                        ("a: " + "9" * 5000 + "\n", {"problem": "long-number", "length": 5000,
                                                                       "limit": 64})])
def test_scalars_that_break_or_slow_the_constructor_are_located_errors(text, says):
    from swapool.table.source import parse_document

    doc, problems = parse_document(text, "t.yaml")
    assert doc is None and [p.code for p in problems] == ["yaml-tag"] and problems[0].facts.as_dict() == says



def test_the_reader_s_work_per_anchor_is_the_anchored_value_not_the_document(monkeypatch):
    """Counted, not timed: how many values the reader builds for 4,000 anchors and their aliases."""
    from swapool.table import source

    built = []
    real_value = source._Builder.value

    def value(self, node, depth, flow):
        built.append(node)
        return real_value(self, node, depth, flow)
    monkeypatch.setattr(source._Builder, "value", value)
    text = families.many_anchors(4000)
    doc, problems = source.parse_document(text, "t.yaml")
    assert doc is not None and not problems
    assert len(built) <= len(text) and len(built) <= 10 * 4000, len(built)


@pytest.mark.parametrize("name", ["lone-surrogate-escape.yaml", "misfit-null-tag.yaml"])
def test_both_pyyaml_builds_refuse_alike_at_the_same_line_and_column(name, monkeypatch):
    """One dialect whatever the build: libyaml refuses a \\ud800 escape while scanning, the
    pure-Python parser decodes it; PyYAML builds None from `!!null many`."""
    import yaml

    from swapool.table import source

    raw = (Path(__file__).parents[1] / "corpus" / "hostile" / name).read_bytes()
    seen = []
    for loader in (yaml.SafeLoader, getattr(yaml, "CSafeLoader", None)):
        if loader is None:
            continue  # PyYAML built without libyaml: the pure parser alone
        monkeypatch.setattr(source, "_LOADER", loader)
        doc, found = source.parse_document(raw, name)
        assert doc is None and len(found) == 1, (loader, found)
        seen.append(str(found[0]))
    assert len(set(seen)) == 1, seen


def test_an_anchored_collection_is_walked_once_however_often_it_is_aliased(monkeypatch):
    """Counted, not timed: 1,000 aliases of one anchored list build it once (as `yaml.safe_dump`
    writes a table whose rules share their cell lists), with the same data as PyYAML's."""
    import yaml

    from swapool.table import source

    walked = []
    real = source._Builder.collection
    monkeypatch.setattr(source._Builder, "collection", lambda self, node, *a: walked.append(node) or real(self, node, *a))
    text = "shared: &s [a, b, {c: [d, e]}]\nrules:\n" + "".join(f"- {{id: r{i}, when: *s}}\n" for i in range(1000))
    doc, problems = source.parse_document(text, "aliases.yaml")
    assert doc is not None and not problems and doc.data == yaml.safe_load(text)
    assert len(walked) <= 1000 + 10, len(walked)  # each rule's mapping, the anchored list and what it holds


def test_an_alias_counts_its_depth_and_values_as_if_written_out():
    """A shallow anchored value aliased deep in the document, or aliased past the values
    limit, is refused as its written-out copy would be."""
    from swapool.table.source import MAX_DEPTH

    deep = "a: &x [[[1]]]\nb: " + "[" * (MAX_DEPTH - 2) + "*x" + "]" * (MAX_DEPTH - 2) + "\n"
    assert diag(deep).facts.problem == "too-deep"
    assert parse_document("a: &x [[[1]]]\nb: " + "[" * (MAX_DEPTH - 5) + "*x" + "]" * (MAX_DEPTH - 5) + "\n")[0]
    text = "a: &x [" + ", ".join(["v"] * 99) + "]\nb: [" + ", ".join(["*x"] * 3000) + "]\n"
    assert diag(text).code == "yaml-alias-bomb"


def test_the_digest_is_sha256_whichever_implementation_computes_it():
    """digest_of uses the interpreter's own SHA-256 (hashlib's import loads OpenSSL): the same
    digest, which names a table in logs and in the ranks' agreement."""
    import hashlib

    from swapool.table.files import digest_of

    for raw in (b"", b"format: 1\n", bytes(range(256)) * 5000):
        assert digest_of(raw) == hashlib.sha256(raw).hexdigest()


def test_a_document_is_parsed_once_inside_parsed_once_and_kept_nowhere_after(monkeypatch):
    """A command or a server's load reads a table again as another's import: inside
    `parsed_once` the same bytes and name are parsed once; outside it nothing is kept (a
    server holds no node graph once its tables are loaded)."""
    from swapool.table import source

    composed = []
    compose = source._compose
    monkeypatch.setattr(source, "_compose", lambda text: composed.append(text) or compose(text))
    text = mini("- {id: r, then: p}\n")
    with source.parsed_once():
        first, _ = source.parse_document(text, "t.yaml")
        with source.parsed_once():
            assert source.parse_document(text, "t.yaml")[0] is first
        assert source.parse_document(text, "t.yaml")[0] is first
        assert source.parse_document(text, "other.yaml")[0] is not first  # another name: its own spans
    assert len(composed) == 2 and source._kept is None
    assert source.parse_document(text, "t.yaml")[0] is not first and len(composed) == 3


def test_a_record_that_defines_equality_gets_the_inequality_that_negates_it():
    """tuple's own != compares every field: a Record comparing fewer (an Input, leaving out
    where its values are written) must not be both == and != another."""
    from swapool.table.diagnostics import Span
    from swapool.table.model import Input

    a = Input("a", ("x", "y"), False, Span("f", 1, 1), value_spans=(Span("f", 2, 2),))
    b = a._replace(value_spans=())
    assert a == b and not a != b and hash(a) == hash(b)
    assert a != a._replace(name="c")

"""Strict, safe YAML loading: every rejection names its line and column."""

from swapool.table.check import check_path
from swapool.table.source import MAX_BYTES, parse_document


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
    assert "line 3" in d.message


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
    assert "quote" in d.help


def test_syntax_error_points_at_the_problem():
    d = diag("a: [x, y\nb: 1\n")
    assert d.code == "yaml-syntax"
    assert d.span.line == 2


def test_tab_indentation_gets_help():
    d = diag("a:\n\tb: 1\n")
    assert d.code == "yaml-syntax"
    assert d.span.line == 2
    assert "tabs" in d.help


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
    assert found.table is None and found.diagnostics[0].code == "io" and "directory" in found.diagnostics[0].message
    found = check_path(tmp_path / "nope.yaml")
    assert found.table is None and "no such file" in found.diagnostics[0].message
    big = tmp_path / "big.yaml"
    big.write_bytes(b"# " + b"x" * MAX_BYTES + b"\n")
    found = check_path(big)
    assert found.table is None and "larger than" in found.diagnostics[0].message


def test_digest_is_of_the_bytes():
    import hashlib
    doc, _ = parse_document(b"a: 1\n", "t.yaml")
    assert doc.digest == hashlib.sha256(b"a: 1\n").hexdigest()

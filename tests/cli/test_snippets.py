"""Source lines under findings: the caret spans the YAML token the finding points at, in
text; JSON, SARIF and GitHub annotations carry the same end."""

from __future__ import annotations

import json

import pytest

from swapool.cli import main
from swapool.cli.snippets import Sources, token_end
from swapool.table.diagnostics import Span


@pytest.mark.parametrize("line, start, token", [
    ("hit_policy: uniqe", 12, "uniqe"),
    ("  - {id: r, wen: {a: x}, then: p}", 12, "wen"),
    ("  - {id: r, wen: {a: x}, then: p}", 17, "{a: x}"),
    ("  a: {values: [x, '-', z]}", 18, "'-'"),
    ("  a: {values: [x, 'it''s', z]}", 18, "'it''s'"),
    ('  why: "say \\"hi\\", then go"  # note', 7, '"say \\"hi\\", then go"'),
    ("  description: a plain value # a comment", 15, "a plain value"),
    ("  enum: sglang.srt:Algorithm", 8, "sglang.srt:Algorithm"),
    ("  spec_algorithm:", 2, "spec_algorithm"),
    ("  - [open, list", 4, "["),
    ('  - {id: r, why: "a \\"}, b: {\\" word"}, x', 4, '{id: r, why: "a \\"}, b: {\\" word"}'),
    ("  - {why: 'it''s }', id: r} # c", 4, "{why: 'it''s }', id: r}"),
    ("x", 1, " "),
])
def test_the_span_ends_where_its_yaml_token_ends(line, start, token):
    end = token_end(line, start)
    assert (line + " ")[start:end] == token


def test_the_text_shows_the_line_and_a_caret_under_the_span_then_where_to_read_more(write, capsys):
    path = write("format: 1\ndecision: demo\nhit_policy: uniqe\ninputs:\n  a: {values: [x, y]}\n"
                 "output: {values: [p]}\nrules:\n  - {id: r, wen: {a: x}, then: p}\n")
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[:6] == [f'{path}:3:13: error[schema]: hit_policy: expected one of unique, first, any, priority, got "uniqe"',
                       "  |",
                       "3 | hit_policy: uniqe",
                       "  |             ^^^^^",
                       "  = help: did you mean 'unique'?",
                       "  = see: swapool codes schema"]
    assert out[7:10] == ["  |", "8 |   - {id: r, wen: {a: x}, then: p}", "  |             ^^^"]


def test_machine_formats_carry_the_end_of_the_span(write, capsys):
    path = write("format: 1\ndecision: demo\nhit_policy: uniqe\ninputs:\n  a: {values: [x, y]}\n"
                 "output: {values: [p]}\nrules:\n  - {id: r, when: {a: x}, then: p}\n")
    main(["validate", "--format", "json", str(path)])
    (d,) = json.loads(capsys.readouterr().out)["diagnostics"]
    assert (d["line"], d["column"], d["end_line"], d["end_column"]) == (3, 13, 3, 18)
    main(["validate", "--format", "sarif", str(path)])
    (result,) = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    assert result["locations"][0]["physicalLocation"]["region"] == \
        {"startLine": 3, "startColumn": 13, "endLine": 3, "endColumn": 18}
    main(["validate", "--format", "github", str(path)])
    assert "line=3,col=13,endLine=3,endColumn=18," in capsys.readouterr().out


def test_control_characters_in_the_source_line_are_escaped_and_the_caret_stays_under_the_span(write):
    text = 'a: {b: "\x1b[2J", c: wrong}\n'
    path = write(text)
    from swapool.cli.snippets import snippet

    gutter, line, carets = snippet(Span(str(path), 1, text.index("wrong") + 1), Sources())
    assert "\x1b" not in line and line.index("wrong") == carets.index("^") and carets.count("^") == 5


def test_no_snippet_without_the_file():
    assert Sources().extent(Span("<stdin>", 1, 1)) is None
    assert Sources().extent(Span("/no/such/file.yaml", 1, 1)) is None


def test_the_source_line_is_the_editor_s_line_when_a_comment_holds_a_line_separator(write, capsys):
    path = write("# a note\u2028# more of it\nformat: 1\ndecision: demo\nhit_policy: uniqe\n")
    main(["validate", str(path)])
    out = capsys.readouterr().out
    assert "4 | hit_policy: uniqe" in out, out


def test_standard_input_named_like_a_file_shows_no_line_of_that_file(tmp_path, monkeypatch, capsys):
    import io

    (tmp_path / "t.yaml").write_text("format: 1\ndecision: other\nhit_policy: unique\n")  # not what stdin holds
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"format: 1\ndecision: demo\nhit_policy: uniqe\n")))
    main(["validate", "--stdin-filename", "t.yaml", "-"])
    out = capsys.readouterr().out
    assert "t.yaml:3:13: error[schema]" in out and "hit_policy: unique" not in out and " | " not in out, out


def test_a_long_source_line_is_cut_around_the_span_and_the_caret_stays_under_it(capsys, write):
    from swapool.cli import main

    names = ", ".join(f"V{i:03d}" for i in range(60))
    text = ("format: 1\ndecision: d\nhit_policy: unique\ninputs:\n"
            f"  a: {{values: [{names}, medusa, {names.replace('V', 'W')}]}}\n"
            "output: {values: [p]}\nrules:\n  - {id: r, when: {a: -}, then: p}\n")
    main(["validate", "--no-enum-import", str(write(text))])
    lines = capsys.readouterr().out.splitlines()
    at = next(i for i, line in enumerate(lines) if "[value-case]" in line)
    source, carets = lines[at + 2], lines[at + 3]
    assert source.startswith("5 | ...") and source.endswith("...") and len(source) < 120, source
    start = carets.index("^")
    assert source[start:start + len("medusa")] == "medusa" and carets[start:].strip() == "^" * len("medusa")


def test_the_caret_is_placed_by_terminal_columns_after_wide_characters_and_combining_marks(write):
    """As rustc's emitter counts: a wide character takes two columns, a combining mark none."""
    from swapool.cli.snippets import snippet

    path = write("x: 1\n")
    for before, target in (("日本語", "ルール"), ("e\u0301\u0301e\u0301", "zz")):
        text = f"  {before}: {target}\n"
        path.write_text(text)
        start = text.index(target) + 1
        _, source, carets = snippet(Span(str(path), 1, start), Sources())
        shown = source.split(" | ", 1)[1]
        cols = {"日": 2, "本": 2, "語": 2, "ル": 2, "ー": 2, "\u0301": 0}
        width = lambda s: sum(cols.get(ch, 1) for ch in s)  # noqa: E731
        pad = carets.split(" | ", 1)[1]
        assert len(pad) - len(pad.lstrip(" ")) == width(shown[:shown.index(target)]), (before, carets)
        assert pad.strip() == "^" * width(target), (before, carets)

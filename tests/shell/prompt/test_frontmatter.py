"""The front matter YAML subset agrees with pi's parser (the npm ``yaml`` package pi uses)."""

from __future__ import annotations

import json
import math
import subprocess

import pytest

from pi_cli.shell.prompt._yaml_subset import YamlError, parse_yaml_mapping
from pi_cli.shell.prompt.frontmatter import FrontmatterError, parse_document
from tests.pi_npm import YAML_MODULE, require_pi_package

CASES = [
    "name: invalid-yaml\ndescription: [unclosed bracket",
    "name: x\ndescription: a: b",
    'description: "unterminated',
    "a: 1\na: 2",
    "description: foo\n- item",
    "description: >\n  folded\n  text\nname: x",
    "description: 'it''s'\n",
    "description: x # comment",
    "description: yes",
    "disable-model-invocation: true",
    "description: 1.0",
    "description: null",
    "description:\n",
    "metadata:\n  k: v\ndescription: d",
    'description: "a \\u00e9 \\n b"',
    "d: %foo",
    "d: - a",
    "d: a #c\n  more",
    "d: a\n  b: c",
    "d: 'multi\n  line'",
    'd: "multi\n\n  line"',
    "d: |-\n  a\n  b\n\n",
    "d: |+\n  a\n\n",
    "d: >\n  a\n  b\n\n  c\n    indented\n  d\n",
    "k:\n- a\n- b",
    "k:\n  - a\n  - {x: 1, y: [1, 2]}",
    "k: [a, 'b c', \"d\"]",
    "k: {a: 1}",
    "k: [a,\n  b]",
    "k: a:b",
    "k: a :b",
    "k: http://x.y/z",
    "k: 0x1F",
    "k: 1e3",
    "k: 012",
    "k: 0o12",
    "k: +1",
    "k: -1.5",
    "k: True",
    "k: ~",
    '"q k": v',
    "k: a\tb",
    "k:\tv",
    "k: v\n\tx: y",
    "k: |\n  a\n b",
    "k: >2\n   x\n  y",
    "k: `x`",
    "k: !tag x",
    "k: &a x",
    "k:    ",
    "k: v\nnokey",
    "k: [a, b]]",
    'k: "a\\x41\\u00e9\\t"',
    "k: a # c",
    "k: a#c",
    'k: "a" x',
    "k:\n  a: 1\n   b: 2",
    "k: 1:2",
    "k: [a: 1]",
    "k: {a, b}",
    'k: ""',
    "k: ''",
    "k: -",
    "k: a\n\n  b",
    "a: 1\n\n\nb: 2",
    "k: |\n\n  a",
    "name: multiline-description\ndescription: |\n  This is a multiline description.\n  It spans multiple lines.\n  And should be normalized.",
    "allowed-tools:\n  - Read\n  - Bash(git:*)\nmodel: sonnet",
    'metadata:\n  version: "1.0"\n  tags: [a, b]\n  nested:\n    deep: true',
    "description: Use when the user asks: help",
    "description: >-\n  Long folded\n  description here.\nlicense: MIT",
    "k: 'a\n\n  b'",
    'k: "tab\\there"',
    "k: [ ]",
    "k: {}",
    'k: ["a, b", c]',
    "# only a comment",
    "",
    "k: v   # trailing",
    "k:\n  # comment\n  a: 1",
    "key with spaces: v",
    "k: a\n  continued line\n  third",
    "k: 'unterminated\nname: x",
]


def ours(text: str) -> dict[str, object]:
    try:
        return {"ok": parse_yaml_mapping(text)}
    except YamlError as exc:
        assert " at line " in str(exc)
        return {"err": str(exc)}


def test_every_case_parses_as_pis_yaml_package_does() -> None:
    require_pi_package()
    script = f"""
import {{ parse }} from {json.dumps(str(YAML_MODULE))};
import {{ readFileSync }} from "node:fs";
process.emitWarning = () => {{}};
const cases = JSON.parse(readFileSync(0, "utf8"));
console.log(JSON.stringify(cases.map((c) => {{
  try {{ return {{ ok: parse(c) ?? {{}} }}; }} catch (e) {{ return {{ err: e.message }}; }}
}})));
"""
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(CASES),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    theirs = json.loads(done.stdout)
    for case, expected in zip(CASES, theirs, strict=True):
        mine = ours(case)
        assert ("err" in mine) == ("err" in expected), (case, mine, expected)
        if "ok" in mine:
            assert json.loads(json.dumps(mine["ok"])) == expected["ok"], case


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("k: 1.5", {"k": 1.5}),
        ("k: .inf", {"k": math.inf}),
        ("k: -.inf", {"k": -math.inf}),
        ("k: yes", {"k": "yes"}),
        ("k: |-\n  a\n  b", {"k": "a\nb"}),
        ("k:\n  - a\n  - b: 1\n    c: 2", {"k": ["a", {"b": 1, "c": 2}]}),
        ("k: [a, [b, {c: d}]]", {"k": ["a", ["b", {"c": "d"}]]}),
    ],
)
def test_values(text: str, expected: dict[str, object]) -> None:
    assert parse_yaml_mapping(text) == expected


def test_errors_name_the_file_line() -> None:
    with pytest.raises(FrontmatterError, match="at line 3") as info:
        parse_document("---\nname: x\ndescription: [unclosed\n---\nbody")
    assert info.value.line == 3
    with pytest.raises(FrontmatterError, match="at line 2"):
        parse_document("---\ndescription: 'open\n---\n")
    with pytest.raises(FrontmatterError, match="closing"):
        parse_document("---\nname: x\n")


@pytest.mark.parametrize(
    "hostile",
    [
        "k: " + "[" * 5000,
        "k: " + "{a: " * 3000,
        "k:\n" + "".join(" " * i + "- x\n" for i in range(0, 400, 2)),
    ],
)
def test_hostile_nesting_fails_cleanly(hostile: str) -> None:
    try:
        parse_document(f"---\n{hostile}\n---\n")
    except FrontmatterError:
        pass


def test_documents_without_front_matter_and_crlf() -> None:
    doc = parse_document("\ufeff---\r\nname: a\r\ndescription: b\r\n---\r\nBody\r\n")
    assert doc.fields == {"name": "a", "description": "b"} and doc.body.strip() == "Body"
    assert parse_document("# Title\n---\n").has_frontmatter is False

"""The dataclass code kept between starts (pi_cli._dataclass_code), in real interpreters: the
second start compiles nothing, builds the same classes, and bad files are ignored."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROBE = """
import dataclasses, json, sys
from pi_cli import _dataclass_code
_dataclass_code.install(sys.argv[1])
kept = len(_dataclass_code._codes)

@dataclasses.dataclass(frozen=True, order=True)
class Point:
    x: int
    y: "int" = 2
    tags: tuple[str, ...] = dataclasses.field(default_factory=tuple)

p = Point(1)
print(json.dumps({
    "kept": kept,
    "compiled": _dataclass_code._state["new"],
    "repr": repr(p),
    "eq": p == Point(1, 2, ()),
    "order": Point(0) < p,
    "annotations": {k: str(v) for k, v in Point.__init__.__annotations__.items()},
    "hash": hash(p) == hash(Point(1)),
}))
"""


def _start(cache: Path) -> dict[str, object]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(cache)], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _file(cache: Path) -> Path:
    (found,) = cache.glob("dataclass-code-*.marshal")
    return found


def test_the_second_start_compiles_nothing_and_builds_the_same_classes(tmp_path: Path) -> None:
    first = _start(tmp_path)
    assert first["kept"] == 0 and first["compiled"] > 0
    saved = _file(tmp_path)
    assert stat.S_IMODE(saved.stat().st_mode) == 0o600
    second = _start(tmp_path)
    assert second["kept"] > 0 and second["compiled"] == 0
    assert {k: v for k, v in second.items() if k not in ("kept", "compiled")} == {
        k: v for k, v in first.items() if k not in ("kept", "compiled")
    }
    assert first["repr"] == "Point(x=1, y=2, tags=())" and first["eq"] and first["order"]


def test_a_damaged_or_foreign_file_is_ignored_and_replaced(tmp_path: Path) -> None:
    _start(tmp_path)
    saved = _file(tmp_path)
    saved.write_bytes(b"\x00not marshal at all" * 50)
    assert _start(tmp_path)["kept"] == 0  # ignored; the run compiles and keeps its code
    assert _start(tmp_path)["kept"] > 0
    saved.chmod(0o620)  # others may write it: it could be anyone's code
    assert _start(tmp_path)["kept"] == 0
    saved.chmod(0o600)
    with saved.open("r+b") as grown:  # huge: not read at all
        grown.truncate(40 << 20)
    assert _start(tmp_path)["kept"] == 0
    saved.unlink()
    saved.mkdir()  # not a file at all: nothing kept, nothing breaks
    assert _start(tmp_path)["compiled"] > 0

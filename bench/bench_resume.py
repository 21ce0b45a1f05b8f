"""Resume of a 100 MB session (with compactions): ``SessionStore.open`` + ``build_context``.

Budget on this machine: <= 0.5 s (the TypeScript reference needs ~10 s for a 128 MB file).
Also reports the Python heap peak during the resume, to show the file is never held in memory
(let alone twice): only the offset index and the entries after the last compaction are parsed.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pi_cli.shell.session.store import SessionStore

TARGET_BYTES = 100 * 1024 * 1024
BUDGET_S = 0.5
RUNS = 5
COMPACT_EVERY = 400  # entries between compactions


def _line(data: dict) -> bytes:
    return (json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n").encode()


def generate(path: Path) -> tuple[int, int]:
    """Write a realistic session of about TARGET_BYTES; returns (entries, compactions)."""
    output = "".join(
        f"line {i}: some tool output with paths /src/module_{i % 50}.py and numbers {i * 7}\n"
        for i in range(40)
    )
    ts = "2026-01-01T00:00:00.000Z"
    written = entries = compactions = 0
    parent: str | None = None
    since_compaction: list[str] = []
    with path.open("wb") as handle:
        handle.write(
            _line(
                {"type": "session", "version": 1, "id": "bench", "timestamp": ts, "cwd": "/bench"}
            )
        )
        n = 0
        while written < TARGET_BYTES:
            n += 1
            entry_id = f"{n:08x}"
            kind = n % 4
            if n % COMPACT_EVERY == 0 and len(since_compaction) > 20:
                data = {
                    "type": "compaction",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": ts,
                    "summary": "## Goal\nKeep going.\n" * 20,
                    "firstKeptEntryId": since_compaction[-12],
                    "tokensBefore": 150000,
                }
                compactions += 1
                since_compaction = []
            elif kind == 1:
                data = {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": ts,
                    "message": {
                        "role": "user",
                        "content": [{"type": "text", "text": f"Step {n}: continue."}],
                        "timestamp": n,
                    },
                }
            elif kind == 2:
                data = {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": ts,
                    "message": {
                        "role": "assistant",
                        "content": [
                            {"type": "text", "text": "Running the next command."},
                            {
                                "type": "toolCall",
                                "id": f"call_{n}",
                                "name": "bash",
                                "arguments": {"command": f"ls {n}"},
                            },
                        ],
                        "model": "bench",
                        "usage": {"input": 1000 + n, "output": 20},
                        "stopReason": "toolUse",
                        "timestamp": n,
                    },
                }
            elif kind == 3:
                data = {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": ts,
                    "message": {
                        "role": "toolResult",
                        "toolCallId": f"call_{n - 1}",
                        "toolName": "bash",
                        "content": [{"type": "text", "text": output}],
                        "isError": False,
                        "timestamp": n,
                    },
                }
            else:
                data = {
                    "type": "message",
                    "id": entry_id,
                    "parentId": parent,
                    "timestamp": ts,
                    "message": {
                        "role": "assistant",
                        "content": [{"type": "text", "text": "Done with this step."}],
                        "model": "bench",
                        "usage": {"input": 1500 + n, "output": 10},
                        "stopReason": "stop",
                        "timestamp": n,
                    },
                }
            line = _line(data)
            handle.write(line)
            written += len(line)
            entries += 1
            parent = entry_id
            since_compaction.append(entry_id)
    return entries, compactions


def resume(path: Path) -> int:
    """Open and build the context; returns the number of messages."""
    store = SessionStore.open(path)
    return len(store.build_context())


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.jsonl"
        start = time.perf_counter()
        entries, compactions = generate(path)
        size_mb = path.stat().st_size / 1024 / 1024
        print(
            f"generated {size_mb:.0f} MB, {entries} entries, {compactions} compactions "
            f"in {time.perf_counter() - start:.1f}s"
        )
        resume(path)  # warm the page cache: measure parsing, not the disk
        times = []
        for _ in range(RUNS):
            start = time.perf_counter()
            count = resume(path)
            times.append(time.perf_counter() - start)
        tracemalloc.start()
        resume(path)
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        best, median = min(times), statistics.median(times)
        verdict = "OK" if median <= BUDGET_S else "OVER BUDGET"
        print(
            f"resume (open + build_context, {count} messages): median {median:.3f}s, best {best:.3f}s "
            f"(budget {BUDGET_S}s) {verdict}; Python heap peak {peak / 1024 / 1024:.1f} MiB "
            f"for a {size_mb:.0f} MB file"
        )


if __name__ == "__main__":
    main()

"""`pi --version` and the one-shot seed scenario against the fake server: wall time, peak RSS.

Budgets on this 2-core machine: --version <= 0.15 s; seed scenario <= 0.7 s and <= 100 MiB
(the TypeScript reference: 1.68 s and 2.12 s / 173 MiB).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench._util import bench_env, median, pi_argv, run_measured  # noqa: E402
from tests.fakes.provider_server import FakeProviderServer  # noqa: E402
from tests.fakes.script import SEED_FINAL_TEXT, seed_script  # noqa: E402

RUNS = 7


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        project.mkdir()
        (project / "package.json").write_text('{"name": "hello", "main": "hello.mjs"}\n')
        (project / "hello.mjs").write_text('console.log("Hello, world!");\n')
        env = bench_env(root / "home")

        version = [run_measured(pi_argv("--version"), cwd=project, env=env) for _ in range(RUNS)]
        print(
            f"pi --version        wall {median([v[0] for v in version]):.3f} s   "
            f"peak RSS {median([v[1] for v in version]):.0f} MiB   (budget 0.15 s)"
        )

        for label, transport in (("native", "native"), ("litellm", "litellm")):
            runs = []
            for _ in range(RUNS if transport == "native" else 2):
                with FakeProviderServer(seed_script()) as server:
                    env_run = dict(env, PI_TRANSPORT=transport)
                    args = pi_argv(
                        "--model",
                        "openai/fake-model",
                        "--api-base",
                        server.openai_base_url,
                        "--api-key",
                        "x",
                        "--no-session",
                        "explain this project",
                    )
                    wall, rss, code, out = run_measured(args, cwd=project, env=env_run)
                    ok = code == 0 and out.decode().strip() == SEED_FINAL_TEXT
                    runs.append((wall, rss, ok))
            status = "ok" if all(r[2] for r in runs) else "FAILED"
            print(
                f"seed one-shot {label:<7} wall {median([r[0] for r in runs]):.3f} s   "
                f"peak RSS {median([r[1] for r in runs]):.0f} MiB   [{status}]"
                + ("   (budget 0.7 s, 100 MiB)" if transport == "native" else "")
            )


if __name__ == "__main__":
    main()

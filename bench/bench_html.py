"""web_fetch's HTML -> Markdown conversion on the saved real pages (tests/fixtures/web/).

Prints the import time of the converter and, per page, the median conversion time and the size
of the Markdown produced. markdownify is measured too when it happens to be installed (it is
not a dependency of pi; the comparison that chose trafilatura is in that folder's README).
"""

from __future__ import annotations

import gzip
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "web"
RUNS = 5


def main() -> None:
    started = time.perf_counter()
    from tools.web._markdown import html_to_markdown

    html_to_markdown("<html><body><p>warm up</p></body></html>", "https://example.com/")
    print(f"trafilatura import + first call {time.perf_counter() - started:.3f} s")
    try:
        import markdownify  # type: ignore[import-not-found]
    except ImportError:
        markdownify = None
    for path in sorted(FIXTURES.glob("*.html.gz")):
        html = gzip.decompress(path.read_bytes())
        name = path.name.removesuffix(".html.gz")
        times = []
        for _ in range(RUNS):
            begin = time.perf_counter()
            text = html_to_markdown(html, f"https://example.com/{name}")
            times.append(time.perf_counter() - begin)
        line = f"{name:<10} {len(html) // 1024:>4} KB  trafilatura {statistics.median(times) * 1000:6.1f} ms {len(text):>7} chars"
        if markdownify is not None:
            begin = time.perf_counter()
            other = markdownify.markdownify(html.decode("utf-8", "replace"))
            line += f"   markdownify {(time.perf_counter() - begin) * 1000:6.1f} ms {len(other):>7} chars"
        print(line)


if __name__ == "__main__":
    main()

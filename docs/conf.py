"""Sphinx configuration of pi's documentation site: Markdown pages (MyST) under docs/.

Build it with `make docs` (offline; the site goes to build/docs/). The home page, index.md,
includes the README; its toctree lists every page, in order: `make lint`
(scripts/check_docs.py) fails for a page that is not listed, so none is left out of the site.
"""

project = "pi"
author = "pi's developers"
copyright = "pi's developers"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_*", ".*"]

# Headings get GitHub-style anchors (the same slugs GitHub shows and scripts/check_docs.py
# checks), so `page.md#a-heading` works on GitHub, in the site and in the link check alike.
myst_heading_anchors = 6

html_theme = "furo"
html_title = "pi"
html_show_sourcelink = False
html_copy_source = False

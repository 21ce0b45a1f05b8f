"""The interactive Textual TUI. The only package of pi that imports Textual."""

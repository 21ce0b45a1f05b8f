"""The transcript's styles: theme variables only (``themes/*.toml`` and Textual's own), resolved
when a row is painted, so a theme switch repaints with the new colours."""

from __future__ import annotations

# borders and titles
BORDER = "$border"
BORDER_LIVE = "$border-active"
CURSOR_BORDER = "$cursor-border"
CURSOR_BG = "on $cursor-bg"
CURSOR_TITLE = "bold underline"
HOVER_BG = "on $cursor-bg"
TURN_TITLE = "$turn-title"
NOTE_STYLES = {"error": "$tool-error-text", "aborted": "$warning", "retry": "italic $retry-text"}
# entries
USER = "$user-message-text on $user-message-bg"
STEER_BAR = "$queue-steer"
NOTICE = {"info": "$notice-text", "warning": "$warning", "error": "$tool-error-text"}
THINKING = "$thinking-text"
CUSTOM_BAR = "$accent"
VIEW_ROLES = {  # an extension's message view: theme roles -> theme variables
    "text": "",
    "muted": "$text-muted",
    "dim": "dim",
    "accent": "$text-accent",
    "success": "$text-success",
    "warning": "$text-warning",
    "error": "$text-error",
    "bold": "bold",
    "italic": "italic",
    "code": "$text-warning",
}
THINKING_BODY = "italic $thinking-text"
# tool blocks
TOOL_BG = {
    "pending": "on $tool-pending-bg",
    "success": "on $tool-success-bg",
    "error": "on $tool-error-bg",
}
TOOL_OUTPUT = "$tool-output"
TOOL_ERROR = "$tool-error-text"
TOOL_HINT = "$tool-hint"
# Markdown
HEADINGS = {
    "h1": "bold $markdown-h1-color",
    "h2": "bold $markdown-h2-color",
    "h3": "bold $markdown-h3-color",
    "h4": "bold $markdown-h4-color",
    "h5": "$markdown-h5-color",
    "h6": "dim $markdown-h6-color",
}
CODE_INLINE = "$text-warning"
CODE_BG = "on $md-code-bg"
LINK = "underline"
BULLET = "$text-primary"
QUOTE = "on $boost"
QUOTE_BAR = "$text-primary"
RULE = "$secondary"
TABLE_BORDER = "$md-table-border"
TABLE_HEADER = "bold $md-table-header"
SEARCH_MATCH = "reverse"

"""The TUI's controllers: input, scrolling, the transcript cursor, attention, activity, the todo panel,
approvals, key actions and the slash-command pickers. Each sees the app through :class:`TuiHost`."""

"""The transcript as a document: plain blocks rendered into rows of one line-API widget.

Every entry of the transcript (a prompt, a turn with its answer, thinking and tool calls, a
notice, a compaction summary, a sub-agent's panel) is a :class:`~.rows.Block`: plain Python,
no Textual widget. A block knows its height at a width and draws any one of its rows on demand;
composite blocks (a turn, a sub-agent, a Markdown answer) index their children's rows, so a
change at the end of a long answer re-renders that end only. :class:`~.view.TranscriptView`
shows all of them as one widget that paints the rows in view and nothing else, so the cost of a
frame does not grow with the session: Textual lays out one widget whatever the number of turns,
and a 20,000-word answer streams into one widget instead of one per Markdown block.

Colours are theme variables (:mod:`.styles`), resolved when a row is painted. The geometry
(borders, padding, the gaps between blocks) is the renderers' own, in cells, as ``app.tcss``
had it for the widgets this replaces.
"""

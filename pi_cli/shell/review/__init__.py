"""``pi review`` and ``/review``: a read-only reviewer's findings on a git diff.

:mod:`.target` resolves what to review and runs ``git diff``; :mod:`.hunks` parses it;
:mod:`.runner` reviews it in parts with sub-agents of a plan-mode shell; :mod:`.report` places
the findings on the hunks and writes them as text, JSON (``report.schema.json``) or SARIF.
"""

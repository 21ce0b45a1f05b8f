"""Checkpoints: code snapshots in a shadow git repository, tied to session entries (``/rewind``).

- :mod:`.git` runs the ``git`` binary on the shadow repository (its own ``GIT_DIR`` under
  ``PI_HOME``, the workspace as work tree, no user or system config, no hooks, filters or
  fsmonitor); the user's ``.git``, index, stash and hooks are never read for writing.
- :mod:`.snapshot` takes a snapshot (``.gitignore`` respected, size limits) and restores one.
- :mod:`.policy` decides which tool calls may change files (a snapshot comes before them).
- :mod:`.timeline` reads ``checkpoint`` entries of a session: the code of any entry, who
  changed what between two snapshots, what a rewind would do.
- :mod:`.manager` is the shell's part: snapshots before changing turns and after each run,
  off the event loop; :mod:`.rewind` moves code and conversation back; :mod:`.prune` drops
  old snapshots.
"""

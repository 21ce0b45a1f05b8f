"""The options of each read-only git subcommand, as git 2.39 has them.

``PARSE_OPTIONS`` lists *every* option of the parse-options subcommands (``git SUB
--help-all``), since any unique prefix of any of them is a spelling git accepts: a table that
missed one could resolve a prefix git reads as another option. ``LOG`` and ``DIFF`` are
allowlists for the revision/diff parser (exact names only, so a subset is exact): what is not
listed asks. ``tests/shell/permissions/test_git_tables.py`` checks the parse-options tables
against ``--help-all`` of the installed git (the same names, both ways) and probes that the
installed ``git log``/``git diff`` accept every name of ``LOG``/``DIFF``: no table invents an
option. Format: :func:`pi_cli.shell.permissions._grammar.table`.
"""

from __future__ import annotations

_LISTING = (
    "contains= no-contains=~ with=~ without=~ merged= no-merged=~ sort= points-at= format= "
    "color? i|ignore-case column?"
)
PARSE_OPTIONS: dict[str, str] = {
    "status": "v|verbose s|short b|branch show-stash ahead-behind porcelain? long z|null "
    "u|untracked-files? ignored? ignore-submodules? column? no-renames M|find-renames?~",
    "grep": "cached no-index untracked exclude-standard recurse-submodules v|invert-match "
    "i|ignore-case w|word-regexp a|text I textconv:!textconv r|recursive max-depth=~ "
    "E|extended-regexp G|basic-regexp F|fixed-strings P|perl-regexp n|line-number column h H "
    "full-name l|files-with-matches name-only L|files-without-match z|null o|only-matching "
    "c|count color? break heading C|context= B|before-context= A|after-context= threads= # "
    "p|show-function W|function-context f=:r e= and~ or not~ ( ) q|quiet all-match "
    "O|open-files-in-pager?:!pager ext-grep m|max-count=",
    "branch": "v|verbose q|quiet t|track?:!git set-upstream:!git u|set-upstream-to=:!git "
    "unset-upstream:!git r|remotes abbrev? a|all d|delete:!git D:!git m|move:!git M:!git "
    "c|copy:!git C:!git l|list show-current create-reflog:!git edit-description:!pager "
    "f|force:!git recurse-submodules:!git " + _LISTING,
    "tag": "l|list~ n? d|delete~:!git v|verify~:!gpg a|annotate:!git m|message=~:!git "
    "F|file=:!git e|edit:!pager s|sign:!gpg cleanup=:!git u|local-user=:!gpg f|force:!git "
    "create-reflog:!git " + _LISTING,
    "ls-files": "z t v f c|cached d|deleted m|modified o|others i|ignored s|stage k|killed "
    "directory eol empty-directory u|unmerged resolve-undo x|exclude=~ X|exclude-from=~:r "
    "exclude-per-directory= exclude-standard~ full-name~ recurse-submodules error-unmatch "
    "with-tree= abbrev? debug deduplicate sparse format=~",
    "ls-tree": "d r t z l|long~ name-only~ name-status~ object-only~ full-name full-tree format=~ "
    "abbrev?",
    "describe": "contains debug all tags long first-parent abbrev? exact-match candidates= "
    "match= exclude= always dirty? broken?",
    "cat-file": "e p t s allow-unknown-type use-mailmap mailmap batch?~ batch-check?~ z "
    "batch-command?~ batch-all-objects~ buffer follow-symlinks unordered textconv~:!textconv "
    "filters~:!textconv path=",
    "show-ref": "tags heads verify h head d|dereference s|hash? abbrev? q|quiet exclude-existing?~",
    "merge-base": "a|all octopus~ independent~ is-ancestor~ fork-point~",
    "name-rev": "name-only tags refs= exclude= all stdin annotate-stdin undefined always peel-tag",
    "count-objects": "v|verbose H|human-readable",
    "for-each-ref": "s|shell p|perl python tcl count= format= color? sort= points-at= "
    "merged= no-merged=~ contains= no-contains=~ ignore-case",
    "blame": "incremental b root show-stats progress score-debug f|show-name n|show-number "
    "p|porcelain line-porcelain c t l s e|show-email w ignore-rev= ignore-revs-file=:r "
    "color-lines color-by-age minimal S=:r contents=:r C? M? L= abbrev?",
    "shortlog": "c|committer n|numbered s|summary e|email w? group=",
    "worktree list": "porcelain v|verbose expire= z",
    "config": "global system local worktree f|file=:r blob= get get-all get-regexp "
    "get-urlmatch replace-all:!git add:!git unset:!git unset-all:!git rename-section:!git "
    "remove-section:!git l|list fixed-value e|edit:!pager get-color get-colorbool t|type= "
    "bool~ int~ bool-or-int~ bool-or-str~ path~ expiry-date~ z|null name-only includes show-origin "
    "show-scope default=",
    "remote": "v|verbose",
}
"""Every option of each parse-options subcommand (``worktree list``: that subcommand's)."""

_DIFF = (
    "p|u|patch s|no-patch U|unified= output-indicator-new= output-indicator-old= "
    "output-indicator-context= raw patch-with-raw indent-heuristic no-indent-heuristic minimal "
    "patience histogram anchored= diff-algorithm= stat? stat-width= stat-name-width= "
    "stat-graph-width= stat-count= compact-summary numstat shortstat X|dirstat? cumulative "
    "dirstat-by-file? summary patch-with-stat z name-only name-status submodule? color? "
    "no-color color-moved? no-color-moved color-moved-ws= no-color-moved-ws word-diff? "
    "word-diff-regex= color-words? no-renames rename-empty no-rename-empty check "
    "ws-error-highlight= full-index binary abbrev? B|break-rewrites? M|find-renames? "
    "C|find-copies? find-copies-harder D|irreversible-delete l= diff-filter= S= G= "
    "find-object= pickaxe-all pickaxe-regex O=:r R relative? no-relative a|text "
    "ignore-cr-at-eol ignore-space-at-eol b|ignore-space-change w|ignore-all-space "
    "ignore-blank-lines I|ignore-matching-lines= inter-hunk-context= W|function-context "
    "exit-code quiet no-ext-diff no-textconv ignore-submodules? src-prefix= dst-prefix= "
    "no-prefix line-prefix= ita-invisible-in-index ita-visible-in-index rotate-to= skip-to= "
)
DIFF = _DIFF + "cached staged no-index base|1 ours|2 theirs|3 0"
"""``git diff`` (and ``stash show``): the diff options pi lets run unasked."""

_REVISION = (
    "# n|max-count= skip= max-age= min-age= since= after= until= before= author= committer= "
    "grep= grep-reflog= all-match invert-grep i|regexp-ignore-case E|extended-regexp "
    "F|fixed-strings P|perl-regexp basic-regexp merges no-merges min-parents= max-parents= "
    "no-min-parents no-max-parents first-parent not all branches? tags? remotes? glob= "
    "exclude= reflog single-worktree ignore-missing bisect stdin cherry-mark cherry-pick "
    "left-only right-only cherry boundary simplify-by-decoration show-pulls full-history dense "
    "sparse simplify-merges ancestry-path? topo-order date-order author-date-order reverse "
    "g|walk-reflogs no-walk? do-walk left-right graph oneline format= pretty? abbrev-commit "
    "no-abbrev-commit no-abbrev encoding= expand-tabs? no-expand-tabs notes? no-notes "
    "show-notes? standard-notes no-standard-notes show-linear-break? relative-date date= "
    "parents children decorate? no-decorate decorate-refs= decorate-refs-exclude= "
    "clear-decorations source use-mailmap no-use-mailmap mailmap no-mailmap log-size follow "
    "L= c cc m diff-merges= no-diff-merges combined-all-paths root t count objects "
    "objects-edge"
)
LOG = _DIFF + _REVISION
"""log, show, whatchanged, ``reflog [show]``, ``stash list``: revision and diff options pi lets
run unasked."""
_LOG_ONLY = frozenset(
    "L= c t decorate? no-decorate decorate-refs= decorate-refs-exclude= clear-decorations source "
    "use-mailmap no-use-mailmap mailmap no-mailmap cc".split()
)
REV_LIST = " ".join(entry for entry in _REVISION.split() if entry not in _LOG_ONLY)
"""rev-list: its revision options (it refuses diff options and log's decorations)."""

REV_PARSE = (
    "show-toplevel show-prefix show-cdup git-dir git-common-dir absolute-git-dir "
    "is-inside-work-tree is-inside-git-dir is-bare-repository is-shallow-repository abbrev-ref? "
    "short? verify q|quiet symbolic symbolic-full-name all branches? tags? remotes? glob= "
    "exclude= since= after= until= before= default= revs-only no-revs flags no-flags sq not "
    "local-env-vars show-object-format? shared-index-path git-path= "
    "show-superproject-working-tree disambiguate= path-format="
)
"""rev-parse (its own parser: exact names): what pi lets run unasked."""

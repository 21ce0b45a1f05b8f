"""Every option of each getopt_long reader pi may run without asking, as the program has it.

Copied from the programs on Debian 12 (coreutils 9.1, grep 3.8, diffutils 3.8, file 5.44,
binutils 2.40, util-linux 2.38 / bsdextrautils, hostname 3.23) and checked against the installed
programs by ``tests/shell/permissions/test_option_tables.py`` (names from ``--help`` and from
getopt's own ambiguity lists, each option's argument probed): a table can neither miss nor
invent an option. Format: :func:`pi_cli.shell.permissions._grammar.table`; an effect code names
why the option is not read-only (``w`` writes, ``x`` runs a program, ``r`` its value is a file
it reads, ``!KEY`` see ``_grammar.REASONS``).
"""

from __future__ import annotations

import re

_CHECKSUM = "b|binary c|check:!list tag t|text z|zero ignore-missing quiet status strict w|warn"
_DIGITS = "0 1 2 3 4 5 6 7 8 9"
_NUMBER = "0? 1? 2? 3? 4? 5? 6? 7? 8? 9?"  # the rest of the word is the number (-80, -4,8)
_INFO = ("help", "version")

GNU_TABLES: dict[str, str] = {
    "ls": "sort= a|all A|almost-all author b|escape block-size= B|ignore-backups color? "
    "d|directory D|dired F classify? file-type format= full-time time-style= "
    "group-directories-first G|no-group h|human-readable si H|dereference-command-line "
    "dereference-command-line-symlink-to-dir hide= hyperlink? indicator-style= i|inode "
    "I|ignore= k|kibibytes L|dereference:!follow n|numeric-uid-gid N|literal "
    "q|hide-control-chars show-control-chars Q|quote-name quoting-style= r|reverse "
    "R|recursive s|size time= T|tabsize= w|width= Z|context zero c f g l m o p t u v x C S "
    "U X 1",
    "cat": "A|show-all b|number-nonblank E|show-ends n|number s|squeeze-blank T|show-tabs "
    "v|show-nonprinting e t u",
    "head": f"c|bytes= n|lines= q|quiet|silent v|verbose z|zero-terminated {_DIGITS}",
    "tail": "c|bytes= f follow? retry n|lines= max-unchanged-stats= pid= q|quiet|silent "
    f"s|sleep-interval= v|verbose z|zero-terminated F {_DIGITS}",
    "wc": "files0-from=:!list debug c|bytes m|chars l|lines L|max-line-length w|words",
    "stat": "L|dereference f|file-system cached= c|format= printf= t|terse",
    "du": "files0-from=:!list 0|null a|all apparent-size B|block-size= b|bytes c|total "
    "D|dereference-args d|max-depth= s|summarize h|human-readable inodes L|dereference:!follow "
    "l|count-links P|no-dereference S|separate-dirs si t|threshold= time? time-style= "
    "X|exclude-from=:r exclude= x|one-file-system k m H",
    "df": "a|all B|block-size= h|human-readable H|si i|inodes l|local no-sync output? "
    "P|portability sync total t|type= T|print-type x|exclude-type= k m v F=",
    "basename": "a|multiple s|suffix= z|zero",
    "dirname": "z|zero",
    "realpath": "e|canonicalize-existing m|canonicalize-missing L|logical P|physical q|quiet "
    "relative-to=:r relative-base=:r s|strip|no-symlinks z|zero",
    "readlink": "f|canonicalize e|canonicalize-existing m|canonicalize-missing n|no-newline "
    "q|quiet s|silent v|verbose z|zero",
    "cut": "b|bytes= c|characters= d|delimiter= f|fields= complement s|only-delimited "
    "output-delimiter= z|zero-terminated n",
    "nl": "b|body-numbering= d|section-delimiter= f|footer-numbering= h|header-numbering= "
    "i|line-increment= l|join-blank-lines= n|number-format= p|no-renumber s|number-separator= "
    "v|starting-line-number= w|number-width=",
    "od": "traditional A|address-radix= endian= j|skip-bytes= N|read-bytes= strings? t|format= "
    "v|output-duplicates w|width? a b c d e f h i l o s x B D F H I L O S= X",
    "md5sum": _CHECKSUM,
    "sha1sum": _CHECKSUM,
    "sha256sum": _CHECKSUM,
    "sha512sum": _CHECKSUM,
    "b2sum": f"{_CHECKSUM} l|length=",
    "cksum": "b c|check:!list tag t z|zero ignore-missing quiet status strict w|warn "
    "a|algorithm= l|length= untagged debug",
    "comm": "check-order nocheck-order output-delimiter= total z|zero-terminated 1 2 3",
    "tac": "b|before r|regex s|separator=",
    "paste": "d|delimiters= s|serial z|zero-terminated",
    "fold": f"b|bytes s|spaces w|width= {_NUMBER}",
    "expand": f"i|initial t|tabs= {_NUMBER}",
    "unexpand": f"a|all first-only t|tabs= {_DIGITS}",
    "whoami": "",
    "id": "Z|context g|group G|groups n|name r|real u|user z|zero a",
    "uname": "a|all s|kernel-name|sysname n|nodename r|kernel-release|release v|kernel-version m|machine "
    "p|processor i|hardware-platform o|operating-system",
    "printenv": "0|null i u=",
    "seq": "f|format= s|separator= w|equal-width",  # -NUM: a negative operand (pi asks)
    "tr": "C|complement d|delete s|squeeze-repeats t|truncate-set1 c A",
    "sleep": "",
    "sort": "files0-from=:!list b|ignore-leading-blanks d|dictionary-order f|ignore-case "
    "g|general-numeric-sort i|ignore-nonprinting M|month-sort h|human-numeric-sort "
    "n|numeric-sort R|random-sort random-source=:r r|reverse sort= V|version-sort batch-size= "
    "c check? compress-program=:x debug k|key= m|merge o|output=:w s|stable S|buffer-size= "
    "t|field-separator= T|temporary-directory=:w parallel= u|unique z|zero-terminated y= C",
    "date": "u|utc|universal|uct d|date= debug f|file=:r I|iso-8601? resolution "
    "R|rfc-email|rfc-2822|rfc-822 rfc-3339= r|reference=:r s|set=:!sys",
    "uniq": "c|count d|repeated all-repeated? f|skip-fields= group? i|ignore-case s|skip-chars= "
    f"u|unique z|zero-terminated w|check-chars= D {_DIGITS}",
    "cmp": "b|print-bytes|print-chars i|ignore-initial= l|verbose n|bytes= s|quiet|silent "
    "v|version c",
    "diff": "normal q|brief s|report-identical-files context? unified? e|ed n|rcs "
    "y|side-by-side W|width= left-column suppress-common-lines p|show-c-function "
    "F|show-function-line= label= t|expand-tabs T|initial-tab tabsize= suppress-blank-empty "
    "l|paginate:x r|recursive:!follow no-dereference N|new-file unidirectional-new-file "
    "ignore-file-name-case no-ignore-file-name-case x|exclude= X|exclude-from=:r "
    "S|starting-file= from-file=:r to-file=:r i|ignore-case E|ignore-tab-expansion "
    "Z|ignore-trailing-space b|ignore-space-change w|ignore-all-space B|ignore-blank-lines "
    "I|ignore-matching-lines= a|text strip-trailing-cr D|ifdef= line-format= d|minimal "
    "horizon-lines= speed-large-files color? palette= v|version binary changed-group-format= "
    "forward-ed inhibit-hunk-merge new-group-format= new-line-format= old-group-format= "
    "old-line-format= sdiff-merge-assist unchanged-group-format= unchanged-line-format= "
    f"c f h u C= H L= P U= {_DIGITS}",
    "grep": "E|extended-regexp F|fixed-strings|fixed-regexp G|basic-regexp P|perl-regexp "
    "e|regexp= f|file=:r i|ignore-case no-ignore-case w|word-regexp x|line-regexp z|null-data "
    "s|no-messages v|invert-match V|version m|max-count= b|byte-offset n|line-number "
    "line-buffered H|with-filename h|no-filename label= o|only-matching q|quiet|silent "
    "binary-files= a|text d|directories= D|devices= r|recursive R|dereference-recursive:!follow "
    "include= exclude= exclude-from=:r exclude-dir= L|files-without-match "
    "l|files-with-matches c|count T|initial-tab Z|null B|before-context= A|after-context= "
    f"C|context= group-separator= no-group-separator color|colour? U|binary u|unix-byte-offsets y I X= {_DIGITS}",
    "file": "v|version m|magic-file=:r z|uncompress:!decompress "
    "Z|uncompress-noreport:!decompress b|brief c|checking-printout e|exclude= exclude-quiet= "
    "f|files-from=:!list F|separator= i|mime mime-type mime-encoding apple extension "
    "k|keep-going l|list L|dereference h|no-dereference n|no-buffer N|no-pad 0|print0 "
    "p|preserve-date:!time P|parameter= r|raw s|special-files S|no-sandbox:!sandbox "
    "C|compile:w d|debug E",
    "strings": "a|all d|data f|print-file-name n|bytes= t|radix= w|include-all-whitespace "
    "T|target= e|encoding= U|unicode= s|output-separator= h|help o v|V|version H "
    f"{_DIGITS}",
    "hexdump": "b|one-byte-octal c|one-byte-char C|canonical d|two-bytes-decimal "
    "o|two-bytes-octal x|two-bytes-hex L|color? e|format= f|format-file=:r n|length= s|skip= "
    "v|no-squeezing h|help V|version",
    "column": "t|table n|table-name= O|table-order= N|table-columns= l|table-columns-limit= "
    "E|table-noextreme= d|table-noheadings e|table-header-repeat H|table-hide= R|table-right= "
    "T|table-truncate= W|table-wrap= L|keep-empty-lines J|json r|tree= i|tree-id= "
    "p|tree-parent= c|output-width|columns= o|output-separator= s|separator= x|fillrows h|help "
    "V|version table-empty-lines",
    "rev": "h|help V|version",
    "hostname": "version help a|alias A|all-fqdns b|boot:!sys d|domain f|fqdn|long "
    "F|file=:!sys i|ip-address I|all-ip-addresses s|short y|yp|nis h V",
}
"""Option tables of the getopt_long readers (``--help`` and ``--version`` are added by
:func:`gnu_table_text` where a table does not list them)."""

REQUIRE_ORDER = frozenset({"basename", "printenv", "seq", "tr"})
"""Programs whose options end at the first operand (an optstring starting with ``+``)."""


def gnu_table_text(name: str) -> str:
    """The full table text of ``name`` (``--help``/``--version`` included)."""
    text = GNU_TABLES[name]
    listed = set(re.split(r"[|\s]+", re.sub(r"[=?+:][^\s|]*", "", text)))
    return " ".join([text, *(extra for extra in _INFO if extra not in listed)])

"""Readers with parsers of their own: find's expression, xxd's words, and the table texts of
ripgrep (clap 2: exact long names), tree 2.1, jq 1.6, debianutils' ``which`` and bash builtins.

Checked against the installed programs by ``tests/shell/permissions/test_option_tables.py``.
"""

from __future__ import annotations

from functools import cache

from pi_cli.shell.permissions._grammar import (
    ASKS,
    NO_ARG,
    PAIR,
    Given,
    Option,
    Parsed,
    Table,
    table,
)

RG = (
    "A|after-context= auto-hybrid-regex no-auto-hybrid-regex B|before-context= binary "
    "no-binary block-buffered no-block-buffered b|byte-offset s|case-sensitive color= colors= "
    "column no-column C|context= context-separator= no-context-separator c|count "
    "count-matches crlf no-crlf debug dfa-size-limit= E|encoding= no-encoding engine= "
    "field-context-separator= field-match-separator= f|file=:r files l|files-with-matches "
    "files-without-match F|fixed-strings no-fixed-strings L|follow:!follow no-follow g|glob= "
    "glob-case-insensitive no-glob-case-insensitive h|help heading no-heading hidden "
    "no-hidden iglob= i|ignore-case ignore-file=:r ignore-file-case-insensitive "
    "no-ignore-file-case-insensitive include-zero v|invert-match "
    "json no-json line-buffered no-line-buffered n|line-number "
    "N|no-line-number x|line-regexp M|max-columns= max-columns-preview "
    "no-max-columns-preview m|max-count= max-depth= max-filesize= mmap no-mmap U|multiline "
    "no-multiline multiline-dotall no-multiline-dotall no-config I|no-filename no-ignore "
    "ignore no-ignore-dot ignore-dot no-ignore-exclude ignore-exclude no-ignore-files "
    "ignore-files no-ignore-global ignore-global no-ignore-messages ignore-messages "
    "no-ignore-parent ignore-parent no-ignore-vcs ignore-vcs no-messages messages "
    "no-pcre2-unicode pcre2-unicode no-require-git require-git no-unicode unicode 0|null "
    "null-data one-file-system no-one-file-system o|only-matching passthru|passthrough "
    "path-separator= P|pcre2 no-pcre2 pcre2-version pre=:x no-pre pre-glob= p|pretty q|quiet "
    "regex-size-limit= e|regexp= r|replace= z|search-zip:!decompress no-search-zip "
    "S|smart-case sort= sortr= sort-files no-sort-files stats no-stats a|text no-text "
    "j|threads= trim no-trim t|type= type-add= type-clear= type-list T|type-not= "
    "u|unrestricted V|version vimgrep H|with-filename w|word-regexp"
)
TREE = (
    "a d l:!follow f x L= R:w P= I= gitignore gitfile=:r matchdirs metafirst ignore-case prune "
    "info infofile=:r noreport charset= filelimit= o=:w q N Q p u g s h si du D timefmt= F "
    "inodes device v t c U r dirsfirst filesfirst sort= i A S n C X J H= T= nolinks "
    "hintro=:r houtro=:r fromfile:!list fflinks version help"
)
JQ = (
    "s|slurp r|raw-output j|join-output a|ascii-output seq stream c|compact-output "
    "C|color-output M|monochrome-output tab indent= unbuffered S|sort-keys R|raw-input "
    "n|null-input f|from-file e|exit-status L=:r arg+ argjson+ slurpfile+:r rawfile+:r "
    "argfile+:r args jsonargs debug-dump-disasm debug-trace run-tests:!operands h|help "
    "V|version"
)
WHICH = "a"
BUILTINS = {"pwd": "L P", "type": "a f P p t", "printf": "v=:!shell"}

_FIND_TEXT = (
    "daystart follow:!follow nowarn regextype= warn depth d files0-from=:!list maxdepth= "
    "mindepth= mount noleaf xdev ignore_readdir_race noignore_readdir_race amin= anewer=:r "
    "atime= cmin= cnewer=:r context= ctime= empty false fstype= gid= group= ilname= iname= "
    "inum= iwholename= ipath= iregex= links= lname= mmin= mtime= name= newer=:r nouser "
    "nogroup path= perm= regex= readable writable executable wholename= size= true type= "
    "uid= used= user= xtype= delete:w print0 printf= fprintf+:w print fprint0=:w fprint=:w "
    "ls fls=:w prune quit exec=:x execdir=:x ok=:x okdir=:x not and or a o help version"
)
_FIND_OPERATORS = frozenset({"(", ")", "!", ","})
_FIND_START_TEXT = "H P L:!follow D="
_NEWER = "amcB"


def find_words(args: list[str]) -> Parsed | str:
    """find's command line: ``-H/-L/-P/-D/-O`` first, then start paths (operands) up to the
    first word starting with ``-`` or being ``(``/``!``, then primaries with their values."""
    given: list[Given] = []
    index = 0
    while index < len(args) and args[index].startswith("-") and args[index] != "-":
        word = args[index]
        if word[1:2] == "O" or word == "--":
            index += 1
            continue
        found = _table(_FIND_START_TEXT).short.get(word[1:]) if len(word) == 2 else None
        if found is None:
            break
        index += 2 if found.key == "D" else 1
        given.append(Given(found, None, word))
    operands: list[str] = []
    while index < len(args) and not (args[index].startswith("-") or args[index] in ("(", "!")):
        operands.append(args[index])
        index += 1
    while index < len(args):
        word = args[index]
        index += 1
        if word in _FIND_OPERATORS:
            continue
        option = _find_primary(word[1:]) if word.startswith("-") else None
        if option is None:
            return f"find has no primary {word}" if word.startswith("-") else f"find: {word!r}?"
        if option.effect == ASKS:  # -exec's words are its command's: nothing more to read
            given.append(Given(option, None, word))
            break
        count = {NO_ARG: 0, PAIR: 2}.get(option.arg, 1)
        if index + count > len(args):
            return f"find {word} needs a value"
        given.append(Given(option, args[index + count - 1] if count else None, word))
        index += count
    return Parsed(given, operands)


def _find_primary(name: str) -> Option | None:
    find = _table(_FIND_TEXT)
    option = find.longs.get(name) or find.short.get(name)
    if option is None and len(name) == 7 and name.startswith("newer") and name[5] in _NEWER:
        if name[6] in _NEWER:
            return find.longs["newer"]
        if name[6] == "t":
            return find.longs["name"]  # a time string, not a file
    return option


_XXD_TEXT = (
    "a|autoskip b|bits C|capitalize c|cols= E|EBCDIC e g|groupsize= h|help i|include "
    "l|len= n|name= o|offset= p|ps|postscript|plain r|revert:w d s|seek= u|uppercase "
    "v|version"
)


def xxd_words(args: list[str]) -> Parsed | str:
    """xxd's words: ``-X`` or its long spelling (``-cols 8``), a value attached or next."""
    xxd = _table(_XXD_TEXT)
    given: list[Given] = []
    operands: list[str] = []
    index = 0
    while index < len(args):
        word = args[index]
        index += 1
        if not word.startswith("-") or word == "-" or operands:
            operands.append(word)
            continue
        if word == "--":
            operands.extend(args[index:])
            break
        if word.startswith("--"):  # xxd skips one dash of "--name"
            word = word[1:]
        option = xxd.longs.get(word[1:]) or xxd.short.get(word[1:2])
        if option is None:
            return f"xxd has no option {word}"
        value = word[2:] if option.arg != NO_ARG and word[1:] not in xxd.longs else ""
        if option.arg != NO_ARG and not value:
            if index >= len(args):
                return f"xxd {word} needs a value"
            value, index = args[index], index + 1
        elif option.arg == NO_ARG and word[1:] not in xxd.longs and len(word) > 2:
            return f"xxd reads {word} in a way pi does not follow"
        given.append(Given(option, value or None, word))
    return Parsed(given, operands)


@cache
def _table(text: str) -> Table:
    return table(text)

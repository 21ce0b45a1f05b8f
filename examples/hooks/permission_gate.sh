#!/usr/bin/env bash
# Example pi command hook (PreToolUse): block `rm -rf` of anything outside the working directory.
#
# In ~/.pi/settings.json or .pi/settings.json:
#   {"hooks": {"PreToolUse": [{"matcher": "Bash", "command": "/path/to/permission_gate.sh", "timeout": 10}]}}
#
# pi writes the event as JSON on stdin, as Claude Code does ({"hook_event_name": "PreToolUse",
# "tool_name": "Bash", "tool_input": {"command": "..."}, "cwd": "..."}). Exit 0 allows the call; exit 2 blocks it and
# whatever is printed on stderr is given to the model as the reason.
set -u

payload=$(cat)
# JSON parsing with python3 (always there where pi runs); the decision is plain shell below.
command=$(printf '%s' "$payload" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("tool_input",{}).get("command",""))')
cwd=$(printf '%s' "$payload" | python3 -c 'import json,sys; print(json.load(sys.stdin).get("cwd",""))')
root=$(realpath -m -- "${cwd:-$PWD}")

# Only commands containing rm with both recursive and force flags are inspected.
printf '%s\n' "$command" | grep -Eq '(^|[;&|[:space:]])rm[[:space:]]+(-[a-zA-Z]*[rR][a-zA-Z]*f|-[a-zA-Z]*f[a-zA-Z]*[rR]|(-[rR][[:space:]]+-f|-f[[:space:]]+-[rR]))' || exit 0

blocked=""
in_rm=0
set -f  # no globbing: targets are checked as written
for word in $command; do
  case "$word" in
    rm) in_rm=1; continue ;;
    ';'|'&&'|'||'|'|') in_rm=0; continue ;;
    -*) continue ;;
  esac
  [ "$in_rm" = 1 ] || continue
  word=${word/#\~/$HOME}
  case "$word" in
    /*) target=$(realpath -m -- "$word") ;;
    *) target=$(realpath -m -- "$root/$word") ;;
  esac
  case "$target" in
    "$root"/*) ;;
    *) blocked="$blocked $word" ;;
  esac
done

if [ -n "$blocked" ]; then
  echo "Blocked by permission gate: rm -rf outside $root:$blocked" >&2
  exit 2
fi
exit 0

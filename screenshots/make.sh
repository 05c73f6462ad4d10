#!/usr/bin/env bash
# Makes the README screenshots from a real run: tooloop on the offline demo model in a
# 120×40 tmux pane, captured with colours (capture-pane -e) and drawn by ansi2png.py.
# Needs tmux, python3 with Pillow (pip install pillow), fonts-dejavu-core and, for the
# Chinese text, fonts-wqy-microhei.
# Usage: screenshots/make.sh [path/to/tooloop]   (default: target/debug/tooloop)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$here")"
bin="${1:-$root/target/debug/tooloop}"
bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
cols=120
rows=40
tmp="$(mktemp -d)"
sock="tooloop-shots-$$"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

# A small workspace to look at.
ws="$tmp/ws"
mkdir -p "$ws/src" "$tmp/home"
cat > "$ws/Cargo.toml" <<'TOML'
[package]
name = "hello"
version = "0.1.0"
edition = "2024"

[dependencies]
serde = "1"
TOML
printf 'fn main() {\n    // TODO: greet by name\n    println!("hello");\n}\n' > "$ws/src/main.rs"
printf '# hello\nA tiny example crate.\n' > "$ws/README.md"

tmux -L "$sock" -f /dev/null new-session -d -x "$cols" -y "$rows" \
  "env -u ANTHROPIC_API_KEY -u OPENAI_API_KEY HOME='$tmp/home' XDG_STATE_HOME='$tmp/home/state' \
   TERM=xterm-256color bash -c \"cd '$ws' && '$bin' --workspace '$ws'; sleep 60\""
tmux -L "$sock" set -g status off >/dev/null

screen() { tmux -L "$sock" capture-pane -p -t 0; }
wait_for() { # wait_for TEXT [SECONDS]
  local deadline=$((SECONDS + ${2:-20}))
  until screen | grep -qF -- "$1"; do
    if ((SECONDS > deadline)); then echo "timed out waiting for: $1" >&2; screen >&2; exit 1; fi
    sleep 0.1
  done
}
wait_status() { # the last line (status bar) contains TEXT
  local deadline=$((SECONDS + ${2:-20}))
  until screen | tail -n 1 | grep -qF -- "$1"; do
    if ((SECONDS > deadline)); then echo "timed out waiting for status: $1" >&2; screen >&2; exit 1; fi
    sleep 0.1
  done
}
shot() { # shot NAME
  tmux -L "$sock" capture-pane -e -p -t 0 > "$tmp/$1.ansi"
  local w h
  w="$(tmux -L "$sock" display-message -p -t 0 '#{pane_width}')"
  h="$(tmux -L "$sock" display-message -p -t 0 '#{pane_height}')"
  python3 "$here/ansi2png.py" "$tmp/$1.ansi" "$here/$1.png" "$w" "$h"
  echo "wrote screenshots/$1.png ($(stat -c %s "$here/$1.png") bytes)"
}
send() { tmux -L "$sock" send-keys -t 0 "$@"; }

wait_for "Ask something"
send -l "read Cargo.toml and src/main.rs"
send Enter
wait_for "Anything else?"
wait_status "idle"
shot conversation

send -l 'list files, find TODO and run `sleep 2 && echo done`'
send Enter
wait_for "allow bash?"
shot approval
sleep 0.5 # the box takes no answer in its first 400 ms (keys typed ahead go to the input)
send Enter
wait_status "running 1 tool"
sleep 1.2
shot tools

wait_status "idle"
send C-o
wait_for "history["
shot json

send C-c
send C-c
tmux -L "$sock" kill-server 2>/dev/null || true

# 80×24, as a new user's terminal often is: Chinese text, then a failing server.
small() { # small ARGS…: a fresh 80×24 session running tooloop with ARGS
  tmux -L "$sock" kill-server 2>/dev/null || true
  sleep 0.5 # let the old server go before a new one takes the socket
  tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 \
    "env -u OPENAI_API_KEY HOME='$tmp/home' XDG_STATE_HOME='$tmp/home/state' \
     TERM=xterm-256color bash -c \"cd '$ws' && $* ; sleep 60\""
  tmux -L "$sock" set -g status off >/dev/null
}
small "env -u ANTHROPIC_API_KEY '$bin' --workspace '$ws'"
wait_for "Ask something"
send -l "你好！请 list files，然后告诉我 what time is it"
send Enter
wait_for "Anything else?"
wait_status "idle"
send -l "这一行很长的中文输入会在八十列处换行，光标停在正确的位置上，输入法的候选窗口也会出现在光标这里 END"
wait_for "END"
shot small-chinese

# The `/` menu at 80×24: built-in commands and one from a file (its first line in Chinese).
mkdir -p "$ws/.tooloop/commands"
printf '# 审查代码里的错误\nReview $ARGUMENTS for bugs; list each with its line.\n' \
  > "$ws/.tooloop/commands/review.md"
small "env -u ANTHROPIC_API_KEY '$bin' --workspace '$ws'"
wait_for "Ask something"
send -l "/re"
wait_for "/review ARGS"
send Down
shot small-menu

# Only loopback: port 9 (discard) is closed here, so every attempt is refused.
small "ANTHROPIC_API_KEY=sk-ant-screenshot '$bin' --workspace '$ws' --provider anthropic \
  --base-url http://127.0.0.1:9"
wait_for "Ask something"
send -l "hello?"
send Enter
wait_for "turn ended" 60
wait_status "idle"
shot small-error

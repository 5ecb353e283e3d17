#!/bin/sh
# Runs inside a release's root where restored's package is installed
# (scripts/test-releases): a tmux server of that release's tmux, with a
# Neovim of its Neovim, saved through the installed daemon, killed,
# restored, and compared field by field. CHECK_HOME is a directory under the
# shared /tmp; everything the check starts ends with it, by pid.
set -eu
: "${CHECK_HOME:?}"
export HOME="$CHECK_HOME" XDG_RUNTIME_DIR="$CHECK_HOME/runtime" TMUX_TMPDIR="$CHECK_HOME/tmux" SHELL=/bin/sh
export XDG_STATE_HOME="$CHECK_HOME/state" XDG_CONFIG_HOME="$CHECK_HOME/config"
mkdir -p -m 0700 "$XDG_RUNTIME_DIR" "$TMUX_TMPDIR"
project="$HOME/project"
# A window renamed with a backslash (tmux keeps it escaped: restored must
# not double it). A directory whose name tmux 3.5 prints with escapes once a backslash or
# a `|` is quoted, with UTF-8 in it.
odd="$HOME/a\\b|c 작업"
mkdir -p "$project" "$odd"
printf 'line one\nline two\nline three\nline four\n' >"$project/notes.txt"

# The check's own reads see UTF-8 whatever the locale.
tmux() { command tmux -u "$@"; }

bus=""
daemon=""
finish() {
    tmux kill-server 2>/dev/null || true
    [ -z "$daemon" ] || kill "$daemon" 2>/dev/null || true
    [ -z "$bus" ] || kill "$bus" 2>/dev/null || true
}
trap finish EXIT
fail() {
    echo "tmux check: $*" >&2
    echo "--- restored's log:" >&2
    tail -30 "$HOME/restored.log" >&2 || true
    exit 1
}
wait_for() { # SECONDS COMMAND...: until COMMAND succeeds
    limit=$(($1 * 10)); shift
    tries=0
    until "$@" >/dev/null 2>&1; do
        tries=$((tries + 1)); [ $tries -lt $limit ] || return 1; sleep 0.1
    done
}

echo "tmux check: $(tmux -V), $(nvim --version | head -1), $(restored --version)"
eval "$(dbus-daemon --session --fork --print-address=1 --print-pid=1 | { read -r address; read -r pid; echo "DBUS_SESSION_BUS_ADDRESS='$address'; bus=$pid"; })"
export DBUS_SESSION_BUS_ADDRESS

tmux -f /dev/null new-session -d -s work -n edit -c "$project" -x 160 -y 48
tmux split-window -h -t =work:edit -c "$odd"
tmux select-pane -t =work:edit.1 -T 'ti#tle | ü ;'
tmux split-window -v -t =work:edit.1 -c "$project"
tmux new-window -d -t =work:3 -n logs -c "$HOME"
tmux rename-window -t =work:3 'lo\gs'
tmux split-window -v -t =work:3 -c "$project"
tmux resize-pane -Z -t =work:3.1
tmux new-window -d -t =work:5 -n vim -c "$project"
tmux select-window -t =work:3
tmux select-window -t =work:edit
tmux select-pane -t =work:edit.0
tmux new-session -d -s '작업 ü' -c "$odd"
# The release's Neovim, editing notes.txt at its third line.
tmux send-keys -t =work:5 'nvim +3 notes.txt' Enter
wait_for 20 sh -c 'tmux capture-pane -p -t =work:5 | grep -q "line four"' || fail "Neovim did not start in its pane"

fields='#{session_name}|#{window_index}|#{window_name}|#{window_layout}|#{window_zoomed_flag}|#{window_active}|#{window_last_flag}|#{pane_index}|#{pane_title}|#{pane_active}|#{pane_current_path}'
# Every field of every pane; a layout without its checksum and pane ids
# (new panes have new ids), its geometry exact.
panes() {
    tmux list-panes -a -F "$fields" | sed -E 's/\|[0-9a-f]{4},/|/; s/([0-9]+x[0-9]+,[0-9]+,[0-9]+),[0-9]+([],}|]|$)/\1\2/g'
}
# The shells report their directories once they run.
wait_for 20 sh -c "tmux list-panes -a -F '#{pane_current_path}' | grep -q 'a.b|c'" || fail "a pane's shell did not start"
before="$(panes)"
sessions_before="$(tmux list-sessions -F '#{session_name} #{session_windows}')"

restored --autosave-interval 0 --log-level info >"$HOME/restored.log" 2>&1 &
daemon=$!
# restored owns its name: asked of the bus, not of restored (a call to it
# before it owns the name would have the bus start a second one from the
# package's D-Bus service file, where no systemd runs).
owns_name() {
    dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.restored1 | grep -q "boolean true"
}
wait_for 30 owns_name || fail "restored did not answer"
restored-ctl save org.restored.Tmux >"$HOME/save.txt" 2>&1 || { cat "$HOME/save.txt" >&2; fail "restored-ctl save failed"; }
# (The session plugin waits for a desktop there is none of here, and says so: not tmux's line.)
if grep -v "waits for the desktop" "$HOME/restored.log" | grep -q "cannot be read\|could not be read\|not saved"; then fail "the save did not read the server"; fi

tmux kill-server
wait_for 10 sh -c '! tmux list-sessions' || fail "the server did not end"
restored-ctl restore org.restored.Tmux >"$HOME/restore.txt" 2>&1 || { cat "$HOME/restore.txt" >&2; fail "restored-ctl restore failed"; }

# Each field as it was (the shells report their directories once they run).
tries=0
while after="$(panes)"; [ "$after" != "$before" ] && [ $tries -lt 300 ]; do tries=$((tries + 1)); sleep 0.1; done
if [ "$after" != "$before" ]; then
    printf 'tmux check: before:\n%s\ntmux check: after:\n%s\n' "$before" "$after" >&2
    fail "the server came back otherwise"
fi
[ "$(tmux list-sessions -F '#{session_name} #{session_windows}')" = "$sessions_before" ] || fail "the sessions came back otherwise"
# Neovim back in its pane, with notes.txt at its third line (the ruler).
if ! wait_for 30 sh -c 'screen="$(tmux capture-pane -p -t =work:5)"; echo "$screen" | grep -q "line four" && echo "$screen" | grep -q "notes.txt" && echo "$screen" | grep -q "3,1"'; then
    tmux capture-pane -p -t =work:5 >&2 || true
    fail "Neovim did not come back with notes.txt at line 3"
fi
kill -0 "$daemon" || fail "restored is no longer running"
echo "tmux check: $(printf '%s\n' "$before" | wc -l) panes in $(echo "$sessions_before" | wc -l) sessions and a Neovim came back as they were"

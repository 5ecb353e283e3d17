#!/usr/bin/python3
"""sway of a release, its windows saved and reopened by the installed package.

Runs inside a release's root where restored's package is installed
(scripts/test-releases), with that release's sway headless (as user
nobody: sway refuses root) and its foot, on private buses (a session bus,
and a system bus with python3-dbusmock's logind). The user has three foot
windows: a shell in its directory moved to workspace 3, a floating one at a
frame of its own, and one whose shell runs `less` on a file. The installed
restored saves the session plugin's apps, the windows are killed as at a
session's end, and restored reopens them: each window once, a shell in its
directory, on its workspace, floating at its frame, `less` running again
with its file. Every process the check starts ends with it.
"""
import atexit
import json
import os
import shutil
import subprocess
import tempfile
import time

from release_check import ReleaseCheck, end_terminals, eventually, parent_of, shells

CHECK = ReleaseCheck("sway check", "restored.log", "restored")
HOME = CHECK.home
APP = "org.restored.Session"
NOBODY = 65534
fail = CHECK.fail


def arguments_of(pid):
    with open(f"/proc/{pid}/cmdline", "rb") as handle:
        return [argument.decode(errors="replace") for argument in handle.read().split(b"\0")[:-1]]


def foot_shells(directories):
    return shells("foot", directories)


def programs_under(pid):
    """The command lines of the children of `pid`."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            if entry.isdigit() and parent_of(int(entry)) == pid:
                found.append(arguments_of(int(entry)))
        except (OSError, ValueError, IndexError):
            continue
    return found


def main():
    env = CHECK.session({"SHELL": "/bin/sh", "XDG_CURRENT_DESKTOP": "sway"})
    # sway's runtime directory and home, nobody's, where nobody can reach
    # them (the check's home is under a directory only root enters); gone
    # once every process of the check has ended.
    runtime = tempfile.mkdtemp(prefix="restored-sway-check-", dir="/tmp")
    atexit.register(shutil.rmtree, runtime, True)
    os.chown(runtime, NOBODY, NOBODY)
    env["XDG_RUNTIME_DIR"] = runtime
    sway_home = runtime
    config = os.path.join(runtime, "config")
    with open(config, "w") as handle:
        handle.write("xwayland disable\n")
    sway_env = dict(env, HOME=sway_home, WLR_BACKENDS="headless", WLR_RENDERER="pixman", WLR_LIBINPUT_NO_DEVICES="1")
    sway_env.pop("DBUS_SESSION_BUS_ADDRESS", None)
    versions = [subprocess.run([program, "--version"], env=env, capture_output=True, text=True).stdout.split("\n")[0].strip()
                for program in ("sway", "foot", "restored")]
    CHECK.say(", ".join(versions))
    sway = CHECK.start(["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", "sway", "-c", config],
                       sway_env, os.path.join(HOME, "sway.log"))

    def socket():
        return next((os.path.join(runtime, name) for name in os.listdir(runtime)
                     if name.startswith("sway-ipc.") and name.endswith(".sock")), None)
    if not eventually(30, lambda: socket() and os.path.exists(os.path.join(runtime, "wayland-1"))):
        with open(os.path.join(HOME, "sway.log"), errors="replace") as handle:
            fail(f"sway did not come up (it {'ended' if sway.poll() is not None else 'runs'}): {handle.read()[-2000:]}")
    app_env = dict(env, WAYLAND_DISPLAY="wayland-1", SWAYSOCK=socket())

    def swaymsg(*arguments):
        done = subprocess.run(["swaymsg", *arguments], env=app_env, capture_output=True, text=True, timeout=30)
        if done.returncode != 0:
            fail(f"swaymsg {' '.join(arguments)}: {done.stdout}{done.stderr}")
        return done.stdout

    def windows():
        """Every window: {pid: (workspace, floating, frame)}."""
        found = {}

        def walk(node, workspace):
            if node.get("type") == "workspace":
                workspace = node.get("name")
            if node.get("pid") and node.get("type") in ("con", "floating_con"):
                rect = node["rect"]
                found[node["pid"]] = (workspace, node["type"] == "floating_con", (rect["x"], rect["y"], rect["width"], rect["height"]))
            for child in node.get("nodes", []) + node.get("floating_nodes", []):
                walk(child, workspace)
        walk(json.loads(swaymsg("-t", "get_tree", "-r")), None)
        return found

    names = ("shell", "floating", "pager")
    directories = {name: os.path.join(HOME, f"{name} $(dir)") for name in names}
    for directory in directories.values():
        os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directories["pager"], "notes.txt"), "w") as handle:
        handle.write("page one\n")
    # Each window as its user made it: a shell in its directory, the pager
    # run from it as a job (as typed at a prompt).
    foots = {}
    for name in names:
        command = 'cd "$0" && set -m && less notes.txt ; exec /bin/sh' if name == "pager" else 'cd "$0" && exec /bin/sh'
        foots[name] = CHECK.start(["foot", "/bin/sh", "-c", command, directories[name]], app_env, os.path.join(HOME, f"foot-{name}.log"))
        if not eventually(30, lambda: foots[name].pid in windows()):
            fail(f"the user's {name} window did not appear")
    swaymsg(f"[pid={foots['shell'].pid}] move container to workspace 3")
    for command in ("floating enable", "resize set 700 px 400 px", "move absolute position 100 px 80 px"):
        swaymsg(f"[pid={foots['floating'].pid}] {command}")
    wanted = {"shell": ("3", False), "floating": ("1", True), "pager": ("1", False)}

    def placed(pids, frame):
        """Whether the windows of `pids` are on their workspaces, the
        floating one at `frame` (its content's: sway's title bar is above it)."""
        now = windows()
        return all(pids.get(name) in now and now[pids[name]][:2] == wanted[name] for name in names) \
            and frame(now[pids["floating"]][2])

    # The floating frame the user's took, once it holds a second.
    held = [None, 0]

    def steady(frame):
        held[1] = held[1] + 1 if frame == held[0] else 0
        held[0] = frame
        time.sleep(0.1)
        return frame[0] == 100 and held[1] >= 10
    if not eventually(30, lambda: placed({name: process.pid for name, process in foots.items()}, steady)):
        fail(f"the user's windows did not take their places: {windows()}")
    framed = held[0]
    if not eventually(30, lambda: ["less", "notes.txt"] in
                      [arguments for _, shell in foot_shells([directories["pager"]])[directories["pager"]] for arguments in programs_under(shell)]):
        fail("less did not run in the pager's shell")
    CHECK.say(f"the user's windows: {windows()}")

    # The installed restored: saves, the windows end as at a session's end, it reopens them.
    daemon = CHECK.restored_with(APP, app_env)
    CHECK.restored_ctl(app_env, "save", APP)
    for process in foots.values():
        process.kill()
        process.wait(timeout=20)
    if not eventually(20, lambda: not windows()):
        fail(f"the user's windows did not end: {windows()}")
    CHECK.restored_ctl(app_env, "restore", APP)

    def reopened():
        found = foot_shells(list(directories.values()))
        return {name: found[directories[name]] for name in names}
    try:
        if not eventually(60, lambda: all(len(pairs) == 1 for pairs in reopened().values())):
            fail(f"foot did not come back with one shell in each window's directory: {reopened()}")
        time.sleep(2)
        again = reopened()
        if any(len(pairs) != 1 for pairs in again.values()):
            fail(f"foot came back with more: {again}")
        pids = {name: pairs[0][0] for name, pairs in again.items()}
        if not eventually(30, lambda: placed(pids, lambda frame: frame == framed)):
            fail(f"the windows came back elsewhere: {windows()} (wanted by pid {pids}: {wanted}, floating at {framed})")
        pager_shell = again["pager"][0][1]
        if not eventually(30, lambda: ["less", "notes.txt"] in programs_under(pager_shell)):
            fail(f"less did not run again in the pager's shell: {programs_under(pager_shell)}")
        CHECK.say(f"the windows came back once each, in their directories, at their places: {windows()}; less runs again with its file")
    finally:
        end_terminals(reopened())
    daemon.terminate()
    daemon.wait(timeout=60)


if __name__ == "__main__":
    CHECK.run(main)

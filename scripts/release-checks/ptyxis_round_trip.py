#!/usr/bin/python3
"""Ptyxis of a release, saved and reopened by the installed package.

Runs inside a release's root where restored's package is installed
(scripts/test-releases), with that release's GNOME Shell headless and
restored's extension (the package's) enabled, on private buses (a session
bus, and a system bus with python3-dbusmock's logind). The user's Ptyxis,
one shared instance, has two windows: the one its own restore brought back
at its start (restore-session is on, as by default: a tab in `older`, from
the session file Ptyxis wrote when its last window was closed), and one
opened in another directory, on workspace 2 at a frame of its own (placed
by the extension as a restore would, the check owning org.restored1
meanwhile). Ptyxis's own restore must not bring `older` back a second time
beside restored's.
The installed restored saves the session plugin's apps, the windows are
killed as at a session's end, and restored reopens them: each window once,
in its directory, its shell running, the second on workspace 2 at its
frame. Every process the check starts ends with it.
"""
import os
import subprocess
import time

import dbus

from release_check import ReleaseCheck, eventually, processes, shells, windows_of, PLACES, PLACES_PATH, SHELL_BUS, UUID

CHECK = ReleaseCheck("ptyxis check", "restored.log", "restored")
HOME = CHECK.home
APP = "org.restored.Session"
ENTRY = "/usr/share/applications/org.gnome.Ptyxis.desktop"
fail = CHECK.fail


def agent_shells(directories):
    """The shells of Ptyxis's terminals (children of a ptyxis-agent) by directory."""
    return shells("ptyxis-agent", directories)


def ptyxis_processes():
    return processes("ptyxis")


def main():
    config = os.path.join(HOME, "config")
    env, bus, display = CHECK.gnome_shell(UUID, {"SHELL": "/bin/bash", "GTK_A11Y": "none"})
    restore_session = subprocess.run(["gsettings", "get", "org.gnome.Ptyxis", "restore-session"], env=env,
                                     capture_output=True, text=True).stdout.strip()
    versions = [subprocess.run([program, "--version"], env=env, capture_output=True, text=True).stdout.split("\n")[0].strip()
                for program in ("ptyxis", "restored")]
    CHECK.say(f"{', '.join(versions)}; Ptyxis's restore-session: {restore_session}")
    app_env = dict(env, WAYLAND_DISPLAY=display)

    # Ptyxis's own session: one window with a tab in `older` (the format
    # Ptyxis writes when its last window is closed), which its shared
    # instance restores at its first command line.
    older, second = (os.path.join(HOME, name) for name in ("older dir", "second $(dir)"))
    for directory in (older, second):
        os.makedirs(directory, exist_ok=True)
    os.makedirs(os.path.join(config, "org.gnome.Ptyxis"), exist_ok=True)
    session_file = os.path.join(config, "org.gnome.Ptyxis", "session.gvariant")
    write = ("const {GLib} = imports.gi;"
             "const tab = {cwd: new GLib.Variant('s', GLib.filename_to_uri(ARGV[1], null)), active: new GLib.Variant('b', true)};"
             "const session = new GLib.Variant('a{sv}', {version: new GLib.Variant('u', 1),"
             " windows: new GLib.Variant('aa{sv}', [{tabs: new GLib.Variant('aa{sv}', [tab])}])});"
             "GLib.file_set_contents(ARGV[0], session.get_data_as_bytes().toArray());")
    subprocess.run(["gjs", "-c", write, session_file, older], env=env, check=True)

    # The user's two windows in one instance, placed as a restore would:
    # the one Ptyxis restores at its start (`ptyxis`, as from its icon) on
    # workspace 1, the second (`--new-window` in a directory) on workspace
    # 2 at 140,100.
    places = bus.get_object(SHELL_BUS, PLACES_PATH)
    bus.request_name("org.restored1")
    rules = [
        {"id": "first", "launched-file": ENTRY, "launch": dbus.UInt32(1), "workspace": dbus.Int32(0),
         "x": dbus.Int32(40), "y": dbus.Int32(30), "width": dbus.Int32(700), "height": dbus.Int32(450)},
        {"id": "second", "launched-file": ENTRY, "launch": dbus.UInt32(1), "workspace": dbus.Int32(1),
         "x": dbus.Int32(140), "y": dbus.Int32(100), "width": dbus.Int32(720), "height": dbus.Int32(480)},
    ]
    places.SetRules(dbus.Array([dbus.Dictionary(rule, signature="sv") for rule in rules], signature="a{sv}"),
                    dbus.UInt32(120), dbus_interface=PLACES)
    launched = dict(app_env, GIO_LAUNCHED_DESKTOP_FILE=ENTRY)
    for index, arguments in enumerate(([], ["--new-window", f"--working-directory={second}"])):
        CHECK.start(["ptyxis", *arguments], launched, os.path.join(HOME, f"ptyxis-{index}.log"))
        if not eventually(30, lambda: len(places.Applied(dbus_interface=PLACES)) > index):
            fail(f"the user's window {index + 1} did not take its place (Ptyxis: {ptyxis_processes()})")

    def ptyxis_windows():
        return windows_of(places, "org.gnome.Ptyxis.desktop")

    def place(window):
        return (int(window["workspace"]), int(window["x"]), int(window["y"]), int(window["width"]), int(window["height"]))

    if not eventually(30, lambda: all(agent_shells([older, second]).values()) and len(ptyxis_windows()) == 2):
        fail(f"the user's Ptyxis did not show two shells: {agent_shells([older, second])}, windows {ptyxis_windows()}")
    time.sleep(1)
    saved = sorted(place(window) for window in ptyxis_windows())
    before = agent_shells([older, second])
    CHECK.say(f"the user's Ptyxis: {len(ptyxis_processes())} process(es), windows {saved}, "
              f"shells {({os.path.basename(d): len(p) for d, p in before.items()})} (one from Ptyxis's own restore)")
    bus.release_name("org.restored1")

    # The installed restored: saves, the windows end as at a session's end, it reopens them.
    daemon = CHECK.restored_with(APP, app_env)
    CHECK.restored_ctl(app_env, "save", APP)
    # As at a session's end: Ptyxis ends by a signal (its agent and the
    # shells follow it), writing no session of its own.
    for pid, _ in ptyxis_processes():
        os.kill(pid, 9)
    if not eventually(20, lambda: not ptyxis_processes() and not any(agent_shells([older, second]).values())):
        fail(f"Ptyxis did not end: {ptyxis_processes()}")
    CHECK.restored_ctl(app_env, "restore", APP)

    wanted = {older: 1, second: 1}
    if not eventually(60, lambda: {d: len(p) for d, p in agent_shells(wanted).items()} == wanted):
        fail(f"Ptyxis did not come back with one shell in each of its windows' directories: "
             f"{({os.path.basename(d): len(p) for d, p in agent_shells(wanted).items()})}, processes {ptyxis_processes()}")
    time.sleep(2)
    after = agent_shells(wanted)
    if {d: len(p) for d, p in after.items()} != wanted:
        fail(f"Ptyxis came back with more: {({os.path.basename(d): len(p) for d, p in after.items()})}")
    # restored stops (its stop saves); the check reads the windows as restored's stand-in.
    daemon.terminate()
    daemon.wait(timeout=60)
    bus.request_name("org.restored1")
    if not eventually(20, lambda: sorted(place(window) for window in ptyxis_windows()) == saved):
        fail(f"Ptyxis's windows came back at {sorted(place(window) for window in ptyxis_windows())}, saved at {saved}")
    CHECK.say(f"Ptyxis came back once: two windows at {saved}, a shell in each one's directory, none twice; "
              f"processes {[command for _, command in ptyxis_processes()]}")


if __name__ == "__main__":
    CHECK.run(main)

#!/usr/bin/python3
"""GNOME Terminal of a release, saved as the session ends and reopened by
the installed package.

Runs inside a release's root where restored's package is installed
(scripts/test-releases), with that release's GNOME Shell headless and
restored's extension (the package's) enabled, on private buses (a session
bus with GNOME Terminal's server D-Bus activated on it, and a system bus
with python3-dbusmock's logind). The user has two GNOME Terminal windows of
two tabs each, the second on workspace 2 at a place of its own (placed by
the extension, the check owning org.restored1 meanwhile); each tab's shell
shows its directory as its title. The installed restored saves them as the
session ends (logind says closing, restored is stopped), the server is
killed, and a second restored reopens them: two windows, each with its own
tabs in their directories and order (read by making each tab active in
turn, as a user would), each on its workspace at its place. Every process
the check starts ends with it.
"""
import os
import signal
import subprocess
import time

import dbus

from release_check import ReleaseCheck, answers, eventually, windows_of, PLACES, PLACES_PATH, SHELL_BUS, UUID

CHECK = ReleaseCheck("gnome-terminal check", "restored.log", "restored")
HOME = CHECK.home
ENTRY = "/usr/share/applications/org.gnome.Terminal.desktop"
fail = CHECK.fail


def servers():
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                if handle.read().split(b"\0")[0].endswith(b"gnome-terminal-server"):
                    found.append(int(entry))
        except OSError:
            continue
    return found


def main():
    env, bus, display = CHECK.gnome_shell(UUID, {"SHELL": "/bin/bash"})
    version = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "gnome-terminal"], capture_output=True, text=True).stdout
    CHECK.say(f"GNOME Terminal {version}, {subprocess.run(['restored', '--version'], env=env, capture_output=True, text=True).stdout.strip()}")
    app_env = dict(env, WAYLAND_DISPLAY=display)
    # The server is D-Bus activated on the session bus, with the display.
    bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").UpdateActivationEnvironment(
        {"WAYLAND_DISPLAY": display}, dbus_interface="org.freedesktop.DBus")
    # Each tab's shell (bash) shows its directory as its title.
    with open(os.path.join(HOME, ".bashrc"), "w") as handle:
        handle.write("PROMPT_COMMAND='printf \"\\033]0;%s\\007\" \"$PWD\"'\n")
    directories = [os.path.join(HOME, name) for name in ("tab 1", "tab $(2)", "tab 3", "tab 4")]
    for directory in directories:
        os.makedirs(directory, exist_ok=True)

    places = bus.get_object(SHELL_BUS, PLACES_PATH)
    bus.request_name("org.restored1")
    rules = [
        {"id": "first", "desktop-id": "org.gnome.Terminal.desktop", "launched-file": ENTRY, "launch": dbus.UInt32(1),
         "workspace": dbus.Int32(0), "x": dbus.Int32(60), "y": dbus.Int32(40), "width": dbus.Int32(700), "height": dbus.Int32(450)},
        {"id": "second", "desktop-id": "org.gnome.Terminal.desktop", "launched-file": ENTRY, "launch": dbus.UInt32(1),
         "workspace": dbus.Int32(1), "x": dbus.Int32(300), "y": dbus.Int32(200), "width": dbus.Int32(700), "height": dbus.Int32(450)},
    ]
    places.SetRules(dbus.Array([dbus.Dictionary(rule, signature="sv") for rule in rules], signature="a{sv}"),
                    dbus.UInt32(120), dbus_interface=PLACES)
    for index, (first, second) in enumerate((directories[0:2], directories[2:4])):
        done = subprocess.run(["gnome-terminal", "--window", f"--working-directory={first}", "--tab", f"--working-directory={second}"],
                              env=app_env, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            fail(f"gnome-terminal: {done.stdout}{done.stderr}")
        if not eventually(30, lambda: len(places.Applied(dbus_interface=PLACES)) > index):
            fail(f"the user's window {index + 1} did not take its place")

    def windows():
        return windows_of(places, "org.gnome.Terminal.desktop")

    def place(window):
        return (int(window["workspace"]), int(window["x"]), int(window["y"]))

    def tabs():
        """Each window's tabs as their titles, by window id: each tab made
        active in turn through the window's actions, then set back."""
        found = {}
        for window in windows():
            actions = bus.get_object("org.gnome.Terminal", str(window["gtk-window-path"]))

            def active():
                return int(actions.Describe("active-tab", dbus_interface="org.gtk.Actions")[2][0])

            def activate(index):
                actions.SetState("active-tab", dbus.Int32(index, variant_level=1), {}, dbus_interface="org.gtk.Actions")

            def title():
                return next((str(w["title"]) for w in windows() if int(w["id"]) == int(window["id"])), "")

            was = active()
            activate(-1)
            last = active()
            # The window's title once it holds a second (the last tab's);
            # then each tab's, which differs from the one before it.
            held = [title(), 0]

            def steady():
                now = title()
                held[1] = held[1] + 1 if now == held[0] else 0
                held[0] = now
                time.sleep(0.1)
                return held[1] >= 10 and now.startswith("/")
            eventually(20, steady)
            titles = []
            for index in range(last + 1):
                activate(index)
                before = titles[-1] if titles else held[0]
                now = held[0] if index == last else eventually(10, lambda: (lambda t: t if t.startswith("/") and t != before else None)(title()))
                titles.append(now or title())
            activate(was)
            found[int(window["id"])] = titles
        return found

    expected = [directories[0:2], directories[2:4]]
    if not eventually(30, lambda: len(windows()) == 2 and all(title_ok(w) for w in windows())):
        fail(f"the user's windows did not show their shells' titles: {[str(w['title']) for w in windows()]}")
    saved = [place(window) for window in windows()]
    before = tabs()
    if [before.get(int(w["id"])) for w in windows()] != expected:
        fail(f"the user's windows hold other tabs than opened: {before}")
    CHECK.say(f"the user's windows: {saved}, their tabs {[[os.path.basename(t) for t in v] for v in before.values()]}")
    bus.release_name("org.restored1")

    # restored, then the session ends: logind says closing, restored stops.
    system = dbus.bus.BusConnection(env["DBUS_SYSTEM_BUS_ADDRESS"])
    login = system.get_object("org.freedesktop.login1", "/org/freedesktop/login1")
    uid = os.getuid()
    login.AddUser(dbus.UInt32(uid), "user", True, dbus_interface="org.freedesktop.DBus.Mock")
    login.AddMethod("org.freedesktop.login1.Manager", "GetUser", "u", "o",
                    f"ret = dbus.ObjectPath('/org/freedesktop/login1/user/{uid}')", dbus_interface="org.freedesktop.DBus.Mock")
    user = system.get_object("org.freedesktop.login1", f"/org/freedesktop/login1/user/{uid}")

    def set_state(state):
        user.Set("org.freedesktop.login1.User", "State", state, dbus_interface="org.freedesktop.DBus.Properties")

    set_state("active")

    daemon = CHECK.start(["restored", "--autosave-interval", "0", "--log-level", "info"], app_env, CHECK.log)
    if not eventually(30, lambda: answers(bus)):
        fail("restored did not answer")
    set_state("closing")
    os.kill(daemon.pid, signal.SIGTERM)
    daemon.wait(timeout=60)
    with open(CHECK.log) as handle:
        log = handle.read()
    if "the session ends" not in log:
        fail("restored did not save for the session's end")
    for pid in servers():
        os.kill(pid, 9)
    if not eventually(20, lambda: not servers()):
        fail("GNOME Terminal's server did not end")

    set_state("active")
    # The first restored's name is free before the next one starts.
    if not eventually(20, lambda: not answers(bus)):
        fail("org.restored1 is still owned once restored stopped")
    os.rename(CHECK.log, os.path.join(HOME, "restored-save.log"))
    again = CHECK.start(["restored", "--autosave-interval", "0", "--log-level", "info"], app_env, CHECK.log)
    if not eventually(30, lambda: answers(bus)):
        fail("restored did not answer")
    # Its start is the next login's: it restores what the session's end saved.
    if not eventually(60, lambda: len(servers()) == 1):
        fail("GNOME Terminal's server did not come back")
    # restored's rules placed the windows; once it stops, the check reads
    # them as restored's stand-in (the owner of org.restored1).
    time.sleep(3)
    again.terminate()
    again.wait(timeout=60)
    bus.request_name("org.restored1")
    if not eventually(30, lambda: len(windows()) == 2 and all(title_ok(w) for w in windows())):
        fail(f"GNOME Terminal came back with {len(windows())} window(s): {[str(w['title']) for w in windows()]}")
    after = tabs()
    if [after.get(int(w["id"])) for w in windows()] != expected or [place(w) for w in windows()] != saved:
        fail(f"GNOME Terminal came back otherwise: windows {[place(w) for w in windows()]} (saved {saved}), tabs {after}")
    CHECK.say("two windows of two tabs came back as they were: each with its tabs in their directories and order, at its place")


def title_ok(window):
    return str(window["title"]).startswith("/")


if __name__ == "__main__":
    CHECK.run(main)

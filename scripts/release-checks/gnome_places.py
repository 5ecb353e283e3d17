#!/usr/bin/python3
"""GNOME Shell of a release, with restored's window places extension.

Runs inside a release's root (scripts/test-releases, through
gnome_places.sh) with that release's GNOME Shell, headless, on private
buses (a session bus, and a system bus with python3-dbusmock's logind), the
extension installed as scripts/install-window-places installs it and
enabled. It then does what the session plugin does at a login: owns
org.restored1, hands the extension rules (SetRules), launches the app the
way the launcher does (GIO_LAUNCHED_DESKTOP_FILE), waits for Applied, and
reads the windows back (Windows): each must be on its workspace, at its
frame, maximized where its rule says. Every process it starts ends with it.
"""
import json
import os
import subprocess
import time

import dbus

from release_check import ReleaseCheck, eventually, PLACES, PLACES_PATH, SHELL_BUS, UUID

CHECK = ReleaseCheck("gnome check", "gnome-shell.log", "gnome-shell")
HOME = CHECK.home
fail = CHECK.fail


def main():
    env, bus, display = CHECK.gnome_shell(UUID)
    os.environ.update({"DBUS_SESSION_BUS_ADDRESS": env["DBUS_SESSION_BUS_ADDRESS"]})

    # restored, as far as the extension can tell: the owner of org.restored1.
    bus.request_name("org.restored1")
    places = bus.get_object(SHELL_BUS, PLACES_PATH)
    entry = os.path.join(HOME, "share", "applications", "foot-check.desktop")
    os.makedirs(os.path.dirname(entry), exist_ok=True)
    with open(entry, "w") as handle:
        handle.write("[Desktop Entry]\nType=Application\nName=foot (check)\nExec=foot\n")
    rules = [
        {"id": "framed", "launched-file": entry, "launch": dbus.UInt32(1), "workspace": dbus.Int32(1),
         "x": dbus.Int32(100), "y": dbus.Int32(80), "width": dbus.Int32(600), "height": dbus.Int32(400)},
        {"id": "maximized", "launched-file": entry, "launch": dbus.UInt32(2), "workspace": dbus.Int32(0),
         "x": dbus.Int32(500), "y": dbus.Int32(300), "width": dbus.Int32(640), "height": dbus.Int32(360),
         "maximized": True},
    ]
    places.SetRules(dbus.Array([dbus.Dictionary(rule, signature="sv") for rule in rules], signature="a{sv}"),
                    dbus.UInt32(120), dbus_interface=PLACES)
    app_env = dict(env, WAYLAND_DISPLAY=display, GIO_LAUNCHED_DESKTOP_FILE=entry)
    foot_version = subprocess.run(["foot", "--version"], env=app_env, capture_output=True, text=True).stdout.strip()
    CHECK.say(f"{foot_version}")
    # foot takes a frame to the pixel, not rounded to its cells.
    foot_config = os.path.join(HOME, "foot.ini")
    with open(foot_config, "w") as handle:
        handle.write("[main]\nresize-by-cells=no\n")
    for index in range(len(rules)):
        # One launch after the other: the first window takes the first rule.
        CHECK.start(["foot", "--config", foot_config, "--app-id", "foot", "sh", "-c", "sleep 600"], app_env, os.path.join(HOME, f"foot{index}.log"))
        if not eventually(30, lambda: len(places.Applied(dbus_interface=PLACES)) > index):
            fail(f"the rule {rules[index]['id']} was never applied (applied: {list(places.Applied(dbus_interface=PLACES))})")

    def windows():
        return [{str(key): value for key, value in window.items()} for window in places.Windows(dbus_interface=PLACES)]

    def placed():
        found = {}
        for rule_id, window_id in places.Applied(dbus_interface=PLACES):
            window = next((w for w in windows() if int(w["id"]) == int(window_id)), None)
            if window is not None:
                found[str(rule_id)] = window
        return found

    def as_asked():
        found = placed()
        framed, maximized = found.get("framed"), found.get("maximized")
        return framed and maximized \
            and int(framed["workspace"]) == 1 and (int(framed["x"]), int(framed["y"]), int(framed["width"]), int(framed["height"])) == (100, 80, 600, 400) \
            and not bool(framed["maximized"]) and bool(maximized["maximized"]) and int(maximized["workspace"]) == 0
    if not eventually(20, as_asked):
        fail("the windows did not take their places: " + json.dumps(
            {rule: {key: (bool(value) if isinstance(value, dbus.Boolean) else str(value)) for key, value in window.items()}
             for rule, window in placed().items()}))
    CHECK.say("a window on workspace 2 at 100,80 600x400 and a maximized one came back as their rules say")


if __name__ == "__main__":
    CHECK.run(main)

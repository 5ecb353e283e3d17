#!/usr/bin/python3
"""KWin of a release, with restored's KWin script.

Runs inside a release's root (scripts/test-releases) with that release's
KWin on its virtual backend, on a private session bus. It plays the session
plugin's side of the script's protocol (Extensions/kwin/places.js): it owns
org.restored1.KWinPlaces and serves Report, Claim and Applied, loads the
script over D-Bus, launches two foot windows, answers each claim with a
place (one on desktop 2 at 100,80 600x400, one maximized), and checks that
Applied reports the frame and states each window took (on Wayland a frame
lands after the client's next commit), then that a second run of the
script reports them (desktop, frame, maximized). Every process it starts
ends with it.
"""
import json
import os

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop

from release_check import ReleaseCheck, pump

CHECK = ReleaseCheck("kwin check", "kwin.log", "KWin")
HOME = CHECK.home
SCRIPT = os.path.join(HOME, "places.js")
NAME = "org.restored1.KWinPlaces"
fail = CHECK.fail


class Places(dbus.service.Object):
    """The session plugin's side: the places to hand out, what came back."""

    def __init__(self, bus, places):
        super().__init__(bus, "/org/restored1/KWinPlaces")
        self.places = list(places)
        self.reports = []
        self.applied = []
        self.claims = []

    @dbus.service.method(NAME, in_signature="s", out_signature="")
    def Report(self, windows):
        self.reports.append(json.loads(str(windows)))

    @dbus.service.method(NAME, in_signature="s", out_signature="s")
    def Claim(self, window):
        self.claims.append(json.loads(str(window)))
        return json.dumps(self.places.pop(0)) if self.places else "{}"

    @dbus.service.method(NAME, in_signature="s", out_signature="")
    def Applied(self, outcome):
        self.applied.append(json.loads(str(outcome)))


def main():
    DBusGMainLoop(set_as_default=True)
    runtime = os.path.join(HOME, "runtime")
    os.makedirs(runtime, mode=0o700, exist_ok=True)
    env = dict(os.environ, HOME=HOME, XDG_RUNTIME_DIR=runtime, XDG_CONFIG_HOME=os.path.join(HOME, "config"),
               XDG_DATA_HOME=os.path.join(HOME, "data"), QT_QPA_PLATFORM="wayland")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    env["DBUS_SESSION_BUS_ADDRESS"] = CHECK.private_bus(env)
    bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])

    display = CHECK.kwin(env)

    places = Places(bus, [
        {"rule": "framed", "desktop": 1, "x": 100, "y": 80, "width": 600, "height": 400,
         "maximized": False, "fullscreen": False, "minimized": False},
        {"rule": "maximized", "desktop": 0, "x": 500, "y": 300, "width": 640, "height": 360,
         "maximized": True, "fullscreen": False, "minimized": False},
    ])
    bus.request_name(NAME)
    scripting = bus.get_object("org.kde.KWin", "/Scripting")

    def run_script(name):
        CHECK.run_kwin_script(bus, SCRIPT, name)

    def unload(name):
        scripting.unloadScript(name, dbus_interface="org.kde.kwin.Scripting")

    run_script("restored-places-check")
    if not pump(20, lambda: places.reports):
        fail("the script reported no windows when it started")

    foot_config = os.path.join(HOME, "foot.ini")
    with open(foot_config, "w") as handle:
        handle.write("[main]\nresize-by-cells=no\n")
    app_env = dict(env, WAYLAND_DISPLAY=display)
    app_env.pop("QT_QPA_PLATFORM", None)
    for index in range(2):
        foot_log = os.path.join(HOME, f"foot{index}.log")
        foot = CHECK.start(["foot", "--config", foot_config, "sh", "-c", "sleep 600"], app_env, foot_log)
        if not pump(30, lambda: len(places.applied) > index):
            with open(foot_log, errors="replace") as handle:
                said = handle.read()[-2000:]
            unload("restored-places-check")
            places.reports.clear()
            run_script("restored-places-now")
            pump(10, lambda: places.reports)
            said += f"; the windows now: {places.reports}"
            fail(f"the script reported no place applied for window {index + 1} (claims: {places.claims}, applied: {places.applied}; "
                 f"foot {'ended' if foot.poll() is not None else 'runs'}, it said: {said})")
    applied = {outcome["rule"]: outcome for outcome in places.applied}
    framed, maximized = applied.get("framed"), applied.get("maximized")
    if not framed or (framed["x"], framed["y"], framed["width"], framed["height"]) != (100, 80, 600, 400):
        fail(f"Applied did not report the frame the window took: {framed}")
    if not maximized or maximized.get("maximized") is not True:
        fail(f"Applied did not report the window maximized: {maximized}")
    CHECK.say(f"Applied reports the frames taken: {framed['x']},{framed['y']} {framed['width']}x{framed['height']}, and a maximized window")
    unload("restored-places-check")

    # A save reads them back: a second run reports both.
    places.reports.clear()
    run_script("restored-places-read")
    if not pump(20, lambda: places.reports):
        fail("the second run reported no windows")
    windows = places.reports[-1]
    desktops = sorted(window["desktop"] for window in windows)
    frames = [(w["x"], w["y"], w["width"], w["height"]) for w in windows if not w["maximized"]]
    if desktops != [0, 1] or frames != [(100, 80, 600, 400)] or sum(1 for w in windows if w["maximized"]) != 1:
        fail(f"the windows were read back otherwise: {windows}")
    unload("restored-places-read")
    CHECK.say("read back: one window on desktop 2 at 100,80 600x400, one maximized")


if __name__ == "__main__":
    CHECK.run(main)

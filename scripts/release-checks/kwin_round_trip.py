#!/usr/bin/python3
"""KWin of a release, its windows saved and reopened by the installed package.

Runs inside a release's root where restored's package is installed
(scripts/test-releases), with that release's KWin on its virtual backend
and its foot, on private buses (a session bus, and a system bus with
python3-dbusmock's logind). The user has two foot windows, each a shell
in its directory: one at 100,80 600x400 on desktop 1, one at 500,300
640x360 on desktop 2 (placed by scripts of the check, as a user would).
The installed restored saves the session plugin's apps, the windows are
killed as at a session's end, and restored reopens them through the
package's KWin script: each window once, a shell in its directory, on its
desktop at its frame. Every process the check starts ends with it.
"""
import json
import os
import time

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop

from release_check import ReleaseCheck, end_terminals, pump, shells

CHECK = ReleaseCheck("kwin round trip", "restored.log", "restored")
HOME = CHECK.home
APP = "org.restored.Session"
NAME = "org.restored1.check.KWin"
fail = CHECK.fail

# Each normal window's process, desktop (from 0) and frame, reported to the check.
READ = """
const plasma6 = typeof workspace.windowList === 'function';
const all = (plasma6 ? workspace.windowList() : workspace.clientList()).filter(w => w.normalWindow);
const desktopOf = w => plasma6 ? (w.onAllDesktops || w.desktops.length === 0 ? -1 : workspace.desktops.indexOf(w.desktops[0]))
    : (w.onAllDesktops ? -1 : w.desktop - 1);
callDBus('org.restored1.check.KWin', '/check', 'org.restored1.check.KWin', 'Report', JSON.stringify(all.map(w => ({
    pid: w.pid, desktop: desktopOf(w),
    frame: [Math.round(w.frameGeometry.x), Math.round(w.frameGeometry.y), Math.round(w.frameGeometry.width), Math.round(w.frameGeometry.height)] }))));
"""


class Reader(dbus.service.Object):
    """Where the check's reading script reports."""

    def __init__(self, bus):
        super().__init__(bus, "/check")
        self.reports = []

    @dbus.service.method(NAME, in_signature="s", out_signature="")
    def Report(self, windows):
        self.reports.append(json.loads(str(windows)))


def foot_shells(directories):
    return shells("foot", directories)


def main():
    DBusGMainLoop(set_as_default=True)
    env = CHECK.session({"SHELL": "/bin/sh", "XDG_CURRENT_DESKTOP": "KDE"})
    bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
    display = CHECK.kwin(env)
    reader = Reader(bus)
    bus.request_name(NAME)
    scripts = [0]

    def run(source):
        scripts[0] += 1
        name = f"restored-round-trip-{scripts[0]}"
        path = os.path.join(HOME, f"{name}.js")
        with open(path, "w") as handle:
            handle.write(source)
        CHECK.run_kwin_script(bus, path, name)
        pump(0.3, lambda: False)
        bus.get_object("org.kde.KWin", "/Scripting").unloadScript(name, dbus_interface="org.kde.kwin.Scripting")

    def windows():
        """{pid: (desktop, frame)} of every normal window, as KWin says now."""
        reader.reports.clear()
        run(READ)
        if not pump(10, lambda: reader.reports):
            fail("the check's script reported no windows")
        return {w["pid"]: (w["desktop"], tuple(w["frame"])) for w in reader.reports[-1]}

    # foot takes the size it is given, not whole cells; the user's and
    # restored's windows read the same file.
    os.makedirs(os.path.join(env["XDG_CONFIG_HOME"], "foot"), exist_ok=True)
    with open(os.path.join(env["XDG_CONFIG_HOME"], "foot", "foot.ini"), "w") as handle:
        handle.write("[main]\nresize-by-cells=no\n")
    app_env = dict(env, WAYLAND_DISPLAY=display)
    app_env.pop("QT_QPA_PLATFORM", None)
    directories = [os.path.join(HOME, name) for name in ("first dir", "second $(dir)")]
    places = [(0, (100, 80, 600, 400)), (1, (500, 300, 640, 360))]
    foots = []
    for index, directory in enumerate(directories):
        os.makedirs(directory, exist_ok=True)
        foots.append(CHECK.start(["foot", "/bin/sh", "-c", 'cd "$0" && exec /bin/sh', directory], app_env,
                                 os.path.join(HOME, f"foot-{index}.log")))
    if not pump(30, lambda: all(process.pid in windows() for process in foots)):
        fail(f"the user's windows did not appear: {windows()}")
    # As a user would: each frame set where the window shows (a Wayland
    # window takes a frame when it draws), then the second window moved to
    # desktop 2 as it is.
    for step in ("frames", "desktops"):
        moves = [{"pid": process.pid, "desktop": place[0] if step == "desktops" else 0, "frame": place[1]}
                 for process, place in zip(foots, places)]

        def placed():
            now = windows()
            return all(now.get(move["pid"]) == (move["desktop"], move["frame"]) for move in moves)
        for _ in range(20):
            if placed():
                break
            run(f"""
const plasma6 = typeof workspace.windowList === 'function';
for (const move of {json.dumps(moves)}) {{
    for (const w of (plasma6 ? workspace.windowList() : workspace.clientList()).filter(w => w.pid === move.pid)) {{
        if ({json.dumps(step == "frames")})
            w.frameGeometry = {{ x: move.frame[0], y: move.frame[1], width: move.frame[2], height: move.frame[3] }};
        else if (plasma6) {{
            while (workspace.desktops.length <= move.desktop)
                workspace.createDesktop(workspace.desktops.length, '');
            w.desktops = [workspace.desktops[move.desktop]];
        }} else {{
            if (workspace.desktops <= move.desktop)
                workspace.desktops = move.desktop + 1;
            w.desktop = move.desktop + 1;
        }}
    }}
}}
""")
            time.sleep(0.5)
        if not placed():
            fail(f"the user's windows did not take their places ({step}): {windows()}")
    saved = sorted(windows().values())
    CHECK.say(f"the user's windows: {saved}")

    # The installed restored: saves, the windows end as at a session's end, it reopens them.
    daemon = CHECK.restored_with(APP, app_env)
    CHECK.restored_ctl(app_env, "save", APP)
    for process in foots:
        process.kill()
        process.wait(timeout=20)
    if not pump(20, lambda: not windows()):
        fail(f"the user's windows did not end: {windows()}")
    CHECK.restored_ctl(app_env, "restore", APP)
    try:
        if not pump(60, lambda: all(len(pairs) == 1 for pairs in foot_shells(directories).values())):
            fail(f"foot did not come back with one shell in each window's directory: {foot_shells(directories)}")
        if not pump(30, lambda: sorted(windows().values()) == saved):
            fail(f"the windows came back elsewhere: {sorted(windows().values())}, saved {saved}")
        time.sleep(1)
        again = foot_shells(directories)
        if any(len(pairs) != 1 for pairs in again.values()) or sorted(windows().values()) != saved:
            fail(f"the windows did not stay as they came back: {again}, {sorted(windows().values())}")
        CHECK.say(f"the windows came back once each, in their directories, on their desktops at their frames: {saved}")
    finally:
        end_terminals(foot_shells(directories))
    daemon.terminate()
    daemon.wait(timeout=60)


if __name__ == "__main__":
    CHECK.run(main)

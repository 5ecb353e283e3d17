"""What the release checks run in a root share (scripts/test-releases copies
it beside each check): the processes a check starts, each ended with it by
its process group, private buses, and one way to fail with the log of the
program under test."""
import os
import shutil
import signal
import subprocess
import sys
import time

# restored's GNOME Shell extension, as the checks reach it.
SHELL_BUS = "org.gnome.Shell"
PLACES_PATH = "/org/restored1/WindowPlaces"
PLACES = "org.restored1.WindowPlaces"
UUID = "window-places@restored"


class ReleaseCheck:
    """One check: its name (the prefix of its lines), its directory under
    the shared /tmp, and the log of the program it tests."""

    def __init__(self, name, log_name, program):
        self.name = name
        self.home = os.environ["CHECK_HOME"]
        self.log = os.path.join(self.home, log_name)
        self.program = program
        self.started = []

    def say(self, message):
        print(f"{self.name}: {message}", flush=True)

    def fail(self, message):
        print(f"{self.name}: {message}", file=sys.stderr)
        if os.path.exists(self.log):
            print(f"--- {self.program}'s log (its last lines):", file=sys.stderr)
            with open(self.log, errors="replace") as handle:
                sys.stderr.write("".join(handle.readlines()[-40:]))
        sys.exit(1)

    def start(self, arguments, env, log):
        """Starts `arguments` in a process group of its own, its output in `log`."""
        process = subprocess.Popen(arguments, env=env, stdout=open(log, "w"), stderr=subprocess.STDOUT, start_new_session=True)
        self.started.append((process.pid, process))
        return process

    def private_bus(self, env):
        """The address of a new session-type bus (dbus-daemon forks into a
        session of its own: ended by its pid like the rest)."""
        lines = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                               env=env, capture_output=True, text=True, check=True).stdout.split("\n")
        self.started.append((int(lines[1]), None))
        return lines[0]

    def run(self, main):
        """Runs `main`, then ends every process it started, whatever its end."""
        try:
            main()
        finally:
            self.end_all()

    def end_all(self):
        """Ends every process group started, last first: SIGTERM, then
        SIGKILL after five seconds."""
        def alive(pid, process):
            if process is not None:
                return process.poll() is None
            try:
                os.kill(pid, 0)
                return True
            except ProcessLookupError:
                return False

        for pid, _ in reversed(self.started):
            try:
                os.killpg(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        for pid, process in reversed(self.started):
            while alive(pid, process) and time.monotonic() < deadline:
                time.sleep(0.05)
            if alive(pid, process):
                try:
                    os.killpg(pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass

    def restored_ctl(self, env, *arguments):
        """What `restored-ctl ARGUMENTS` printed; the check fails when it does."""
        done = subprocess.run(["restored-ctl", *arguments], env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            self.fail(f"restored-ctl {' '.join(arguments)} failed: {done.stdout}{done.stderr}")
        return done.stdout

    def restored_with(self, app, env):
        """Starts the installed restored in `env` (no autosave) and waits
        until it owns its name and serves `app`; returns its process."""
        import dbus

        daemon = self.start(["restored", "--autosave-interval", "0", "--log-level", "info"], env, self.log)
        bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        if not eventually(30, lambda: answers(bus)):
            self.fail("restored did not answer")
        if not eventually(30, lambda: app in subprocess.run(["restored-ctl", "apps"], env=env, capture_output=True, text=True).stdout):
            self.fail(f"{app} is not among restored's apps: {self.restored_ctl(env, 'apps')}")
        return daemon

    def kwin(self, env):
        """Starts the release's KWin on its virtual backend (one 1280x800
        output; Qt's offscreen platform) on `env`'s session bus, and waits
        until it answers there. Returns its Wayland display's name."""
        import dbus

        # KWin's binary carries a file capability this machine will not run:
        # a copy without it, named kwin_wayland (its platform plugin checks).
        binary_dir = os.path.join(self.home, "bin")
        os.makedirs(binary_dir, exist_ok=True)
        binary = os.path.join(binary_dir, "kwin_wayland")
        shutil.copy("/usr/bin/kwin_wayland", binary)
        self.say(subprocess.run([binary, "--version"], env=env, capture_output=True, text=True).stdout.strip())
        display = f"wayland-kwin-check-{os.getpid()}"
        kwin = self.start([binary, "--virtual", "--width", "1280", "--height", "800", "--socket", display],
                          dict(env, QT_QPA_PLATFORM="offscreen"), os.path.join(self.home, "kwin.log"))
        bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        if not pump(60, lambda: bus.name_has_owner("org.kde.KWin")):
            self.fail(f"KWin did not answer on the session bus (it {'ended' if kwin.poll() is not None else 'runs'})")
        return display

    def run_kwin_script(self, bus, path, name):
        """Loads the KWin script at `path` as `name` and runs it."""
        import dbus

        scripting = bus.get_object("org.kde.KWin", "/Scripting")
        script_id = int(scripting.loadScript(path, name, dbus_interface="org.kde.kwin.Scripting", signature="ss"))
        # Plasma 6 puts a script's object at /Scripting/ScriptN, 5.27 at /N.
        for object_path in (f"/Scripting/Script{script_id}", f"/{script_id}"):
            try:
                bus.get_object("org.kde.KWin", object_path).run(dbus_interface="org.kde.kwin.Script")
                return
            except dbus.DBusException:
                continue
        self.fail(f"the KWin script {name} was loaded ({script_id}) but could not be run")

    def session(self, environment=None):
        """The environment of a Wayland session on private buses (a session
        bus, and a system bus with python3-dbusmock's logind): its HOME and
        XDG directories under the check's home, `environment` over them;
        DISPLAY and WAYLAND_DISPLAY not set."""
        env = dict(os.environ)
        runtime = os.path.join(self.home, "runtime")
        os.makedirs(runtime, mode=0o700, exist_ok=True)
        env.update({
            "HOME": self.home, "XDG_RUNTIME_DIR": runtime, "XDG_CONFIG_HOME": os.path.join(self.home, "config"),
            "XDG_DATA_HOME": os.path.join(self.home, "data"), "XDG_DATA_DIRS": f"{self.home}/share:/usr/local/share:/usr/share",
            "XDG_STATE_HOME": os.path.join(self.home, "state"), "XDG_SESSION_TYPE": "wayland",
        })
        env.update(environment or {})
        env.pop("DISPLAY", None)
        env.pop("WAYLAND_DISPLAY", None)
        env["DBUS_SYSTEM_BUS_ADDRESS"] = self.private_bus(env)
        self.start([sys.executable, "-m", "dbusmock", "--system", "--template", "logind"], env, os.path.join(self.home, "logind.log"))
        env["DBUS_SESSION_BUS_ADDRESS"] = self.private_bus(env)
        return env

    def gnome_shell(self, extension, environment=None):
        """Starts the release's GNOME Shell headless in a session (above)
        with `extension` enabled, and waits until it is active. Returns the
        environment of the session (`environment` over it; WAYLAND_DISPLAY
        not set), a connection to the session bus and the shell's Wayland
        display."""
        import dbus

        # Xwayland's sockets: GNOME Shell ends at its start without the directory.
        os.makedirs("/tmp/.X11-unix", mode=0o1777, exist_ok=True)
        os.chmod("/tmp/.X11-unix", 0o1777)
        env = self.session(dict({"GSETTINGS_BACKEND": "keyfile", "XDG_CURRENT_DESKTOP": "GNOME"}, **(environment or {})))
        for key, value in (("enabled-extensions", f"['{extension}']"), ("disable-user-extensions", "false")):
            subprocess.run(["gsettings", "set", "org.gnome.shell", key, value], env=env, check=True)
        bus = dbus.bus.BusConnection(env["DBUS_SESSION_BUS_ADDRESS"])
        display = f"wayland-release-check-{os.getpid()}"
        version = subprocess.run(["gnome-shell", "--version"], env=env, capture_output=True, text=True).stdout.strip()
        self.say(version)
        shell = self.start(["gnome-shell", "--headless", "--virtual-monitor", "1280x800", "--wayland-display", display],
                           env, os.path.join(self.home, "gnome-shell.log"))
        if not eventually(60, lambda: bus.name_has_owner("org.gnome.Shell")):
            self.fail(f"GNOME Shell did not answer on the session bus (it {'ended' if shell.poll() is not None else 'runs'})")
        # The extension loads: ACTIVE (45 and later, state 1).
        extensions = bus.get_object("org.gnome.Shell", "/org/gnome/Shell")
        info = lambda: extensions.GetExtensionInfo(extension, dbus_interface="org.gnome.Shell.Extensions")
        if not eventually(20, lambda: info().get("state") == 1):
            found = info()
            self.fail(f"{extension} is not active: state {found.get('state')}, error {found.get('error', '')!r}")
        self.say(f"{extension} is active")
        return env, bus, display


def processes(name):
    """The processes whose program is named `name`: [(pid, command line)]."""
    found = []
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                arguments = handle.read().split(b"\0")
        except OSError:
            continue
        if arguments and os.path.basename(arguments[0]) == name.encode():
            found.append((int(entry), b" ".join(arguments).decode(errors="replace").strip()))
    return found


def pump(seconds, done):
    """Runs GLib's main loop (a check's D-Bus objects answer in it) until
    done() or `seconds`; returns done()'s last value."""
    from gi.repository import GLib

    context = GLib.MainContext.default()
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        while context.pending():
            context.iteration(False)
        value = done()
        if value:
            return value
        time.sleep(0.02)
    return done()


def parent_of(pid):
    """The parent of process `pid` (its stat's fourth field)."""
    with open(f"/proc/{pid}/stat") as handle:
        return int(handle.read().rsplit(")", 1)[1].split()[1])


def shells(program, directories):
    """The children of the processes named `program` (a terminal's shells)
    by their directory: {directory: [(parent pid, pid), ...]} for each of
    `directories`."""
    parents = {pid for pid, _ in processes(program)}
    found = {directory: [] for directory in directories}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            parent = parent_of(int(entry))
            directory = os.readlink(f"/proc/{entry}/cwd")
        except (OSError, ValueError, IndexError):
            continue
        if parent in parents and directory in found:
            found[directory].append((parent, int(entry)))
    return found


def end_terminals(found):
    """Ends the terminals of `found` (as `shells` gives them) by pid: what
    restored launched is none of a check's processes."""
    for pairs in found.values():
        for terminal, _ in pairs:
            try:
                os.kill(terminal, signal.SIGKILL)
            except ProcessLookupError:
                pass


def eventually(seconds, what):
    """The first true value `what` returns within `seconds` (a D-Bus error
    counts as not yet), or None."""
    import dbus

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            value = what()
            if value:
                return value
        except dbus.DBusException:
            pass
        time.sleep(0.1)
    return None


def windows_of(places, app_id):
    """The windows restored's extension (`places`, its object) lists for
    desktop id `app_id`, each a dict of its fields, oldest first."""
    return sorted(({str(key): value for key, value in window.items()} for window in places.Windows(dbus_interface=PLACES)
                   if str(window["app-id"]) == app_id), key=lambda window: int(window["id"]))


def answers(bus):
    """Whether restored owns its name on `bus`: asked without a call to
    it, which would have the bus start a second one (the package's D-Bus
    service file, run by its Exec where no systemd does)."""
    return bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus").NameHasOwner(
        "org.restored1", dbus_interface="org.freedesktop.DBus")

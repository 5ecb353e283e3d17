"""What the release checks run in a root share (scripts/test-releases copies
it beside each check): the processes a check starts, each ended with it by
its process group, private buses, and one way to fail with the log of the
program under test."""
import os
import signal
import subprocess
import sys
import time


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

"""conf processes in network namespaces, and what watches them during a benchmark call.

Every time here is the benchmark's clock (time.perf_counter(), seconds).
"""
import json, os, signal, subprocess, threading, time

from netns_mesh import run


def environment(home):
    """No config file, server or name from the environment, no colour: only the flags count."""
    env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, "no-config"), NO_COLOR="1")
    for key in ("CONF_SERVER", "CONF_NAME", "CONF_CA", "CONF_AUDIO_SOURCE", "CONF_AUDIO_SINK"):
        env.pop(key, None)
    return env


class Process:
    """One conf command inside a namespace (`ip netns exec` execs it: the pid is conf's). JSON
    event lines are kept with the benchmark time of the process start plus their own `t`."""

    def __init__(self, namespace, command, env):
        self.started = time.perf_counter()
        self.proc = subprocess.Popen(["ip", "netns", "exec", namespace] + command, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL, text=True, env=env)
        self.events = []
        self.first_line = None
        self.cpu_seconds = None
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.changed:
                if self.first_line is None:
                    self.first_line = line.strip()
                try:
                    event = json.loads(line)
                except ValueError:
                    event = None
                if isinstance(event, dict) and "type" in event:
                    at = self.started + event["t"] if isinstance(event.get("t"), (int, float)) else time.perf_counter()
                    self.events.append((at, event))
                self.changed.notify_all()

    def wait_for(self, predicate, timeout):
        """Waits until predicate(self) holds; False on timeout or when the process has exited."""
        deadline = time.perf_counter() + timeout
        with self.changed:
            while not predicate(self):
                left = deadline - time.perf_counter()
                if left <= 0 or not self.alive():
                    return predicate(self)
                self.changed.wait(min(left, 0.2))
        return True

    def alive(self):
        """Whether the process still runs, without reaping it (stop() wants its resource usage)."""
        if self.proc.returncode is not None:
            return False
        try:
            return os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None
        except ChildProcessError:
            return False

    def terminate(self):
        if self.alive():
            self.proc.send_signal(signal.SIGTERM)

    def of(self, kind):
        return [(at, e) for at, e in self.events if e["type"] == kind]

    def stop(self, grace=10):
        """SIGTERM (conf leaves cleanly and closes its recordings), SIGKILL after `grace` seconds;
        keeps the CPU time the process used (user + system)."""
        self.terminate()
        deadline = time.perf_counter() + grace
        while self.proc.returncode is None:
            pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                self.proc.returncode = os.waitstatus_to_exitcode(status)
                self.cpu_seconds = usage.ru_utime + usage.ru_stime
            elif time.perf_counter() > deadline:
                self.proc.kill()
                deadline = float("inf")
            else:
                time.sleep(0.05)


class Sampler:
    """A thread calling `sample()` every `interval` seconds until stopped, keeping
    [(benchmark time, result)] of the results that are not None."""

    def __init__(self, interval, sample):
        self.samples = []
        self.interval, self.sample = interval, sample
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self):
        while not self.stopped.is_set():
            try:
                value = self.sample()
            except (OSError, RuntimeError, ValueError):
                value = None
            if value is not None:
                self.samples.append((time.perf_counter(), value))
            self.stopped.wait(self.interval)

    def stop(self):
        self.stopped.set()
        self.thread.join()


class FileBirths:
    """When each recording first appeared (benchmark time, to the 20 ms poll): conf creates a
    participant's IVF at its first video frame and its WAV at its first audio frame, so this is
    where time 0 of the recording sits on the benchmark's clock."""

    def __init__(self, directories):
        self.seen = {}

        def look():
            for directory in directories:
                for name in os.listdir(directory) if os.path.isdir(directory) else []:
                    self.seen.setdefault(os.path.join(directory, name), time.perf_counter())
        self.sampler = Sampler(0.02, look)

    def stop(self):
        self.sampler.stop()


def swift_busy():
    """Whether a Swift build or test run is going on (the figures would be partly its)."""
    return subprocess.run(["pgrep", "-f", r"swift-build|swift-frontend|swiftpm-testing-helper|\.xctest"],
                          stdout=subprocess.DEVNULL).returncode == 0


def load_average():
    return os.getloadavg()[0]


def kill_leftovers(processes):
    for p in processes:
        try:
            p.stop(grace=5)
        except (OSError, ChildProcessError):
            pass


__all__ = ["environment", "Process", "Sampler", "FileBirths", "swift_busy", "load_average", "kill_leftovers", "run"]

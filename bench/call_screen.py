#!/usr/bin/python3
"""What the call screen costs, and how fast its keys act (issue 12).

    bench/call_screen.py CONF [SECONDS] [PRESSES] [ROUNDS]

A quiet 4-party audio call on loopback (silence, no video): ann in a pseudo-terminal of 120x40
read through pyte (Tests/Screen/pty_screen.py), the other three scripted with --json. Measures
ann's CPU over SECONDS (default 30) with the screen and with --ui lines, as a share of one core,
in ROUNDS (default 3) alternating rounds; in the first, it presses `m` PRESSES times (default 20) and times each press to bob's
`peer-muted` event. Runs with Debian's python3 (python3-pyte).
"""
import json, os, queue, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_usage import start_room

HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Screen", "pty_screen.py")
ENV = dict(os.environ, CONF_AUDIO_SOURCE="silence", CONF_AUDIO_SINK="none", XDG_CONFIG_HOME="/nonexistent", DISPLAY="", WAYLAND_DISPLAY="")


class Terminal:
    """conf in the pty helper; requests answered one JSON line each."""
    def __init__(self, command):
        self.process = subprocess.Popen([sys.executable, HELPER, "120", "40"] + command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, env=ENV)

    def request(self, value):
        self.process.stdin.write(json.dumps(value) + "\n")
        self.process.stdin.flush()
        return json.loads(self.process.stdout.readline())

    def wait_for(self, condition, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            screen = self.request({"screen": True})
            if condition(screen["lines"]):
                return screen
        raise SystemExit("the screen never showed what was waited for:\n" + "\n".join(screen["lines"]))


class Peer:
    """A scripted participant; its JSON events with the monotonic time each was read."""
    def __init__(self, command):
        self.process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=ENV)
        self.events = queue.Queue()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.process.stdout:
            try:
                self.events.put((time.monotonic(), json.loads(line)))
            except ValueError:
                pass

    def next_event(self, kind, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            at, event = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            if event.get("type") == kind:
                return at, event


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(conf, ui, seconds, presses):
    server, address, room = start_room(conf, {"name": "bench"})
    join = [conf, "join", room["room"], room["pin"], "--server", address]
    peers = [Peer(join + ["--as", name, "--json"]) for name in ("bob", "cy", "dee")]
    ann = Terminal(join + ["--as", "ann", "--ui", ui])
    try:
        if ui == "screen":
            ann.wait_for(lambda lines: sum(1 for line in lines if "●" in line) >= 3)
        for peer in peers:
            while peer.next_event("peer-connected", timeout=30)[1].get("name") != "ann":
                pass
        pid = ann.request({"pid": True})["pid"]
        time.sleep(2)  # settled
        before_bytes = ann.request({"screen": True})["bytes"]
        start, start_cpu = time.monotonic(), cpu_seconds(pid)
        time.sleep(seconds)
        share = (cpu_seconds(pid) - start_cpu) / (time.monotonic() - start)
        written = (ann.request({"screen": True})["bytes"] - before_bytes) / seconds
        delays = []
        if ui == "screen":
            bob = peers[0]
            for _ in range(presses):
                while not bob.events.empty():
                    bob.events.get()
                pressed = time.monotonic()
                ann.request({"keys": "m"})
                at, _ = bob.next_event("peer-muted")
                delays.append((at - pressed) * 1000)
                time.sleep(0.3)
        return share, written, delays
    finally:
        ann.request({"keys": "\x03"})
        ann.request({"wait": 5})
        for peer in peers:
            peer.process.terminate()
        server.terminate()


def main():
    conf = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 30
    presses = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    # Rounds alternate, so that whatever else the machine does falls on both alike.
    screen, lines, delays = [], [], []
    for round in range(rounds):
        share, written, round_delays = run(conf, "screen", seconds, presses if round == 0 else 0)
        screen.append((share, written))
        delays += round_delays
        lines.append(run(conf, "lines", seconds, 0)[:2])
    print(f"quiet 4-party audio call, {rounds} rounds of {seconds:.0f} s each way, ann's process (median of the rounds):")
    for name, figures in (("--ui screen", screen), ("--ui lines ", lines)):
        shares = ", ".join(f"{share * 100:.2f}" for share, _ in figures)
        print(f"  {name}: {statistics.median(s for s, _ in figures) * 100:.2f} % of a core ({shares}), "
              f"{statistics.median(w for _, w in figures):.0f} bytes/s to the terminal")
    differences = [(a[0] - b[0]) * 100 for a, b in zip(screen, lines)]
    print(f"  the screen's share: median {statistics.median(differences):.2f} % of a core (per round: "
          + ", ".join(f"{d:.2f}" for d in differences) + ")")
    if delays:
        delays.sort()
        p95 = delays[min(len(delays) - 1, int(len(delays) * 0.95))]
        print(f"key m to bob's peer-muted, {len(delays)} presses: median {statistics.median(delays):.1f} ms, p95 {p95:.1f} ms, "
              f"max {delays[-1]:.1f} ms")


main()

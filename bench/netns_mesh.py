"""A small LAN in network namespaces for benchmarks, with bandwidth caps.

    PREFIX-hub  10.77.0.1  bridge br0: the rendezvous lives here; every participant hangs off it
    PREFIX-n1   10.77.0.11 eth0  <-veth->  PREFIX-h1 (a port of br0 in PREFIX-hub)
    PREFIX-n2   10.77.0.12 eth0  <-veth->  PREFIX-h2
    ...

Participants reach each other through the bridge, so each one's veth pair carries everything it
sends (its uplink: egress of eth0 in its namespace) and everything it receives (its downlink:
egress of PREFIX-hI in the hub, toward it). A cap is a token bucket filter on one of those
(`tc qdisc replace dev ... root tbf rate R burst B latency L`): netem is not available on this
machine, tbf is. The addresses exist only inside the namespaces.
"""
import json, statistics, subprocess, threading, time

SUBNET = "10.77.0"
HUB_ADDRESS = f"{SUBNET}.1"
UPLINK, DOWNLINK = "uplink", "downlink"


def run(*command, check=True):
    result = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if check and result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)}: {result.stderr.strip()}")
    return result.stdout


class Mesh:
    """Namespaces PREFIX-hub and PREFIX-n1..nN; `down()` removes every one that `up()` made (the
    veth pairs and qdiscs go with them), and is safe to call twice or after a half-done `up()`."""

    def __init__(self, prefix, participants):
        self.prefix = prefix
        self.participants = participants
        self.made = []
        self.caps = {}  # (participant, direction) -> kbit/s

    @property
    def hub(self):
        return f"{self.prefix}-hub"

    def namespace(self, i):
        return f"{self.prefix}-n{i}"

    @staticmethod
    def address(i):
        return f"{SUBNET}.{10 + i}"

    def up(self):
        self._add_namespace(self.hub)
        run("ip", "-n", self.hub, "link", "add", "br0", "type", "bridge")
        run("ip", "-n", self.hub, "addr", "add", f"{HUB_ADDRESS}/24", "dev", "br0")
        run("ip", "-n", self.hub, "link", "set", "br0", "up")
        for i in range(1, self.participants + 1):
            ns, port = self.namespace(i), f"{self.prefix}-h{i}"
            self._add_namespace(ns)
            run("ip", "link", "add", f"{self.prefix}-v{i}", "netns", ns, "type", "veth", "peer", "name", port, "netns", self.hub)
            run("ip", "-n", self.hub, "link", "set", port, "master", "br0", "up")
            run("ip", "-n", ns, "link", "set", f"{self.prefix}-v{i}", "name", "eth0")
            run("ip", "-n", ns, "addr", "add", f"{self.address(i)}/24", "dev", "eth0")
            run("ip", "-n", ns, "link", "set", "eth0", "up")

    def down(self):
        for ns in reversed(self.made):
            run("ip", "netns", "del", ns, check=False)
        self.made = []

    def _add_namespace(self, ns):
        run("ip", "netns", "del", ns, check=False)  # a leftover of an earlier run with this pid
        run("ip", "netns", "add", ns)
        self.made.append(ns)
        run("ip", "-n", ns, "link", "set", "lo", "up")

    def _device(self, i, direction):
        """Where a cap on participant i's `direction` sits: (namespace, device)."""
        return (self.namespace(i), "eth0") if direction == UPLINK else (self.hub, f"{self.prefix}-h{i}")

    def cap(self, i, direction, kbps, queue_ms):
        """Caps participant i's uplink or downlink at `kbps` kbit/s. The bucket holds 10 ms at
        that rate but at least two full-size frames (tbf needs one MTU); the queue in front of it
        holds `queue_ms` of traffic at that rate, then drops (tail drop, like most routers)."""
        ns, device = self._device(i, direction)
        burst = max(3028, kbps * 1000 // 8 // 100)
        run("ip", "netns", "exec", ns, "tc", "qdisc", "replace", "dev", device, "root", "tbf",
            "rate", f"{kbps}kbit", "burst", str(burst), "latency", f"{queue_ms}ms")
        self.caps[(i, direction)] = kbps

    def queue(self, i, direction):
        """The capped qdisc's counters now: bytes sent, packets dropped, bytes queued."""
        ns, device = self._device(i, direction)
        for qdisc in json.loads(run("ip", "netns", "exec", ns, "tc", "-s", "-j", "qdisc", "show", "dev", device) or "[]"):
            if qdisc.get("kind") == "tbf":
                return {"bytes": qdisc.get("bytes", 0), "drops": qdisc.get("drops", 0), "backlog": qdisc.get("backlog", 0)}
        return None

    def wire_bytes(self, i):
        """Participant i's eth0 counters from the kernel: (bytes sent, bytes received), Ethernet,
        IP and UDP headers included: everything its uplink and downlink carried."""
        link = json.loads(run("ip", "-n", self.namespace(i), "-s", "-j", "link", "show", "eth0"))[0]["stats64"]
        return link["tx"]["bytes"], link["rx"]["bytes"]

    def inside(self, namespace):
        """The command prefix that runs a program in `namespace`."""
        return ["ip", "netns", "exec", namespace]

    def start_rendezvous(self, conf):
        """A standing `conf rendezvous` in the hub on HUB_ADDRESS:7373, once it listens."""
        rendezvous = subprocess.Popen(self.inside(self.hub) + [conf, "rendezvous", "--listen", f"{HUB_ADDRESS}:7373", "--quiet", "--no-tls"],
                                      stdout=subprocess.PIPE, text=True)
        rendezvous.stdout.readline()
        return rendezvous

    def create_room(self, name):
        """A room made on that rendezvous (POST /v1/rooms): its room, pin and listen pin."""
        created = subprocess.run(self.inside(self.hub) + ["curl", "-s", "-X", "POST", "-H", "Content-Type: application/json", "-d", json.dumps({"name": name}),
                                                          f"http://{HUB_ADDRESS}:7373/v1/rooms"],
                                 capture_output=True, text=True, check=True).stdout
        return json.loads(created)


class BacklogSampler:
    """Reads a capped direction's queue every 100 ms on a thread of its own, as milliseconds of
    traffic at the cap's rate: (seconds since start, ms) in `samples`."""

    def __init__(self, mesh, participant, direction):
        self.mesh, self.participant, self.direction = mesh, participant, direction
        self.samples = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run)

    def start(self):
        self._thread.start()

    def stop(self):
        self._stop.set()
        self._thread.join()

    def _run(self):
        started = time.monotonic()
        kbps = self.mesh.caps[(self.participant, self.direction)]
        while not self._stop.wait(0.1):
            counters = self.mesh.queue(self.participant, self.direction)
            if counters:
                self.samples.append((time.monotonic() - started, counters["backlog"] * 8 / kbps))

    def summary(self, after=8):
        """The queue's delay from `after` seconds on: mean, 95th percentile and worst; None without samples."""
        steady = sorted(ms for t, ms in self.samples if t >= after)
        if not steady:
            return None
        return (f"capped queue from {after} s on ({len(steady)} samples): mean {statistics.mean(steady):.0f} ms, "
                f"95th percentile {steady[len(steady) * 95 // 100]:.0f} ms, worst {steady[-1]:.0f} ms")


#!/usr/bin/env python3
"""Across the internet: how long `conf host` takes to its `reachability` verdict, and a joiner's
join-to-`peer-connected`, through each topology of Tests/Network/home-routers.sh, beside the same
call on loopback. Root and network namespaces needed (as the tests).

  upnp        the host behind a miniupnpd router (PCP, NAT-PMP, UPnP-IGD), the joiner behind a
              plain NAT, running the printed join line: direct through the router's forward
  closed      the same router without miniupnpd: the verdict only (5 s by design: every way waited for)
  cgn         router 1 on a shared 100.64.0.0/10 address: the verdict only
  punched     no UPnP; a standing rendezvous on the "internet" (also the STUN server): hole-punched
  relayed     both routers symmetric (masquerade fully-random), coturn handed out by the rendezvous:
              the third set-up goes relay-only on both sides (after two 5 s stalls), so about 10 s
  relayonly   the same with --relay-only on both sides from the start
  loopback    conf host and conf join on 127.0.0.1

    bench/reachability.py CONF RUNS [TOPOLOGY ...]

Prints one line per run (seconds), then the median of each column.
"""
import json, os, statistics, subprocess, sys, threading, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROUTERS = os.path.join(HERE, "..", "Tests", "Network", "home-routers.sh")
PREFIX = f"bq{os.getpid() % 10000}"
ENV = dict(os.environ, CONF_AUDIO_SOURCE="silence", CONF_AUDIO_SINK="none", CONF_PORT_MAPPING="off",
           XDG_STATE_HOME=f"/tmp/conf-bench-state-{os.getpid()}")


class Conf:
    """A conf process whose JSON events are read as they come, each with the time since its start."""

    def __init__(self, args, namespace=None, env=None):
        command = (["ip", "netns", "exec", namespace] if namespace else []) + args
        self.start = time.perf_counter()
        self.proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env or ENV)
        self.events, self.lines, self.lock = [], [], threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            at = time.perf_counter() - self.start
            with self.lock:
                self.lines.append(line)
                self.lock.notify_all()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                self.events.append((at, event))
                self.lock.notify_all()

    def wait(self, kind, timeout=30):
        deadline = time.perf_counter() + timeout
        with self.lock:
            while True:
                for at, event in self.events:
                    if event.get("type") == kind:
                        return at, event
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(f"no {kind}: {self.events}")
                self.lock.wait(left)

    def wait_line(self, text, timeout=10):
        deadline = time.perf_counter() + timeout
        with self.lock:
            while not any(text in line for line in self.lines):
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(f"no line with {text!r}: {self.lines}")
                self.lock.wait(left)

    def stop(self, sig="TERM"):
        if self.proc.poll() is None:
            self.proc.send_signal(15 if sig == "TERM" else 9)
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


def routers(action, **env):
    subprocess.run(["bash", ROUTERS, action, PREFIX], check=True, env=dict(os.environ, **env), stdout=subprocess.DEVNULL)


def upnpd():
    proc = subprocess.Popen(["bash", ROUTERS, "upnpd", PREFIX])
    log = f"/run/{PREFIX}-routers/miniupnpd.log"
    for _ in range(500):
        if os.path.exists(log) and "Listening for NAT-PMP" in open(log).read():
            return proc
        time.sleep(0.02)
    raise RuntimeError("miniupnpd did not start")


def ns(name):
    return f"{PREFIX}-{name}"


def join_args(host):
    _, room = host.wait("room")
    return room["join_command"].split()[2:]


def embedded(conf, env_extra):
    host = Conf([conf, "host", "--as", "ann", "--json", "--no-video", "--connect-timeout", "60"], ns("h1"), dict(ENV, **env_extra))
    at, verdict = host.wait("reachability", 20)
    return host, at, verdict


def joiner(conf, args, namespace, extra=()):
    guest = Conf([conf, "join"] + args + ["--as", "bob", "--json", "--no-video"] + list(extra), namespace)
    at, connected = guest.wait("peer-connected", 30)
    return guest, at, connected


def run(conf, topology):
    """(verdict seconds or None, join-to-connected seconds or None, path)"""
    if topology == "loopback":
        host = Conf([conf, "host", "--listen", "127.0.0.1:0", "--as", "ann", "--json", "--no-video"])
        try:
            guest, at, connected = joiner(conf, join_args(host), None)
            guest.stop()
            return None, at, connected["path"]
        finally:
            host.stop()
    extra = {"WAN1": "100.64.0.2"} if topology == "cgn" else {"SYMMETRIC": "1"} if topology in ("relayed", "relayonly") else {}
    routers("up", **extra)
    helpers = []
    try:
        if topology in ("upnp", "cgn"):
            helpers.append(upnpd())
        if topology in ("upnp", "closed", "cgn"):
            host, verdict_at, verdict = embedded(conf, {"CONF_PORT_MAPPING": "on"})
            try:
                if topology != "upnp":
                    return verdict_at, None, verdict["verdict"]
                guest, at, connected = joiner(conf, join_args(host), ns("h2"))
                guest.stop()
                return verdict_at, at, connected["path"]
            finally:
                host.stop()
        turn, relay_only = [], []
        if topology in ("relayed", "relayonly"):
            helpers.append(subprocess.Popen(["ip", "netns", "exec", ns("inet"), "turnserver", "-n", "--listening-ip=11.0.0.1",
                                             "--listening-port=3478", "--relay-ip=11.0.0.1", "--user=conf:secret", "--realm=conf.test",
                                             "--lt-cred-mech", "--no-tls", "--no-dtls", "--no-cli", "--log-file=stdout", "--allow-loopback-peers"],
                                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            turn = ["--turn", "conf:secret@11.0.0.1:3478"]
            relay_only = ["--relay-only"] if topology == "relayonly" else []
        rendezvous = Conf([conf, "rendezvous", "--listen", "11.0.0.1:7373", "--quiet", "--no-tls"] + turn, ns("inet"))
        rendezvous.wait_line("listening on")
        host = Conf([conf, "host", "--server", "ws://11.0.0.1:7373", "--as", "ann", "--json", "--no-video", "--connect-timeout", "60"]
                    + relay_only, ns("h1"))
        try:
            guest, at, connected = joiner(conf, join_args(host), ns("h2"), relay_only)
            guest.stop()
            return None, at, connected["path"]
        finally:
            host.stop()
            rendezvous.stop()
    finally:
        for helper in helpers:
            helper.kill()
            helper.wait()
        routers("down")


def main():
    conf, runs = os.path.abspath(sys.argv[1]), int(sys.argv[2])
    topologies = sys.argv[3:] or ["upnp", "closed", "cgn", "punched", "relayed", "relayonly", "loopback"]
    print("topology  run  verdict_s  join_to_connected_s  path/verdict")
    results = {}
    for topology in topologies:
        for index in range(runs):
            verdict, connected, what = run(conf, topology)
            results.setdefault(topology, []).append((verdict, connected))
            show = lambda x: "-" if x is None else f"{x:.3f}"
            print(f"{topology:9} {index:3}  {show(verdict):>9}  {show(connected):>19}  {what}", flush=True)
    print("medians:")
    for topology, rows in results.items():
        verdicts = [v for v, _ in rows if v is not None]
        connects = [c for _, c in rows if c is not None]
        print(f"  {topology:9} verdict {statistics.median(verdicts):.3f} s" if verdicts else f"  {topology:9} verdict -", end="")
        print(f"   join-to-connected {statistics.median(connects):.3f} s" if connects else "   join-to-connected -")


if __name__ == "__main__":
    main()

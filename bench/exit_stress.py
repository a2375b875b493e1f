#!/usr/bin/env python3
"""Every early way out of `conf join`, run many times: the exit status must be the documented one.

A crash (SIGSEGV, SIGABRT) or a stray status on the way out is a race between the exit and work
still running on another thread (issue 36: libsrtp2's set-up, which loads NSS, on a background
thread while the main thread called exit(6)). Each case runs RUNS times, PARALLEL at a time:

  usage          conf join with a pin of two digits                           -> 2
  wrong-pin      a fresh room each run, a pin that is not its own             -> 3
  room-full      a room of four conf participants                             -> 4
  no-such-room   a room id the rendezvous never made                          -> 5
  unreachable    --server 127.0.0.1:9, where nothing listens                  -> 6
  duration       --duration 0.1 into a room with one participant, who stays,
                 both sending a test picture (240p)                           -> 0
  host-duration  conf host --duration 0.1 on its own rendezvous               -> 0
  video-call     --duration 1 into such a call: connected, the VP8 encoder's
                 queue and the decoder busy when the process exits           -> 0

With --pulse, every run uses the PulseAudio server of the environment (PULSE_SERVER) for its
microphone and speaker, so that PulseAudio's thread is running when the process exits; without,
runs send silence and play nothing.

With --port-mapping (only inside a network namespace of the caller's that reaches nothing real:
they send UPnP, NAT-PMP and PCP to the default route's gateway and SSDP to every interface), the
same with port mapping on, so that GUPnP-IGD's threads (libnice's, one per ICE agent, and conf
host's own) are running when the process exits:

  host-port-mapping  conf host --duration 0.1 --port-mapping on              -> 0
  join-port-mapping  duration's call with --port-mapping on                   -> 0

The rendezvous's per-address limits (10 failed joins a minute) would stop the wrong pins and
unknown rooms after ten; a small proxy in front of it gives every connection an address of its
own in X-Forwarded-For, and the rendezvous trusts it (--trusted-proxy 127.0.0.1).

  bench/exit_stress.py [--conf .build/debug/conf] [--runs 300] [--parallel 4] [--cases a,b] [--json] [--pulse] [--port-mapping]

Prints, per case, how many runs ended with each status. Exits 1 when any run ended otherwise than
documented. The test suite runs it small (ExitStressTests); BENCHMARKS.md has a large run's rates.
"""
import argparse
import json
import os
import queue
import random
import resource
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

EXPECTED = {"usage": 2, "wrong-pin": 3, "room-full": 4, "no-such-room": 5, "unreachable": 6,
            "duration": 0, "host-duration": 0, "video-call": 0, "host-port-mapping": 0, "join-port-mapping": 0}
PORT_MAPPING = {"host-port-mapping", "join-port-mapping"}


def no_core_files():
    """A crash is counted by its signal; its core file would land in the working directory."""
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


class AddressingProxy:
    """Relays TCP to `upstream`, adding `X-Forwarded-For: 10.X.Y.1` (a /24 of its own per
    connection) to the first request of each connection."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.count = 0
        self.lock = threading.Lock()
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(256)
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            client, _ = self.listener.accept()
            with self.lock:
                self.count += 1
                n = self.count
            threading.Thread(target=self.relay, args=(client, n), daemon=True).start()

    def relay(self, client, n):
        try:
            head = b""
            while b"\r\n\r\n" not in head:
                chunk = client.recv(4096)
                if not chunk:
                    client.close()
                    return
                head += chunk
            line, rest = head.split(b"\r\n", 1)
            forwarded = b"X-Forwarded-For: 10.%d.%d.1\r\n" % ((n >> 8) & 255, n & 255)
            server = socket.create_connection(("127.0.0.1", self.upstream))
            server.sendall(line + b"\r\n" + forwarded + rest)
        except OSError:
            client.close()
            return
        threading.Thread(target=self.pump, args=(server, client), daemon=True).start()
        self.pump(client, server)

    @staticmethod
    def pump(source, sink):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                sink.sendall(data)
        except OSError:
            pass
        for s in (source, sink):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class Bench:
    def __init__(self, conf, directory, pulse=False):
        self.conf = conf
        self.directory = directory
        self.pulse = pulse
        self.env = dict(os.environ, HOME=directory, XDG_CONFIG_HOME=directory + "/no-config", XDG_STATE_HOME=directory + "/state",
                        CONF_PORT_MAPPING="off", CONF_AUDIO_SOURCE="silence", CONF_AUDIO_SINK="none", NO_COLOR="1")
        for name in ("CONF_SERVER", "CONF_NAME", "DISPLAY", "WAYLAND_DISPLAY", "http_proxy", "https_proxy", "all_proxy"):
            self.env.pop(name, None)
        # What each run uses: PulseAudio's default devices with --pulse.
        self.run_env = {k: v for k, v in self.env.items() if not (pulse and k in ("CONF_AUDIO_SOURCE", "CONF_AUDIO_SINK"))}
        self.rendezvous = subprocess.Popen(
            [conf, "rendezvous", "--listen", "127.0.0.1:0", "--workers", "1", "--quiet", "--no-tls", "--rooms-per-minute", "1000000",
             "--max-rooms", "1000000", "--trusted-proxy", "127.0.0.1", "--state-dir", directory + "/rendezvous"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env, text=True)
        line = self.rendezvous.stdout.readline()
        if "listening on" not in line:
            raise SystemExit(f"exit_stress: the rendezvous did not start: {line!r}")
        self.proxy = AddressingProxy(int(line.rsplit(":", 1)[1]))
        self.server = f"ws://127.0.0.1:{self.proxy.port}"
        self.members = []

    def room(self):
        request = urllib.request.Request(f"http://{self.server[5:]}/v1/rooms", data=b'{"name":"stress","resolution":"240p"}', method="POST",
                                         headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            made = json.load(answer)
        return made["room"], made["pin"], made["listen_pin"]

    def member(self, room, pin, name):
        """A participant that stays in `room` until the bench ends."""
        video = ["--video-source", "pattern"] if name.startswith("staying") else ["--no-video"]
        process = subprocess.Popen([self.conf, "join", room, pin, "--server", self.server, "--as", name, "--json"] + video,
                                   stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=self.env, text=True)
        self.members.append(process)
        deadline = time.monotonic() + 15
        for line in process.stdout:
            if '"type":"joined"' in line.replace(" ", ""):
                threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
                return
            if time.monotonic() > deadline:
                break
        raise SystemExit(f"exit_stress: {name} did not join {room}")

    def arguments(self, case, state):
        if case == "usage":
            return ["join", "1234-5678", "12"]
        if case == "wrong-pin":
            room, pin, listen = self.room()
            wrong = next(p for p in (f"{(int(pin) + k) % 1_000_000:06d}" for k in range(1, 4)) if p != listen)
            return ["join", room, wrong, "--server", self.server, "--no-video"]
        if case == "room-full":
            room, pin = state["full"]
            return ["join", room, pin, "--server", self.server, "--no-video"]
        if case == "no-such-room":
            return ["join", "%04d-%04d" % (random.randrange(10_000), random.randrange(10_000)), "123456", "--server", self.server, "--no-video"]
        if case == "unreachable":
            return ["join", "1234-5678", "123456", "--server", "127.0.0.1:9", "--no-video"]
        if case in ("duration", "join-port-mapping", "video-call"):
            room, pin = state["calls"].get()  # a room no other run is in, given back when this one ends
            state["taken"].room = (room, pin)
            mapping = ["--port-mapping", "on"] if case == "join-port-mapping" else []
            duration = "1" if case == "video-call" else "0.1"
            return ["join", room, pin, "--server", self.server, "--duration", duration, "--video-source", "pattern"] + mapping
        if case == "host-duration":
            return ["host", "--listen", "127.0.0.1:0", "--no-tls", "--duration", "0.1", "--no-video"]
        if case == "host-port-mapping":
            return ["host", "--listen", "0.0.0.0:0", "--no-tls", "--duration", "0.1", "--no-video", "--port-mapping", "on"]
        raise ValueError(case)

    def run(self, case, state):
        try:
            arguments = self.arguments(case, state)
        except (OSError, ValueError) as error:
            return f"bench: {error}"
        try:
            done = subprocess.run([self.conf] + arguments, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.DEVNULL, env=self.run_env, timeout=30, cwd=self.directory, preexec_fn=no_core_files)
        except subprocess.TimeoutExpired:
            return "hung (30 s)"
        finally:
            taken = getattr(state["taken"], "room", None)
            if taken:
                state["calls"].put(taken)
                state["taken"].room = None
        code = done.returncode
        return f"signal {-code}" if code < 0 else code

    def close(self):
        for process in self.members + [self.rendezvous]:
            process.terminate()
        for process in self.members + [self.rendezvous]:
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conf", default=".build/debug/conf")
    parser.add_argument("--runs", type=int, default=300)
    parser.add_argument("--parallel", type=int, default=4)
    parser.add_argument("--cases", default="")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--pulse", action="store_true", help="runs use the PulseAudio server of the environment")
    parser.add_argument("--port-mapping", action="store_true", help="allow the port-mapping cases (in a namespace of your own only)")
    options = parser.parse_args()
    cases = options.cases.split(",") if options.cases else [case for case in EXPECTED if case not in PORT_MAPPING]
    for case in cases:
        if case not in EXPECTED:
            parser.error(f"unknown case {case!r}: one of {', '.join(EXPECTED)}")
        if case in PORT_MAPPING and not options.port_mapping:
            parser.error(f"{case} asks the network's router for mappings: run it with --port-mapping, in a network namespace of your own")
    with tempfile.TemporaryDirectory(prefix="conf-exit-stress-") as directory:
        if options.pulse and "PULSE_SERVER" not in os.environ:
            parser.error("--pulse needs PULSE_SERVER naming the PulseAudio server to use")
        bench = Bench(os.path.abspath(options.conf), directory, pulse=options.pulse)
        try:
            state = {"calls": queue.Queue(), "taken": threading.local()}
            if "room-full" in cases:
                room, pin, _ = bench.room()
                for k in range(4):
                    bench.member(room, pin, f"full{k}")
                state["full"] = (room, pin)
            if {"duration", "join-port-mapping", "video-call"} & set(cases):  # a room per parallel run, each with a participant who stays
                for k in range(options.parallel):
                    room, pin, _ = bench.room()
                    bench.member(room, pin, f"staying{k}")
                    state["calls"].put((room, pin))
            results = {}
            for case in cases:
                started = time.monotonic()
                with ThreadPoolExecutor(options.parallel) as pool:
                    outcomes = list(pool.map(lambda _: bench.run(case, state), range(options.runs)))
                tally = {}
                for outcome in outcomes:
                    tally[str(outcome)] = tally.get(str(outcome), 0) + 1
                results[case] = {"expected": EXPECTED[case], "runs": options.runs, "outcomes": tally,
                                 "seconds": round(time.monotonic() - started, 1)}
        finally:
            bench.close()
    bad = {case: r for case, r in results.items() if set(r["outcomes"]) != {str(r["expected"])}}
    if options.json:
        print(json.dumps(results))
    else:
        print(f"{'case':<14} {'expected':>8} {'runs':>6} {'seconds':>8}  outcomes")
        for case, r in results.items():
            outcomes = ", ".join(f"{k}: {v}" for k, v in sorted(r["outcomes"].items()))
            print(f"{case:<14} {r['expected']:>8} {r['runs']:>6} {r['seconds']:>8}  {outcomes}")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()

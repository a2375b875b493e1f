#!/usr/bin/env python3
"""Time for a newcomer to connect to everyone in a room, with its breakdown.

For each run: a release `conf rendezvous` room holds N-1 participants already connected to each
other; a new `conf join` starts; we time, from its start, the `joined` event (rendezvous join),
each `peer-connected` (with the link's own ICE/DTLS/RTT steps from setup_ms) and the first chat
message from each peer (their --say arrives once the SCTP data channel is open).

    bench/connect_time.py CONF_BINARY PARTICIPANTS RUNS [--json]

--json: the text goes to stderr and one JSON object of the medians (ms) to stdout (bench/run-all).
"""
import json, os, statistics, subprocess, sys, threading, time, urllib.request

# No sound devices: the call's set-up is what is measured.
ENV = dict(os.environ, CONF_AUDIO_SOURCE="silence", CONF_AUDIO_SINK="none")


class Participant:
    def __init__(self, conf, room, pin, server, name):
        self.start = time.perf_counter()
        self.proc = subprocess.Popen([conf, "join", room, pin, "--server", server, "--as", name, "--json",
                                      "--say", f"hi from {name}"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                                     env=ENV)
        self.events = []
        self.lock = threading.Condition()
        threading.Thread(target=self.read, daemon=True).start()

    def read(self):
        for line in self.proc.stdout:
            at = time.perf_counter()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            with self.lock:
                self.events.append((at - self.start, event))
                self.lock.notify_all()

    def wait(self, predicate, timeout=20):
        deadline = time.perf_counter() + timeout
        with self.lock:
            while not predicate(self.events):
                left = deadline - time.perf_counter()
                if left <= 0:
                    raise TimeoutError(self.events)
                self.lock.wait(left)

    def of(self, kind):
        return [(t, e) for t, e in self.events if e["type"] == kind]

    def stop(self):
        self.proc.terminate()
        self.proc.wait()


def main(conf, n, runs):
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet", "--no-tls"], stdout=subprocess.PIPE, text=True)
    address = "ws://" + server.stdout.readline().split()[-1]
    rows = []
    try:
        for run in range(runs):
            request = urllib.request.Request(f"http://{address[5:]}/v1/rooms", headers={"Content-Type": "application/json"}, data=json.dumps({"name": f"bench {run}"}).encode(), method="POST")
            room = json.load(urllib.request.urlopen(request))
            present = []
            for i in range(n - 1):
                present.append(Participant(conf, room["room"], room["pin"], address, f"p{i}"))
            for p in present:
                p.wait(lambda ev: len([e for _, e in ev if e["type"] == "peer-connected"]) == n - 2)
            newcomer = Participant(conf, room["room"], room["pin"], address, "new")
            newcomer.wait(lambda ev: len([e for _, e in ev if e["type"] == "peer-connected"]) == n - 1
                          and len([e for _, e in ev if e["type"] == "chat"]) == n - 1)
            joined = newcomer.of("joined")[0][0] * 1000
            connected = [t * 1000 for t, _ in newcomer.of("peer-connected")]
            setups = [e["setup_ms"] for _, e in newcomer.of("peer-connected")]
            chats = [t * 1000 for t, _ in newcomer.of("chat")]
            rows.append({"joined": joined, "all_connected": max(connected), "all_chat": max(chats),
                         "ice": max(s["ice"] for s in setups), "dtls": max(s["dtls"] for s in setups),
                         "rtt_probe": max(s["connected"] - s["dtls"] for s in setups)})
            for p in present + [newcomer]:
                p.stop()
    finally:
        server.terminate()
    median = {k: statistics.median(r[k] for r in rows) for k in rows[0]}
    print(f"{n} participants, {runs} runs (median, ms from the newcomer's process start):")
    print(f"  rendezvous joined         {median['joined']:.1f}")
    print(f"  all {n - 1} links connected     {median['all_connected']:.1f}   "
          f"(after joined: {median['all_connected'] - median['joined']:.1f})")
    print(f"    per link, from its offer: ICE ready {median['ice']:.1f}, DTLS done {median['dtls']:.1f}, "
          f"+RTCP round trip {median['rtt_probe']:.1f}")
    print(f"  chat from all {n - 1} (SCTP up) {median['all_chat']:.1f}")
    return median


if __name__ == "__main__":
    as_json = "--json" in sys.argv
    arguments = [a for a in sys.argv[1:] if a != "--json"]
    if as_json:
        sys.stdout = sys.stderr
    median = main(arguments[0], int(arguments[1]), int(arguments[2]))
    if as_json:
        print(json.dumps({"participants": int(arguments[1]), "runs": int(arguments[2]), "median_ms": median}), file=sys.__stdout__)

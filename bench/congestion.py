#!/usr/bin/env python3
"""conf calls over capped links in network namespaces (issue 10, "Real networks: congestion control").

A hub namespace holds a bridge and a release `conf rendezvous` (10.77.0.1:7373); each participant
n1..nN has its own namespace on a veth pair to the bridge (bench/netns_mesh.py) and runs `conf host`
(n1) or `conf join` with a moving test pattern, a 440 Hz tone, --stats and --record. A tc tbf caps
one participant's uplink or downlink. The measured window starts once every link is connected and
lasts --seconds; then everyone leaves (SIGTERM) and each receiver's recordings are read.

    bench/congestion.py CONF_BINARY baseline|uplink-cap|downlink-cap|step|all [--seconds S] [options]

  baseline      4 participants, no cap: what the machine and conf do on their own
  uplink-cap    4 participants, n1's uplink capped at 1 Mbit/s
  downlink-cap  4 participants, n1's downlink capped at 300 kbit/s
  step          2 participants, n1's uplink at 2 Mbit/s, 500 kbit/s for the middle third, 2 Mbit/s again

Needs root (ip netns, tc). Run it on a quiet machine: it warns when a Swift build is running.
Every namespace it makes (prefix ccbPID-) is removed at the end, on failure and on Ctrl-C too.
"""
import argparse, json, os, shutil, signal, sys, tempfile, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import conf_call, congestion_report  # noqa: E402
from netns_mesh import Mesh, HUB_ADDRESS, UPLINK, DOWNLINK  # noqa: E402

PORT = 7373
SCENARIOS = {
    # name: (participants, [(participant, direction, kbit/s)], [(fraction of the window, kbit/s)])
    "baseline": (4, [], []),
    "uplink-cap": (4, [(1, UPLINK, 1000)], []),
    "downlink-cap": (4, [(1, DOWNLINK, 300)], []),
    "step": (2, [(1, UPLINK, 2000)], [(1 / 3, 500), (2 / 3, 2000)]),
}


def call_flags(args, name, directory):
    flags = ["--server", f"ws://{HUB_ADDRESS}:{PORT}", "--as", name, "--json", "--stats", "--video-source", args.video_source,
             "--audio-source", "tone:440", "--audio-sink", "none", "--record", directory,
             # A safety net only: the benchmark ends the call with SIGTERM long before this.
             "--duration", str(int(args.seconds + 120))]
    return flags + ["--video-bitrate", str(args.video_bitrate)] if args.video_bitrate else flags


def connected_to_all(n):
    return lambda p: len({e.get("peer") for _, e in p.of("peer-connected")}) >= n - 1


def run_scenario(conf, scenario, args):
    count, caps, steps = SCENARIOS[scenario]
    if scenario not in ("step",) and args.participants:
        count = args.participants
    if args.cap:  # the first cap's rate, and in `step` the rate it returns to
        caps = [(i, d, args.cap) for i, d, _ in caps]
        steps = [(f, args.cap if k == SCENARIOS[scenario][1][0][2] else k) for f, k in steps]
    if args.low:
        steps = [(f, args.low if k < caps[0][2] else k) for f, k in steps]
    work = tempfile.mkdtemp(prefix=f"conf-cc-{scenario}-")
    env = conf_call.environment(work)
    mesh = Mesh(f"ccb{os.getpid() % 100000}", count)
    processes, samplers, births = [], [], None
    try:
        mesh.up()
        for i, direction, kbps in caps:
            mesh.cap(i, direction, kbps, args.queue_ms)
        records = {i: os.path.join(work, f"rec-n{i}") for i in range(1, count + 1)}
        births = conf_call.FileBirths(list(records.values()))
        server = conf_call.Process(mesh.hub, [conf, "rendezvous", "--listen", f"{HUB_ADDRESS}:{PORT}", "--quiet", "--no-tls"], env)
        processes.append(server)
        if not server.wait_for(lambda p: p.first_line is not None, 10):
            raise RuntimeError("the rendezvous did not start")
        host = conf_call.Process(mesh.namespace(1), [conf, "host", "--name", "congestion", "--resolution", args.resolution]
                                 + call_flags(args, "n1", records[1]), env)
        participants = {1: host}
        processes.append(host)
        if not host.wait_for(lambda p: p.of("room"), 15):
            raise RuntimeError(f"conf host made no room: {host.events}")
        room = host.of("room")[0][1]
        for i in range(2, count + 1):
            participants[i] = conf_call.Process(mesh.namespace(i), [conf, "join", room["room"], room["pin"]]
                                                + call_flags(args, f"n{i}", records[i]), env)
            processes.append(participants[i])
        unconnected = [f"n{i}" for i, p in participants.items() if not p.wait_for(connected_to_all(count), 45)]
        start = time.perf_counter()
        wire = conf_call.Sampler(1, lambda: {i: mesh.wire_bytes(i) for i in participants})
        samplers.append((None, wire))
        for i, direction, _ in caps:
            samplers.append(((i, direction), conf_call.Sampler(0.1, lambda i=i, d=direction: mesh.queue(i, d))))
        changes = [(start, caps[0][2])] if caps else []
        for fraction, kbps in steps:
            time.sleep(max(0, start + fraction * args.seconds - time.perf_counter()))
            i, direction, _ = caps[0]
            mesh.cap(i, direction, kbps, args.queue_ms)
            changes.append((time.perf_counter(), kbps))
        time.sleep(max(0, start + args.seconds - time.perf_counter()))
        end = time.perf_counter()
        for p in participants.values():
            p.terminate()
        for p in participants.values():
            p.stop()
        for _, sampler in samplers:
            sampler.stop()
        births.stop()
        for i, p in participants.items():  # kept with the recordings under --keep
            with open(os.path.join(work, f"events-n{i}.jsonl"), "w") as f:
                f.writelines(json.dumps(e) + "\n" for _, e in p.events)
        samplers = [(k, sampler) for k, sampler in samplers if k is not None]
        call = congestion_report.Call(scenario=scenario, participants=participants, records=records, births=births.seen,
                                      caps=caps, changes=changes, queues={k: s.samples for k, s in samplers},
                                      start=start, end=end, settle=args.settle, unconnected=unconnected)
        result = congestion_report.analyse(call)
        result["wire"] = wire_rates(wire.samples, start + args.settle)
        return result
    finally:
        for _, sampler in samplers:
            sampler.stopped.set()
        if births:
            births.stop()
        conf_call.kill_leftovers(processes)
        mesh.down()
        if args.keep:
            print(f"recordings kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def wire_rates(samples, after):
    """Each participant's uplink and downlink in kbit/s from its eth0 counters (sampled every
    second), from the first sample at or after `after` (the settle) to the last: {"n1": {...}}."""
    steady = [(t, counters) for t, counters in samples if t >= after]
    if len(steady) < 2:
        return {}
    (t0, first), (t1, last) = steady[0], steady[-1]
    return {f"n{i}": {"up_kbps": (last[i][0] - first[i][0]) * 8 / (t1 - t0) / 1000,
                      "down_kbps": (last[i][1] - first[i][1]) * 8 / (t1 - t0) / 1000, "seconds": t1 - t0} for i in first}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("conf", help="the conf binary, usually .build/release/conf")
    parser.add_argument("scenario", choices=list(SCENARIOS) + ["all"])
    parser.add_argument("--seconds", type=float, default=30, help="the measured window, from all links connected (default 30)")
    parser.add_argument("--settle", type=float, default=5, help="seconds allowed to converge: freezes and gaps count after this (default 5, the aim)")
    parser.add_argument("--queue-ms", type=int, default=200, help="tbf latency: the queue in front of a cap, in ms at its rate (default 200)")
    parser.add_argument("--resolution", default="480p", help="the room's video size (default 480p, conf's default)")
    parser.add_argument("--video-bitrate", type=int, help="pass --video-bitrate KBPS to every participant")
    parser.add_argument("--video-source", default="pattern:noisy",
                        help="what each participant sends (default pattern:noisy, which fills the video bitrate; plain pattern takes a tenth of it)")
    parser.add_argument("--participants", type=int, help="participants in uplink-cap and downlink-cap (default 4)")
    parser.add_argument("--cap", type=int, help="the cap's rate in kbit/s instead of the scenario's (step: the high rate)")
    parser.add_argument("--low", type=int, help="step only: the low rate in kbit/s instead of 500")
    parser.add_argument("--keep", action="store_true", help="keep the recordings and print where")
    parser.add_argument("--json-out", help="also write every figure to this JSON file")
    args = parser.parse_args()
    if os.geteuid() != 0:
        sys.exit("needs root: ip netns and tc")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` removes the namespaces
    conf = os.path.abspath(args.conf)
    results = []
    for scenario in SCENARIOS if args.scenario == "all" else [args.scenario]:
        busy, load = conf_call.swift_busy(), conf_call.load_average()
        result = run_scenario(conf, scenario, args)
        busy = busy or conf_call.swift_busy()
        result["machine"] = {"load_average_before": load, "swift_build_running": busy, "cores": os.cpu_count()}
        congestion_report.print_table(result)
        results.append(result)
    if args.json_out:
        with open(args.json_out, "w") as f:
            json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()

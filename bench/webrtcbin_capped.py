#!/usr/bin/env python3
"""conf and a browser-grade peer (GStreamer's webrtcbin, Tests/Interop/webrtcbin_video_peer.py) in one
call over a capped link, in network namespaces (bench/netns_mesh.py): n1 runs `conf join` with the
noisy pattern and a tone, n2 the webrtcbin peer sending noise at 600 kbit/s of VP8; both offer
transport-wide congestion control. One uplink is capped with tc tbf (500 ms of queue):

    bench/webrtcbin_capped.py CONF_BINARY conf-up|webrtcbin-up [--kbps 300] [--seconds 20]

conf-up: what conf sends to webrtcbin is capped; conf's estimate comes from webrtcbin's transport
feedback. webrtcbin-up: what webrtcbin sends is capped (it cannot adapt: Debian's GStreamer has no
rtpgccbwe). Prints conf's link-stats and audio-stats lines, what webrtcbin received each second,
the tbf's counters, and the capped queue's delay (its backlog read every 100 ms, divided by the
rate) from 8 s on: mean, 95th percentile, worst. Needs root; every namespace it makes is removed at the end.
"""
import argparse, json, os, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_mesh import BacklogSampler, Mesh, HUB_ADDRESS, UPLINK  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("conf")
    parser.add_argument("scenario", choices=["conf-up", "webrtcbin-up"])
    parser.add_argument("--kbps", type=int, default=300)
    parser.add_argument("--seconds", type=float, default=20)
    args = parser.parse_args()
    conf = os.path.abspath(args.conf)
    capped = 1 if args.scenario == "conf-up" else 2
    mesh = Mesh(f"wbc{os.getpid() % 10_000}", 2)
    processes = []

    inside = mesh.inside
    try:
        mesh.up()
        processes.append(mesh.start_rendezvous(conf))
        room = mesh.create_room("capped")
        mesh.cap(capped, UPLINK, args.kbps, 500)
        call = subprocess.Popen(inside(mesh.namespace(1)) + [
            conf, "join", room["room"], room["pin"], "--server", f"ws://{HUB_ADDRESS}:7373", "--as", "conf", "--json", "--stats",
            "--video-source", "pattern:noisy", "--audio-source", "tone:440", "--audio-sink", "none", "--duration", str(int(args.seconds + 30))],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(call)
        # conf is in the room first: webrtcbin is the newcomer and offers.
        early = []
        for line in call.stdout:
            early.append(line)
            if json.loads(line)["type"] == "joined":
                break
        peer = subprocess.Popen(inside(mesh.namespace(2)) + [
            "/usr/bin/python3", os.path.join(HERE, "..", "Tests", "Interop", "webrtcbin_video_peer.py"), f"{HUB_ADDRESS}:7373", room["room"], room["pin"],
            str(args.seconds), "600"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(peer)
        sampler = BacklogSampler(mesh, capped, UPLINK)
        sampler.start()
        received = [json.loads(line) for line in peer.stdout.read().splitlines() if line.startswith("{")]
        sampler.stop()
        queue = mesh.queue(capped, UPLINK)
        call.terminate()
        print(f"{args.scenario}, {args.kbps} kbit/s, {args.seconds:.0f} s")
        for line in early + call.stdout.read().splitlines():
            event = json.loads(line)
            if event["type"] == "link-stats" and event["links"]:
                link = event["links"][0]
                print(f"  t {event['t']:5.1f}  conf -> webrtcbin: estimate {link['estimate_kbps']:6.1f}, sent {link['sent_kbps']:6.1f} kbit/s, "
                      f"loss {link['loss_percent']} %, queue {link['queue_delay_ms']} ms, layers {link['video_layers']}")
            elif event["type"] == "audio-stats" and event["peers"]:
                audio = event["peers"][0]
                print(f"  t {event['t']:5.1f}  webrtcbin -> conf audio: {audio['kbps']} kbit/s, loss {audio['loss_percent']} %, jitter {audio['jitter_ms']} ms")
            elif event["type"] in ("peer-connected", "video-paused", "video-resumed", "peer-disconnected"):
                print(f"  t {event['t']:5.1f}  {event['type']} {event.get('reason', '')}")
        print("  webrtcbin received, kbit/s each second:", [round(r["bytes"] * 8 / 1000) for r in received])
        print(f"  tbf: {queue}")
        summary = sampler.summary()
        if summary:
            print(f"  {summary}")
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
        mesh.down()


if __name__ == "__main__":
    main()

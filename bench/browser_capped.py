#!/usr/bin/env python3
"""Congestion control between conf and a browser on the call page, over a capped link (issue 37),
in network namespaces (bench/netns_mesh.py): n1 runs `conf join` (noisy pattern, a tone, --stats),
n2 headless Chromium opening the call page from the rendezvous in the hub (its fake camera and
microphone). One direction is capped with tc tbf (500 ms of queue):

    bench/browser_capped.py CONF_BINARY conf-up|browser-up [--kbps 500] [--seconds 30] [--peer browser|conf]

conf-up: what conf sends to the browser is capped; conf's estimate comes from Chromium's
transport feedback. browser-up: what Chromium sends is capped; Chromium's own estimator reads
conf's transport feedback. `--peer conf` puts a second `conf join` in Chromium's place, for the
same call between two confs. Prints conf's link-stats, the tbf's counters (with the average rate
through it), and the capped queue's delay (its backlog read every 100 ms, divided by the rate)
from 8 s on: mean, 95th percentile, worst. Needs root; every
namespace it makes is removed at the end.
"""
import argparse, json, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from netns_mesh import BacklogSampler, Mesh, HUB_ADDRESS, UPLINK  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("conf")
    parser.add_argument("scenario", choices=["conf-up", "browser-up"])
    parser.add_argument("--kbps", type=int, default=500)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--peer", choices=["browser", "conf"], default="browser")
    args = parser.parse_args()
    conf = os.path.abspath(args.conf)
    capped = 1 if args.scenario == "conf-up" else 2
    mesh = Mesh(f"brc{os.getpid() % 10_000}", 2)
    processes = []
    profile = f"/tmp/conf-bench-capped-{os.getpid()}"
    origin = f"http://{HUB_ADDRESS}:7373"
    inside = mesh.inside
    try:
        mesh.up()
        processes.append(mesh.start_rendezvous(conf))
        room = mesh.create_room("capped")
        mesh.cap(capped, UPLINK, args.kbps, 500)
        media = ["--video-source", "pattern:noisy", "--audio-source", "tone:440", "--audio-sink", "none", "--video-view", "none"]
        call = subprocess.Popen(inside(mesh.namespace(1)) + [
            conf, "join", room["room"], room["pin"], "--server", f"ws://{HUB_ADDRESS}:7373", "--as", "conf", "--json", "--stats",
            "--duration", str(int(args.seconds + 30))] + media, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        processes.append(call)
        early = []
        for line in call.stdout:
            early.append(line)
            if json.loads(line)["type"] == "joined":
                break
        if args.peer == "browser":
            # Plain http on an address of the namespaces: Chromium is told to treat it as a secure
            # origin, as it treats localhost, so that the page gets the fake camera.
            url = f"{origin}/#room={room['room']}&pin={room['pin']}&name=web&join=1"
            peer = subprocess.Popen(inside(mesh.namespace(2)) + [
                "chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--use-fake-device-for-media-stream",
                "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                f"--unsafely-treat-insecure-origin-as-secure={origin}", f"--user-data-dir={profile}", url],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        else:
            peer = subprocess.Popen(inside(mesh.namespace(2)) + [
                conf, "join", room["room"], room["pin"], "--server", f"ws://{HUB_ADDRESS}:7373", "--as", "web",
                "--duration", str(int(args.seconds + 30))] + media, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        processes.append(peer)
        sampler = BacklogSampler(mesh, capped, UPLINK)
        sampler.start()
        time.sleep(args.seconds)  # the call's length: what is measured is whatever happens in it
        sampler.stop()
        queue = mesh.queue(capped, UPLINK)
        call.terminate()
        print(f"{args.scenario}, peer {args.peer}, {args.kbps} kbit/s, {args.seconds:.0f} s")
        for line in early + call.stdout.read().splitlines():
            event = json.loads(line)
            if event["type"] == "link-stats" and event["links"]:
                link = event["links"][0]
                print(f"  t {event['t']:5.1f}  conf -> {args.peer}: estimate {link['estimate_kbps']:6.1f}, sent {link['sent_kbps']:6.1f} kbit/s, "
                      f"loss {link['loss_percent']} %, queue {link['queue_delay_ms']} ms, layers {link['video_layers']}, {link['video_encoding']}")
            elif event["type"] in ("peer-connected", "video-paused", "video-resumed", "peer-disconnected"):
                print(f"  t {event['t']:5.1f}  {event['type']} {event.get('reason', '')}")
        print(f"  tbf: {queue}, {queue['bytes'] * 8 / 1000 / args.seconds:.0f} kbit/s through it on average" if queue else "  tbf: none")
        print(f"  {sampler.summary() or 'capped queue: no samples'}")
    finally:
        if args.peer == "browser" and len(processes) == 3:
            try:
                os.killpg(processes[-1].pid, 9)  # Chromium and its renderer and helpers, in its session
            except OSError:
                pass
        for process in processes:
            if process.poll() is None:
                process.kill()
        mesh.down()
        subprocess.run(["rm", "-rf", profile])


if __name__ == "__main__":
    main()

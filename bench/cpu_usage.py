"""What the benchmarks of a call share (audio_cpu.py, video_cpu.py, video_quality.py): a rendezvous
with one room, the CPU time and peak memory of processes as they end, a Y4M clip."""
import json, os, subprocess, urllib.request


def zone_plate_clip(width, height, seconds):
    """SECONDS of GStreamer's moving zone plate at 30 fps, as a Y4M file in /tmp (made once)."""
    clip = f"/tmp/conf-bench-{width}x{height}-{seconds}s.y4m"
    if not os.path.exists(clip):
        subprocess.run(["gst-launch-1.0", "-q", "videotestsrc", "pattern=zone-plate", "kx2=20", "ky2=20", "kt=1", f"num-buffers={30 * seconds}",
                        "!", f"video/x-raw,format=I420,width={width},height={height},framerate=30/1", "!", "y4menc", "!", "filesink",
                        f"location={clip}"], check=True)
    return clip


def start_room(conf, room):
    """A `conf rendezvous` on a loopback port and a room made on it from the `room` fields;
    returns (the rendezvous process, its address, the room's JSON)."""
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet", "--no-tls"], stdout=subprocess.PIPE, text=True)
    address = "ws://" + server.stdout.readline().split()[-1]
    request = urllib.request.Request(f"http://{address[5:]}/v1/rooms", headers={"Content-Type": "application/json"}, data=json.dumps(room).encode(), method="POST")
    return server, address, json.load(urllib.request.urlopen(request))


def beside_gstreamer(participants, encode, decoder):
    """Starts, beside the conf `participants`, one GStreamer pipeline each doing the same codec
    work: `encode` (a source and an encoder) into a tee, and a `decoder` branch for each other
    participant; waits for them all. Returns (conf's figures, GStreamer's) as `measure` gives them."""
    n = len(participants)
    decoders = " ".join(f"t. ! queue ! {decoder} ! fakesink sync=false" for _ in range(n - 1))
    pipeline = f"{encode} ! tee name=t t. ! queue ! fakesink sync=false {decoders}"
    gstreamers = [subprocess.Popen(["gst-launch-1.0", "-q"] + pipeline.split(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                  for _ in range(n)]
    figures = measure(participants + gstreamers)  # both sets run at the same time, on the same cores
    return figures[:n], figures[n:]


def measure(popens):
    """Waits for every process; returns [(cpu seconds, peak RSS MiB)] in their order."""
    results = {}
    while len(results) < len(popens):
        pid, _, usage = os.wait4(-1, 0)
        results[pid] = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    return [results[p.pid] for p in popens]

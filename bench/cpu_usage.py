"""What the CPU benchmarks share (audio_cpu.py, video_cpu.py): a rendezvous with one room, and the
CPU time and peak memory of processes as they end."""
import json, os, subprocess, urllib.request


def start_room(conf, room):
    """A `conf rendezvous` on a loopback port and a room made on it from the `room` fields;
    returns (the rendezvous process, its address, the room's JSON)."""
    server = subprocess.Popen([conf, "rendezvous", "--listen", "127.0.0.1:0", "--quiet"], stdout=subprocess.PIPE, text=True)
    address = server.stdout.readline().split()[-1]
    request = urllib.request.Request(f"http://{address}/v1/rooms", data=json.dumps(room).encode(), method="POST")
    return server, address, json.load(urllib.request.urlopen(request))


def measure(popens):
    """Waits for every process; returns [(cpu seconds, peak RSS MiB)] in their order."""
    results = {}
    while len(results) < len(popens):
        pid, _, usage = os.wait4(-1, 0)
        results[pid] = (usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    return [results[p.pid] for p in popens]

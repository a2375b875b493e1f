#!/usr/bin/env python3
"""Glass-to-glass video delay: from the moment a picture is made at the sender to the moment it is
on the receiver's screen, through everything conf does in between (encode, packetise, pace, SRTP,
loopback, frame assembly, decode, the window's redraw, the X server).

    bench/glass_to_glass.py CONF_BINARY [SAMPLES] [RESOLUTION] [--json]     RESOLUTION: 240p, 480p (default) or 720p

The sender sends `--video-source pattern:clock` (each picture carries CLOCK_MONOTONIC's
milliseconds, drawn as 24 black and white cells); the receiver shows it in its window
(`--video-view window`) on a virtual display (Xvfb). The benchmark takes screenshots with xwd back to
back and reads the time back from the cells: each picture appeared between the start of the last
screenshot without it and the end of the first with it; the midpoint less its stamp is its delay,
within half that bracket. Both run on this
machine, on the same clock. Not included: a camera's exposure and readout, a display's scanout.
Needs Xvfb, xwd and xdotool (scripts/install-deps --test). --json: the text goes to stderr and
one JSON object of the figures (ms) to stdout (bench/run-all).
"""
import json, os, statistics, struct, subprocess, sys, time
from cpu_usage import start_room

as_json = "--json" in sys.argv
arguments = [a for a in sys.argv[1:] if a != "--json"]
if as_json:
    sys.stdout = sys.stderr
conf = arguments[0]
samples = int(arguments[1]) if len(arguments) > 1 else 200
resolution = arguments[2] if len(arguments) > 2 else "480p"
COLUMNS, ROWS = 12, 2

xvfb = subprocess.Popen(["Xvfb", "-displayfd", "1", "-screen", "0", "640x480x24", "-nolisten", "tcp"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
display = ":" + xvfb.stdout.readline().strip()
env = dict(os.environ, CONF_AUDIO_SINK="none", CONF_AUDIO_SOURCE="silence", DISPLAY=display)
env.pop("WAYLAND_DISPLAY", None)
server, address, room = start_room(conf, {"name": "glass to glass", "resolution": resolution})
join = [conf, "join", room["room"], room["pin"], "--server", address, "--json"]
sender = subprocess.Popen(join + ["--as", "sender", "--video-source", "pattern:clock", "--video-view", "none"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
receiver = subprocess.Popen(join + ["--as", "receiver", "--video-source", "none", "--video-view", "window"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)


def screenshot():
    """(time before, time after, width, height, pixel(x, y) -> luma) of the root window."""
    before = time.monotonic()
    data = subprocess.run(["xwd", "-root", "-silent", "-display", display], capture_output=True, check=True).stdout
    after = time.monotonic()
    words = struct.unpack(">25I", data[:100])
    header, width, height, order, bits, line, colours = words[0], words[4], words[5], words[7], words[11], words[12], words[19]
    start, size = header + colours * 12, bits // 8

    def luma(x, y):
        at = start + y * line + x * size
        value = int.from_bytes(data[at:at + size], "little" if order == 0 else "big")
        r, g, b = value >> 16 & 255, value >> 8 & 255, value & 255
        return (r * 299 + g * 587 + b * 114) // 1000
    return before, after, width, height, luma


def picture_box(width, height, luma):
    """The bounding box of the received picture: everything that is not the window's dark background."""
    xs = [x for x in range(0, width, 2) if any(luma(x, y) > 90 or luma(x, y) < 14 for y in range(0, height, 8))]
    ys = [y for y in range(0, height, 2) if any(luma(x, y) > 90 or luma(x, y) < 14 for x in range(0, width, 8))]
    return (min(xs), min(ys), max(xs), max(ys)) if xs and ys else None


def read_stamp(box, luma):
    x0, y0, x1, y1 = box
    stamp = 0
    for cell in range(COLUMNS * ROWS):
        row, column = divmod(cell, COLUMNS)
        x = x0 + (2 * column + 1) * (x1 - x0) // (2 * COLUMNS)
        y = y0 + (2 * row + 1) * (y1 - y0) // (2 * ROWS)
        stamp = stamp << 1 | (1 if luma(x, y) > 128 else 0)
    return stamp


def unwrap(stamp_ms, now):
    """The stamp (milliseconds mod 2^24) as the moment nearest to `now`, in seconds."""
    now_ms = int(now * 1000)
    base = now_ms - (now_ms & 0xFFFFFF)
    candidates = [base - 0x1000000 + stamp_ms, base + stamp_ms, base + 0x1000000 + stamp_ms]
    return min(candidates, key=lambda c: abs(c - now_ms)) / 1000


try:
    box = None
    deadline = time.monotonic() + 30
    while box is None and time.monotonic() < deadline:
        for name, process in (("sender", sender), ("receiver", receiver)):
            if process.poll() is not None:
                sys.exit(f"the {name} exited with status {process.returncode} before any picture appeared")
        _, _, width, height, luma = screenshot()
        box = picture_box(width, height, luma)
    if box is None:
        sys.exit("no picture appeared in the receiver's window within 30 s")
    time.sleep(2)  # past the first key frame and the encoder's settling
    # Screenshots back to back. A picture appeared between the last screenshot without its stamp
    # and the first with it: its delay is between those two, from the stamp.
    first_seen, previous_before = {}, None
    while len(first_seen) < samples:
        before, after, width, height, luma = screenshot()
        stamp = read_stamp(box, luma)
        if stamp not in first_seen and previous_before is not None:
            first_seen[stamp] = (previous_before, after, unwrap(stamp, before))
        previous_before = before
    delays, brackets = [], []
    for earliest, latest, made in first_seen.values():
        low, high = earliest - made, latest - made
        if -0.005 < high < 2:  # a misread stamp (a cell mid-change) lands far off
            delays.append(max(0, low + high) / 2 * 1000)
            brackets.append((high - low) * 1000)
finally:
    for process in (sender, receiver, server, xvfb):
        process.terminate()
    for process in (sender, receiver, server, xvfb):
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()

delays.sort()
print(f"glass-to-glass video delay, {resolution} at 30 fps, pattern:clock to the receiver's window on Xvfb, {len(delays)} pictures")
print(f"  median {statistics.median(delays):.0f} ms, p95 {delays[int(0.95 * (len(delays) - 1))]:.0f} ms, "
      f"min {delays[0]:.0f} ms, max {delays[-1]:.0f} ms (each within ±{statistics.median(brackets) / 2:.0f} ms: the screenshot's own time)")
if as_json:
    print(json.dumps({"resolution": resolution, "pictures": len(delays), "median_ms": statistics.median(delays),
                      "p95_ms": delays[int(0.95 * (len(delays) - 1))], "min_ms": delays[0], "max_ms": delays[-1],
                      "within_ms": statistics.median(brackets) / 2}), file=sys.__stdout__)

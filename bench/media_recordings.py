"""Reading conf's `--record` files and measuring what was delivered.

IVF (what libvpx's tools read; conf's IVFWriter): a 32-byte header ("DKIF", version, header size,
"VP80", width, height at 12/14, timebase denominator at 16 and numerator at 20, frame count at 24),
then per frame a 12-byte header (4-byte little-endian size, 8-byte timestamp in the timebase) and
the frame. conf writes 1/90000 and follows the sender's RTP timestamps, so the gaps between
timestamps are the gaps the sender's camera clock saw between delivered frames.

WAV: RIFF chunks; conf writes 16-bit mono PCM at 48 kHz, a 44-byte header. Gaps in playout longer
than 60 ms are written as silence (AudioRecordingTimeline), so a WAV follows the call's clock.

Times here are seconds on the recording's own clock: 0 is its first frame (or sample).
"""
import math, struct

WAV_RATE = 48000
QUIET_BLOCK = 0.010  # seconds: RMS is measured in 10 ms blocks
QUIET_RMS = 800  # a block under this is near silence (the tone source plays at RMS ~5800, -12 dBFS)


def ivf_frames(path):
    """[(seconds, size in bytes)] of the complete frames in the file (a cut-off last frame is left out)."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return []
    if len(data) < 32 or data[:4] != b"DKIF":
        return []
    header_size, = struct.unpack_from("<H", data, 6)
    denominator, numerator = struct.unpack_from("<II", data, 16)
    if denominator == 0 or numerator == 0:
        return []
    frames, at = [], max(32, header_size)
    while at + 12 <= len(data):
        size, timestamp = struct.unpack_from("<IQ", data, at)
        if at + 12 + size > len(data):
            break
        frames.append((timestamp * numerator / denominator, size))
        at += 12 + size
    return frames


def wav_samples(path):
    """The 16-bit mono samples of the file's data chunk (to the end of the file: a header not yet
    rewritten by a clean close still reads)."""
    try:
        data = open(path, "rb").read()
    except OSError:
        return []
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        return []
    at = 12
    while at + 8 <= len(data):
        kind, size = struct.unpack_from("<4sI", data, at)
        if kind == b"data":
            body = data[at + 8:]
            count = len(body) // 2
            return struct.unpack(f"<{count}h", body[:count * 2])
        at += 8 + size + (size & 1)
    return []


def video_figures(frames, start, end, fps):
    """Delivered video between `start` and `end` (recording seconds): frames per second, kbit/s,
    the longest freeze in ms (the largest gap between consecutive frames, the window's edges
    counting as frames, so a window with no frame is one freeze), and frames lost against a source
    sending `fps`."""
    span = max(end - start, 1e-9)
    inside = [(t, size) for t, size in frames if start <= t < end]
    times = [start] + [t for t, _ in inside] + [end]
    freeze = max(b - a for a, b in zip(times, times[1:]))
    return {"fps": len(inside) / span, "kbps": sum(size for _, size in inside) * 8 / span / 1000,
            "freeze_ms": freeze * 1000, "lost": max(0, round(span * fps) - len(inside)), "frames": len(inside)}


def per_second_kbps(frames, start, end):
    """Delivered video kbit/s in each whole second from `start`."""
    buckets = [0] * max(0, int(end - start))
    for t, size in frames:
        second = int(t - start) if t >= start else -1
        if 0 <= second < len(buckets):
            buckets[second] += size * 8 / 1000
    return buckets


def longest_quiet(samples, start, end):
    """The longest run of near-silence, in ms, between `start` and `end` (recording seconds) of a
    recording of a steady tone: a run of 10 ms blocks under QUIET_RMS. Where the file stops before
    `end`, the rest counts as quiet (nothing was played)."""
    block = int(WAV_RATE * QUIET_BLOCK)
    first, last = max(0, int(start * WAV_RATE)), int(end * WAV_RATE)
    longest = run = 0
    for at in range(first, last, block):
        chunk = samples[at:at + block]
        quiet = len(chunk) < block or math.sqrt(sum(v * v for v in chunk) / len(chunk)) < QUIET_RMS
        run = run + 1 if quiet else 0
        longest = max(longest, run)
    return longest * QUIET_BLOCK * 1000

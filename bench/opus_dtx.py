#!/usr/bin/env python3
"""What Opus DTX (discontinuous transmission, RFC 6716 section 2.1.9) would save conf: libopus
encodes the same 48 kHz mono signal at 32 kbit/s (VOIP, as conf's encoder) with DTX off and on,
and this counts the packets that would go on the wire (libopus's 1-2 byte DTX frames are not
sent, as libwebrtc does, except the one it emits every 400 ms) and their bytes, and times the
encoder. Signals: a talker (1.5 s bursts of a gliding, amplitude-modulated tone, then 1.5 s of
pause, like turns in a conversation) with the pauses digitally silent, and with the pauses
holding a quiet room's noise (-60 dBFS), which is what a real microphone gives.

    bench/opus_dtx.py [SECONDS]
"""
import ctypes, math, random, sys, time

seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 60
opus = ctypes.CDLL("libopus.so.0")
OPUS_APPLICATION_VOIP, OPUS_SET_BITRATE, OPUS_SET_DTX = 2048, 4002, 4016
RATE, FRAME = 48_000, 960
opus.opus_encoder_create.restype = ctypes.c_void_p
opus.opus_encoder_create.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_int)]
opus.opus_encode.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_int16), ctypes.c_int, ctypes.c_char_p, ctypes.c_int32]
opus.opus_encoder_ctl.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]


def signal(room_noise):
    """Frames of the talker-and-pauses signal."""
    noise = random.Random(7)
    frames, phase = [], 0.0
    for n in range(int(seconds * RATE / FRAME)):
        t0 = n * FRAME / RATE
        talking = (t0 % 3.0) < 1.5
        frame = (ctypes.c_int16 * FRAME)()
        for i in range(FRAME):
            t = t0 + i / RATE
            if talking:
                phase += 2 * math.pi * (180 + 60 * math.sin(2 * math.pi * 0.7 * t)) / RATE
                value = 9000 * (0.6 + 0.4 * math.sin(2 * math.pi * 4 * t)) * math.sin(phase)
            else:
                value = noise.gauss(0, 32768 * 10 ** (-60 / 20)) if room_noise else 0
            frame[i] = int(max(-32768, min(32767, value)))
        frames.append(frame)
    return frames


def encode(frames, dtx):
    error = ctypes.c_int()
    encoder = opus.opus_encoder_create(RATE, 1, OPUS_APPLICATION_VOIP, ctypes.byref(error))
    opus.opus_encoder_ctl(encoder, OPUS_SET_BITRATE, 32_000)
    opus.opus_encoder_ctl(encoder, OPUS_SET_DTX, 1 if dtx else 0)
    out = ctypes.create_string_buffer(1275)
    sent = sent_bytes = 0
    started = time.process_time()
    for frame in frames:
        length = opus.opus_encode(encoder, frame, FRAME, out, 1275)
        if length > 2:
            sent += 1
            sent_bytes += length
    cpu = time.process_time() - started
    opus.opus_encoder_destroy(ctypes.c_void_p(encoder))
    return sent, sent_bytes, cpu


print(f"{seconds:.0f} s of talk and pauses (half each), Opus 32 kbit/s VOIP; per second of call:")
print(f"{'pauses':>12} {'DTX':>4} {'packets':>8} {'payload kbit/s':>15} {'on the wire kbit/s':>19} {'encoder CPU ms':>15}")
for room_noise in (False, True):
    frames = signal(room_noise)
    for dtx in (False, True):
        sent, sent_bytes, cpu = encode(frames, dtx)
        # IPv4 + UDP + RTP (12) + audio-level and transport-wide extensions (12) + SRTP tag (10)
        wire = (sent_bytes + sent * (20 + 8 + 12 + 12 + 10)) * 8 / seconds / 1000
        print(f"{'room noise' if room_noise else 'silent':>12} {'on' if dtx else 'off':>4} {sent / seconds:8.1f} "
              f"{sent_bytes * 8 / seconds / 1000:15.1f} {wire:19.1f} {cpu / seconds * 1000:15.2f}")

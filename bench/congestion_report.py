"""The figures of one bench/congestion.py call, per link (sender -> receiver), and their table.

Video and audio figures come from the receiver's recordings (what was delivered); `audio-stats`
from the receiver's events; `link-stats` (the sender's own estimate, when the binary emits them)
from the sender's events; queue figures from the capped tbf's own counters, sampled every 100 ms.
All times are seconds from the start of the measured window (every link connected).
"""
import functools
import statistics
from dataclasses import dataclass

import media_recordings as media

SOURCE_FPS = 15  # what `--video-source pattern` sends (conf's VideoSettings.framesPerSecond)


@dataclass
class Call:
    scenario: str
    participants: dict  # i -> conf_call.Process
    records: dict  # i -> its --record directory
    births: dict  # recording path -> benchmark time it appeared
    caps: list  # [(participant, direction, kbit/s at the start)]
    changes: list  # [(benchmark time, kbit/s)] of caps[0], from the start
    queues: dict  # (participant, direction) -> [(benchmark time, tbf counters)]
    start: float
    end: float
    settle: float
    unconnected: list


def cap_at(call, at):
    """caps[0]'s rate at benchmark time `at`."""
    rate = None
    for when, kbps in call.changes:
        if when <= at:
            rate = kbps
    return rate


def link_cap(call, sender, receiver):
    """The cap (kbit/s at the start) a link sender -> receiver crosses: sender's uplink or receiver's downlink."""
    rates = [k for i, d, k in call.caps if (i, d) in ((sender, "uplink"), (receiver, "downlink"))]
    return min(rates) if rates else None


def settled_from(series, ok):
    """The first time after which every sample satisfies ok(value); None if the last does not."""
    found = None
    for t, value in series:
        if ok(value):
            found = t if found is None else found
        else:
            found = None
    return found


@functools.lru_cache(maxsize=None)
def ivf_frames(path):
    """The recording's frames, read once: the report looks at each link's several times, after the call."""
    return tuple(media.ivf_frames(path))


def recorded_video(call, receiver, sender):
    """[(benchmark time, size)] of the frames recorded sender -> receiver; [] if none was."""
    path = f"{call.records[receiver]}/n{sender}.ivf"
    birth = call.births.get(path)
    return [] if birth is None else [(birth + t, size) for t, size in ivf_frames(path)]


def video(call, receiver, sender, start, end):
    frames = [(t - call.start, size) for t, size in recorded_video(call, receiver, sender)]
    return media.video_figures(frames, start - call.start, end - call.start, SOURCE_FPS)


def freezes(call, receiver, sender, start, end, series, over_ms=150):
    """Each gap over `over_ms` in the window between the frames recorded sender -> receiver, on their media
    times (the recordings are stamped from RTP), so frames not sent or not completed, not frames held up in a
    queue; the window's edges count as frames, as in `video_figures`: when (seconds from
    the measured window's start), how long, the size of the frame that ended it (a key frame is several times
    the others), and from the sender's last link-stats before it (every 2 s) the temporal layers it forwarded,
    its estimate and its even share of a shared uplink (0: not sharing)."""
    recorded = recorded_video(call, receiver, sender)
    if not recorded:
        return []
    frames = [(start, None)] + [(t, size) for t, size in recorded if start <= t <= end] + [(end, None)]
    found = []
    for (a, _), (b, size) in zip(frames, frames[1:]):
        if (b - a) * 1000 > over_ms:
            before = [l for t, l in series if t <= a - call.start]
            found.append({"at_s": a - call.start, "ms": (b - a) * 1000, "next_frame_bytes": size,
                          "layers": before[-1].get("video_layers") if before else None,
                          "estimate_kbps": before[-1].get("estimate_kbps") if before else None,
                          "shared_kbps": before[-1].get("shared_kbps") if before else None})
    return found


def audio_quiet(call, receiver, sender, start, end):
    path = f"{call.records[receiver]}/n{sender}.wav"
    birth = call.births.get(path)
    if birth is None:
        return (end - start) * 1000
    return media.longest_quiet(media.wav_samples(path), start - birth, end - birth)


def audio_stats(call, receiver, sender_id, start, end):
    reports = [peer for at, e in call.participants[receiver].of("audio-stats") if start <= at <= end
               for peer in e.get("peers", []) if peer.get("peer") == sender_id]
    if not reports:
        return {"loss_percent": None, "concealed_max_ms": None, "concealed_total_ms": None}
    return {"loss_percent": statistics.mean(r.get("loss_percent", 0) for r in reports),
            "concealed_max_ms": max(r.get("concealed_ms", 0) for r in reports),
            "concealed_total_ms": sum(r.get("concealed_ms", 0) for r in reports)}


def link_series(call, sender, receiver_id):
    """[(seconds from the start, that link's entry)] of the sender's link-stats events."""
    return [(at - call.start, link) for at, e in call.participants[sender].of("link-stats")
            for link in e.get("links", []) if link.get("peer") == receiver_id and call.start <= at <= call.end]


def link_stats(series, cap):
    if not series:
        return None
    figure = lambda key: [l[key] for _, l in series if isinstance(l.get(key), (int, float))]
    median = lambda key: statistics.median(figure(key)) if figure(key) else None
    peak = lambda key: max(figure(key)) if figure(key) else None
    converged = settled_from(series, lambda l: l.get("estimate_kbps", 0) <= cap) if cap else None
    return {"converge_s": converged, "estimate_kbps": median("estimate_kbps"), "sent_kbps": median("sent_kbps"),
            "rtt_ms": median("rtt_ms"), "loss_percent": median("loss_percent"), "queue_delay_peak_ms": peak("queue_delay_ms"),
            "video_layers": median("video_layers")}


def queue(call, key, start, end):
    """Queue delay (backlog / rate) and drops at the capped qdisc `key` between start and end."""
    samples = [(t, q) for t, q in call.queues.get(key, []) if start <= t <= end]
    if len(samples) < 2:
        return None
    delays = [q["backlog"] * 8 / cap_at(call, t) for t, q in samples]  # bytes * 8 / (kbit/s) = ms
    (t0, first), (t1, last) = samples[0], samples[-1]
    return {"delay_peak_ms": max(delays), "delay_median_ms": statistics.median(delays), "drops": last["drops"] - first["drops"],
            "through_kbps": (last["bytes"] - first["bytes"]) * 8 / max(t1 - t0, 1e-9) / 1000}


def analyse(call):
    ids = {i: (p.of("joined")[0][1].get("you") if p.of("joined") else None) for i, p in call.participants.items()}
    steady = call.start + call.settle
    result = {"scenario": call.scenario, "participants": len(call.participants), "seconds": call.end - call.start,
              "settle": call.settle, "caps": [f"n{i} {d} {k} kbit/s" for i, d, k in call.caps], "unconnected": call.unconnected,
              "cpu_percent": {f"n{i}": (p.cpu_seconds or 0) / max(call.end - p.started, 1e-9) * 100 for i, p in call.participants.items()},
              "links": [], "queues": [], "phases": []}
    for s in call.participants:
        for r in call.participants:
            if s == r:
                continue
            cap = link_cap(call, s, r)
            whole, settled = video(call, r, s, call.start, call.end), video(call, r, s, steady, call.end)
            drops = [e for at, e in call.participants[r].of("peer-disconnected") if e.get("peer") == ids[s] and e.get("code") != "left" and call.start <= at <= call.end]
            series = link_series(call, s, ids[r])
            result["links"].append({
                "link": f"n{s} -> n{r}", "cap_kbps": cap, "fps": whole["fps"], "kbps": whole["kbps"], "lost": whole["lost"],
                "freeze_ms": settled["freeze_ms"], "audio_quiet_ms": audio_quiet(call, r, s, steady, call.end),
                **audio_stats(call, r, ids[s], steady, call.end), "disconnects": len(drops),
                "link_stats": link_stats(series, cap), "freezes": freezes(call, r, s, steady, call.end, series)})
    for (i, direction), _ in call.queues.items():
        figures = queue(call, (i, direction), call.start, call.end)
        if figures:
            result["queues"].append({"where": f"n{i} {direction}", **figures})
    if len(call.changes) > 1:
        result["phases"] = phases(call, ids)
    return result


def phases(call, ids):
    """The step scenario, link n1 -> n2, each stretch between cap changes on its own."""
    bounds = [t for t, _ in call.changes] + [call.end]
    series = link_series(call, 1, ids[2])
    before = [l["estimate_kbps"] for t, l in series if call.start + call.settle <= t + call.start < bounds[1] and "estimate_kbps" in l]
    # What the link carried before the first change: a sender that has all the rate its encoders
    # want (600 kbit/s of video and the audio) sends less than its estimate, so "adapted up" is
    # the estimate back over what it sent, not back to the estimate it had.
    sent_before = [l["sent_kbps"] for t, l in series if call.start + call.settle <= t + call.start < bounds[1] and "sent_kbps" in l]
    rows = []
    for n, ((start, kbps), end) in enumerate(zip(call.changes, bounds[1:])):
        figures = video(call, 2, 1, start, end)
        inside = [(t, l) for t, l in series if start <= t + call.start < end]
        if n == 0 or not inside:
            adapt = None
        elif kbps < call.changes[n - 1][1]:
            adapted = settled_from(inside, lambda l: l.get("estimate_kbps", 0) <= kbps)
            adapt = adapted - (start - call.start) if adapted is not None else None
        else:
            target = min(statistics.median(sent_before), 0.8 * statistics.median(before)) if before and sent_before else kbps
            adapted = next((t for t, l in inside if l.get("estimate_kbps", 0) >= target), None)
            adapt = adapted - (start - call.start) if adapted is not None else None
        rows.append({"from_s": start - call.start, "to_s": end - call.start, "cap_kbps": kbps, **figures,
                     "audio_quiet_ms": audio_quiet(call, 2, 1, start, end), "queue": queue(call, call.caps[0][:2], start, end),
                     "estimate_kbps": statistics.median([l["estimate_kbps"] for _, l in inside if "estimate_kbps" in l] or [0]) if inside else None,
                     "adapt_s": adapt, **after_adapting(call, start + adapt if adapt is not None else None, end)})
    return rows


def after_adapting(call, adapted_at, end):
    """The issue's aims count once a link has converged: the longest freeze and audio gap of a
    step's phase from the moment its estimate adapted (None when it did not, or for the first)."""
    if adapted_at is None or adapted_at >= end:
        return {"freeze_after_adapt_ms": None, "audio_quiet_after_adapt_ms": None}
    return {"freeze_after_adapt_ms": video(call, 2, 1, adapted_at, end)["freeze_ms"],
            "audio_quiet_after_adapt_ms": audio_quiet(call, 2, 1, adapted_at, end)}


def show(value, digits=0, unit=""):
    return "-" if value is None else f"{value:.{digits}f}{unit}"


def print_table(result):
    print(f"\n== {result['scenario']}: {result['participants']} participants, {', '.join(result['caps']) or 'no cap'}, "
          f"{result['seconds']:.1f} s measured (freezes and gaps after the first {result['settle']:.0f} s)")
    machine = result.get("machine", {})
    if machine.get("swift_build_running"):
        print("   WARNING: a Swift build or test run was going on before or after: these figures are partly its")
    if result["unconnected"]:
        print(f"   not connected to everyone when the window started: {', '.join(result['unconnected'])}")
    print("   CPU: " + ", ".join(f"{k} {v:.0f} %" for k, v in result["cpu_percent"].items())
          + f" of a core (load average before: {machine.get('load_average_before', 0):.2f})")
    rows = [["link", "cap", "video fps", "kbit/s", "lost", "freeze ms", "audio gap ms", "loss %", "conceal max/2s",
             "link down", "converge s", "estimate", "queue peak"]]
    for l in result["links"]:
        ls = l["link_stats"] or {}
        rows.append([l["link"], show(l["cap_kbps"]), show(l["fps"], 1), show(l["kbps"]), str(l["lost"]), show(l["freeze_ms"]),
                     show(l["audio_quiet_ms"]), show(l["loss_percent"], 1), show(l["concealed_max_ms"]), str(l["disconnects"]),
                     show(ls.get("converge_s"), 1), show(ls.get("estimate_kbps")), show(ls.get("queue_delay_peak_ms"))])
    table(rows)
    if not any(l["link_stats"] for l in result["links"]):
        print("   (no link-stats events from this binary: converge, estimate and its queue delay are '-')")
    long = [(l["link"], f) for l in result["links"] for f in l.get("freezes", [])]
    if long:
        print("   gaps over 150 ms between frames, after the settle (the sender's last link-stats before each: layers, estimate, share):")
        for link, f in long[:30]:
            print(f"     {link} at {f['at_s']:.2f} s: {f['ms']:.0f} ms, next frame {show(f['next_frame_bytes'])} B; layers {show(f['layers'])}, "
                  f"estimate {show(f['estimate_kbps'])}, shared {show(f['shared_kbps'])} kbit/s")
        if len(long) > 30:
            print(f"     ... and {len(long) - 30} more")
    if result.get("wire"):
        print("   on the wire after the settle (each participant's veth, the kernel's counters, Ethernet/IP/UDP included): "
              + ", ".join(f"{k} up {w['up_kbps']:.0f} down {w['down_kbps']:.0f}" for k, w in result["wire"].items()) + " kbit/s")
    for q in result["queues"]:
        print(f"   tbf at {q['where']}: through {q['through_kbps']:.0f} kbit/s, queue delay peak {q['delay_peak_ms']:.0f} ms, "
              f"median {q['delay_median_ms']:.0f} ms, {q['drops']} packets dropped")
    if result["phases"]:
        rows = [["n1 -> n2", "cap", "video fps", "kbit/s", "lost", "freeze ms", "audio gap ms", "queue peak", "queue median",
                 "drops", "estimate", "adapt s", "then: freeze ms", "audio gap ms"]]
        for p in result["phases"]:
            q = p["queue"] or {}
            rows.append([f"{p['from_s']:.0f}-{p['to_s']:.0f} s", show(p["cap_kbps"]), show(p["fps"], 1), show(p["kbps"]), str(p["lost"]),
                         show(p["freeze_ms"]), show(p["audio_quiet_ms"]), show(q.get("delay_peak_ms")), show(q.get("delay_median_ms")),
                         show(q.get("drops")), show(p["estimate_kbps"]), show(p["adapt_s"], 1),
                         show(p.get("freeze_after_adapt_ms")), show(p.get("audio_quiet_after_adapt_ms"))])
        table(rows)


def table(rows):
    widths = [max(len(row[c]) for row in rows) for c in range(len(rows[0]))]
    for row in rows:
        print("   " + "  ".join(cell.rjust(w) if c else cell.ljust(w) for c, (cell, w) in enumerate(zip(row, widths))))

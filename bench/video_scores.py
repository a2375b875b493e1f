"""The luma PSNR of decoded pictures against the Y4M clip they were encoded from, for
video_quality.py and video_cpu.py. A receiver's pictures need not be the clip's frames one for
one (set-up, frames the encoder dropped, a looped clip), so each picture is matched to the clip
frame it shows: the nearest by a 1/16-size thumbnail, then the best of that frame and its
neighbours at full size. Needs python3-numpy and gst-launch-1.0 (for `decode`)."""
import subprocess
import numpy as np


def read_y4m(path):
    """The luma planes of a 4:2:0 YUV4MPEG2 file, as an array of frames."""
    data = open(path, "rb").read()
    header_end = data.index(b"\n")
    fields = {f[:1]: f[1:] for f in data[:header_end].split()[1:]}
    w, h = int(fields[b"W"]), int(fields[b"H"])
    frame_bytes = w * h + 2 * ((w + 1) // 2) * ((h + 1) // 2)
    frames, at = [], header_end + 1
    while at < len(data):
        at = data.index(b"\n", at) + 1  # FRAME and its parameters
        if at + frame_bytes > len(data):
            break
        frames.append(np.frombuffer(data, np.uint8, w * h, at).reshape(h, w))
        at += frame_bytes
    return np.array(frames)


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b.astype(np.float64)) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255 * 255 / mse)


def decode(recording, demuxer, y4m):
    """Decodes a VP8 recording (`demuxer`: "ivfparse" for conf's --record, "matroskademux" for
    WebM) into a Y4M file."""
    subprocess.run(["gst-launch-1.0", "-q", "filesrc", f"location={recording}", "!", demuxer, "!", "vp8dec", "!",
                    "video/x-raw,format=I420", "!", "y4menc", "!", "filesink", f"location={y4m}"], check=True)


def matched_scores(pictures, source):
    """The PSNR of each picture against the clip frame it shows, sorted."""
    thumbs = source[:, ::16, ::16].astype(np.float64)
    scores = []
    for picture in pictures:
        thumb = picture[::16, ::16].astype(np.float64)
        nearest = int(np.argmin(np.mean((thumbs - thumb) ** 2, axis=(1, 2))))
        scores.append(max(psnr(picture, source[i % len(source)]) for i in (nearest - 1, nearest, nearest + 1)))
    return sorted(scores)


def summary(scores):
    """"mean, median, 5th percentile" in dB."""
    if not scores:
        return "no pictures"
    return f"{np.mean(scores):.2f} / {scores[len(scores) // 2]:.2f} / {scores[len(scores) // 20]:.2f} dB"

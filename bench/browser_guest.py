#!/usr/bin/python3
"""A browser guest on the call page, measured (issue 37): the time from opening the link to the
first picture of the host decoded on the page, the browser's CPU for the call, and conf host's
CPU when its peer is a browser beside when it is another conf.

Each round: `conf host` on loopback (plain ws, 480p test picture and a tone) for SECONDS; first
headless Chromium (its fake camera and microphone, 640x480) opens the link with join=1 and Join
is clicked through DevTools; then,
in a second call, `conf join` with the same media in its place. CPU is user+system time of the
process as it ends; for Chromium, of every process of its group (browser, renderer, GPU,
utility) just before it is stopped.

    bench/browser_guest.py [--conf .build/release/conf] [--seconds 20] [--rounds 3]
"""
import argparse, base64, json, os, signal, socket, subprocess, sys, threading, time, urllib.request

MEDIA = ["--audio-source", "tone:440", "--video-source", "pattern", "--video-view", "none"]


def host(conf, seconds):
    process = subprocess.Popen([conf, "host", "--listen", "127.0.0.1:0", "--no-tls", "--as", "ann", "--json", "--duration", str(seconds)]
                               + MEDIA, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    for line in process.stdout:
        event = json.loads(line)
        if event["type"] == "room":
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()  # drain
            return process, event
    raise SystemExit("conf host printed no room")


def click_join(profile):
    """Clicks Join on the page, as a person would (join=1 only fills in the name): Runtime.evaluate
    over Chromium's DevTools WebSocket, with a minimal RFC 6455 client."""
    for _ in range(100):
        try:
            port = int(open(os.path.join(profile, "DevToolsActivePort")).readline())
            break
        except (OSError, ValueError):
            time.sleep(0.1)  # Chromium writes the file once it listens
    targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
    path = "/" + next(t for t in targets if t["type"] == "page")["webSocketDebuggerUrl"].split("/", 3)[3]
    ws = socket.create_connection(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    ws.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
               f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
    ws.recv(4096)
    text = json.dumps({"id": 1, "method": "Runtime.evaluate",
                       "params": {"expression": "document.getElementById('join').click()", "userGesture": True}}).encode()
    mask = os.urandom(4)
    header = bytes([0x81, 0x80 | 126]) + len(text).to_bytes(2, "big") if len(text) > 125 else bytes([0x81, 0x80 | len(text)])
    ws.sendall(header + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text)))
    ws.recv(4096)
    ws.close()


def group_cpu(group):
    """CPU seconds so far of every live process in process group `group` (Chromium's browser,
    zygote, renderer, GPU and utility processes, started in a session of their own)."""
    total = 0
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == group:  # pgrp
            total += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime
    return total


def cpu_of(process):
    """Waits for `process`; its CPU seconds, its waited children's included."""
    _, _, usage = os.wait4(process.pid, 0)
    return usage.ru_utime + usage.ru_stime


def browser_round(conf, seconds):
    server, room = host(conf, seconds)
    profile = f"/tmp/conf-bench-browser-{os.getpid()}"
    started = time.monotonic()
    chromium = subprocess.Popen(["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--use-fake-device-for-media-stream",
                                 "--use-fake-ui-for-media-stream", "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                                 "--enable-logging=stderr", "--v=0", "--remote-debugging-port=0", f"--user-data-dir={profile}",
                                 room["browser_url"] + "&name=web&join=1"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, errors="replace", start_new_session=True)
    first_picture = None

    def read():
        nonlocal first_picture
        for line in chromium.stderr:
            if 'conf-page {"type":"lobby"' in line:
                click_join(profile)
            if first_picture is None and 'conf-page {"type":"picture"' in line:
                first_picture = time.monotonic() - started
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    host_cpu = cpu_of(server)  # the host leaves when its duration ends
    browser_cpu = group_cpu(chromium.pid)
    os.kill(chromium.pid, signal.SIGTERM)  # not send_signal: it polls, and reaps what already ended
    chromium.wait()
    subprocess.run(["rm", "-rf", profile])
    return first_picture, host_cpu, browser_cpu


def conf_round(conf, seconds):
    server, room = host(conf, seconds)
    guest = subprocess.Popen(room["join_command"].replace("conf ", conf + " ", 1).split() + ["--as", "bob", "--json"] + MEDIA,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    host_cpu = cpu_of(server)
    os.kill(guest.pid, signal.SIGTERM)
    return host_cpu, cpu_of(guest)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--conf", default=".build/release/conf")
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.rounds} rounds of {args.seconds} s calls, conf at {args.conf}")
    print("round  first picture  host CPU (browser peer)  browser CPU  host CPU (conf peer)  conf guest CPU")
    for index in range(args.rounds):
        picture, host_with_browser, browser = browser_round(args.conf, args.seconds)
        host_with_conf, guest = conf_round(args.conf, args.seconds)
        shown = f"{picture * 1000:.0f} ms" if picture is not None else "none"
        print(f"{index + 1:>5}  {shown:>13}  {host_with_browser:>21.2f} s  {browser:>9.2f} s  {host_with_conf:>18.2f} s  {guest:>12.2f} s")
        sys.stdout.flush()


if __name__ == "__main__":
    main()

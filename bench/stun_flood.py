#!/usr/bin/env python3
"""The rendezvous's STUN server under floods (issue 45): a release `conf rendezvous` on loopback,
flooded with Binding requests at RATE a second from one source (127.0.0.2) or from 256
(127.0.1.0-255), while a client (127.0.0.3, asking 8 times a second, as an ICE agent gathering
would at most) and a participant (127.0.0.4, with its WebSocket open) count their answers.

Prints, per flood: requests sent a second, answers a second in all (the flooders' and the
clients'), the client's and the participant's share answered, and the rendezvous's CPU (user +
system over the flood, in % of one core). Standard library only.

    stun_flood.py CONF [SECONDS]
"""
import base64, json, os, socket, struct, subprocess, sys, threading, time

CONF = sys.argv[1] if len(sys.argv) > 1 else ".build/release/conf"
SECONDS = float(sys.argv[2]) if len(sys.argv) > 2 else 10


def request(number):
    return bytes([0, 1, 0, 0, 0x21, 0x12, 0xA4, 0x42]) + bytes([0xAB] * 8) + struct.pack(">I", number)


def udp(address):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((address, 0))
    s.setblocking(False)
    return s


def drain(s, into=None):
    count = 0
    while True:
        try:
            data = s.recv(2048)
        except BlockingIOError:
            return count
        count += 1
        if into is not None and len(data) >= 20:
            into.add(struct.unpack(">I", data[16:20])[0])


def cpu_seconds(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def participant_socket(port):
    """A joined WebSocket from 127.0.0.4: the rendezvous counts that address as a participant."""
    body = json.dumps({"name": "bench"}).encode()
    http = socket.create_connection(("127.0.0.1", port))
    http.sendall(b"POST /v1/rooms HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: close\r\n"
                 + f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    answer = b""
    while chunk := http.recv(65536):
        answer += chunk
    room = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    ws = socket.socket()
    ws.bind(("127.0.0.4", 0))
    ws.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    ws.sendall((f"GET /v1/ws?room={room['room']} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
    while b"\r\n\r\n" not in ws.recv(4096, socket.MSG_PEEK):
        time.sleep(0.01)
    ws.recv(4096)
    text = json.dumps({"type": "join", "room": room["room"], "pin": room["pin"], "name": "bench"}).encode()
    mask = os.urandom(4)
    ws.sendall(bytes([0x81, 0x80 | len(text)]) + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(text)))
    return ws


def run(port, pid, rate, sources):
    flooders = [udp("127.0.0.2")] if sources == 1 else [udp(f"127.0.1.{i}") for i in range(256)]
    client, participant = udp("127.0.0.3"), udp("127.0.0.4")
    stop = threading.Event()
    sent = [0]
    flood_answers = [0]

    def flood():
        index, start = 0, time.monotonic()
        while not stop.is_set():
            for _ in range(200):
                flooders[index % len(flooders)].sendto(request(index), ("127.0.0.1", port))
                index += 1
            ahead = index / rate - (time.monotonic() - start)
            if ahead > 0:
                time.sleep(ahead)
            if index % 5000 < 200:
                flood_answers[0] += sum(drain(f) for f in flooders)
        sent[0] = index
        flood_answers[0] += sum(drain(f) for f in flooders)

    thread = threading.Thread(target=flood)
    cpu_before, began = cpu_seconds(pid), time.monotonic()
    thread.start()
    asked, answered = {client: 0, participant: 0}, {client: set(), participant: set()}
    number = 1_000_000
    while time.monotonic() - began < SECONDS:
        for s in (client, participant):
            s.sendto(request(number), ("127.0.0.1", port))
            asked[s] += 1
            number += 1
        time.sleep(0.125)
        for s in (client, participant):
            drain(s, answered[s])
    stop.set()
    thread.join()
    elapsed = time.monotonic() - began
    cpu = (cpu_seconds(pid) - cpu_before) / elapsed * 100
    time.sleep(0.5)
    for s in (client, participant):
        drain(s, answered[s])
    answers = flood_answers[0] + len(answered[client]) + len(answered[participant])
    print(f"{'one source' if sources == 1 else '256 sources':>12}  {sent[0] / elapsed:>9,.0f}/s sent  {answers / elapsed:>7,.0f} answers/s  "
          f"client {100 * len(answered[client]) / asked[client]:5.1f} %  participant {100 * len(answered[participant]) / asked[participant]:5.1f} %  "
          f"rendezvous CPU {cpu:5.1f} %")


def main():
    server = subprocess.Popen([CONF, "rendezvous", "--listen", "127.0.0.1:0", "--workers", "1", "--quiet", "--no-tls"], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True)
    port = int(server.stdout.readline().split(":")[-1])
    ws = participant_socket(port)
    try:
        for rate in (20_000, 60_000):
            for sources in (1, 256):
                run(port, server.pid, rate, sources)
    finally:
        ws.close()
        server.terminate()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Load benchmark for `conf rendezvous`: N rooms x 4 WebSocket clients on loopback.

Prints join latency (WebSocket open + join -> joined), signal relay latency (sender -> receiver,
one process clock), and the server's RSS. Standard library only: a minimal RFC 6455 client on
asyncio. Run through bench/rendezvous-load.sh, which starts the server.
"""
import asyncio, base64, json, os, statistics, struct, sys, time

HOST = "127.0.0.1"


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Client:
    """One participant: an open WebSocket speaking the rendezvous protocol."""

    def __init__(self, port):
        self.port = port
        self.inbox = asyncio.Queue()

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port)
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write((f"GET /v1/ws HTTP/1.1\r\nHost: {HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        if not head.startswith(b"HTTP/1.1 101"):
            raise RuntimeError(head[:80])
        self.task = asyncio.create_task(self.read_loop())

    def send(self, obj):
        payload = json.dumps(obj, separators=(",", ":")).encode()
        n = len(payload)
        header = bytes([0x81]) + (bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + struct.pack(">H", n))
        self.writer.write(header + b"\0\0\0\0" + payload)  # zero mask: payload unchanged

    async def read_loop(self):
        try:
            while True:
                b0, b1 = await self.reader.readexactly(2)
                n = b1 & 0x7F
                if n == 126:
                    n = struct.unpack(">H", await self.reader.readexactly(2))[0]
                elif n == 127:
                    n = struct.unpack(">Q", await self.reader.readexactly(8))[0]
                data = await self.reader.readexactly(n)
                if b0 & 0x0F == 1:
                    self.inbox.put_nowait((time.perf_counter(), json.loads(data)))
                elif b0 & 0x0F == 8:
                    return
        except (asyncio.IncompleteReadError, ConnectionError):
            return

    async def expect(self, kind):
        while True:
            at, msg = await asyncio.wait_for(self.inbox.get(), 30)
            if msg["type"] == kind:
                return at, msg
            if msg["type"] == "error":
                raise RuntimeError(msg)


async def http_post(port, path, body):
    reader, writer = await asyncio.open_connection(HOST, port)
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
    response = await reader.read()
    writer.close()
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


async def main(port, rooms, server_pid):
    gate = asyncio.Semaphore(64)

    async def create(i):
        async with gate:
            return await http_post(port, "/v1/rooms", {"name": f"bench room {i}"})

    t0 = time.perf_counter()
    created = await asyncio.gather(*(create(i) for i in range(rooms)))
    create_s = time.perf_counter() - t0

    join_ms = []

    async def join(room, name):
        async with gate:
            client = Client(port)
            start = time.perf_counter()
            await client.connect()
            client.send({"type": "join", "room": room["room"], "pin": room["pin"], "name": name})
            at, joined = await client.expect("joined")
            join_ms.append((at - start) * 1000)
            client.id = joined["you"]
            return client

    t0 = time.perf_counter()
    members = []
    for seat in range(4):  # seat by seat, so every room fills in the same order
        members.append(await asyncio.gather(*(join(room, f"p{seat}") for room in created)))
    join_s = time.perf_counter() - t0
    groups = list(zip(*members))  # per room: its 4 clients

    relay_ms = []

    async def relay_round(group):
        # Each client sends one signal to the next; each waits for the one addressed to it.
        sent = {}
        for i, client in enumerate(group):
            target = group[(i + 1) % 4]
            sent[target.id] = time.perf_counter()
            client.send({"type": "signal", "to": target.id, "payload": {"sdp": "x" * 200, "seq": i}})
        for client in group:
            at, _ = await client.expect("signal")
            relay_ms.append((at - sent[client.id]) * 1000)

    for _ in range(3):
        await asyncio.gather(*(relay_round(g) for g in groups))

    # Probes while the server holds every connection: one join or one relay at a time.
    probe_rooms = [await http_post(port, "/v1/rooms", {"name": f"probe {i}"}) for i in range(2)]
    probe_join_ms = []
    for i in range(200):
        client = Client(port)
        start = time.perf_counter()
        await client.connect()
        client.send({"type": "join", "room": probe_rooms[0]["room"], "pin": probe_rooms[0]["pin"], "name": "probe"})
        at, _ = await client.expect("joined")
        probe_join_ms.append((at - start) * 1000)
        client.send({"type": "leave"})
        client.task.cancel()
        client.writer.close()
    a, b = Client(port), Client(port)
    for c in (a, b):
        await c.connect()
        c.send({"type": "join", "room": probe_rooms[1]["room"], "pin": probe_rooms[1]["pin"], "name": "probe"})
        _, joined = await c.expect("joined")
        c.id = joined["you"]
    probe_relay_ms = []
    for i in range(150):  # under the per-connection burst allowance (200)
        start = time.perf_counter()
        a.send({"type": "signal", "to": b.id, "payload": {"sdp": "x" * 200, "seq": i}})
        at, _ = await b.expect("signal")
        probe_relay_ms.append((at - start) * 1000)

    status = open(f"/proc/{server_pid}/status").read()
    rss = {line.split(":")[0]: int(line.split()[1]) for line in status.splitlines() if line.startswith(("VmRSS", "VmHWM"))}

    def figures(values):
        return f"p50 {statistics.median(values):.2f} ms, p99 {percentile(values, 99):.2f} ms, max {max(values):.2f} ms"

    print(f"rooms={rooms} clients={rooms * 4}")
    print(f"create {rooms} rooms (64 in flight): {create_s:.2f} s")
    print(f"fill: {rooms * 4} joins, 64 in flight, in {join_s:.2f} s ({rooms * 4 / join_s:.0f}/s); "
          f"latency (WebSocket open + join -> joined) {figures(join_ms)}")
    print(f"burst relay: every client signals at once, 3 rounds: {figures(relay_ms)} ({len(relay_ms)} messages)")
    print(f"join with {rooms * 4} connections open, one at a time (200): {figures(probe_join_ms)}")
    print(f"signal relay with {rooms * 4} connections open, one at a time (150): {figures(probe_relay_ms)}")
    print(f"server RSS with all connected: {rss['VmRSS'] / 1024:.1f} MiB (peak {rss['VmHWM'] / 1024:.1f} MiB)")

    for client in [c for group in groups for c in group] + [a, b]:
        client.task.cancel()
        client.writer.close()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])))

#!/usr/bin/env python3
"""Load benchmark for `conf rendezvous`: N rooms x 4 WebSocket clients on loopback.

Prints join latency (WebSocket open + join -> joined), signal relay latency (sender -> receiver,
one process clock), and the server's RSS. Standard library only: a minimal RFC 6455 client on
asyncio. Run through bench/rendezvous-load.sh, which starts the server.

    rendezvous_load.py PORT ROOMS SERVER_PIDS [PROCESSES]

SERVER_PIDS: the server's process ids, comma-separated (RSS is their sum). PROCESSES (default 1):
load generators, each with its share of the rooms (one process may hold 20,000 descriptors here);
they fill, relay and probe together, phase by phase, and their figures are merged.
"""
import asyncio, base64, json, multiprocessing, os, statistics, struct, sys, time

HOST = "127.0.0.1"
# Each load generator connects from its own loopback address (127.0.0.2, .3, ...): one address
# has about 28,000 ephemeral ports towards one server port, fewer than 10,000 rooms need.
SOURCE = "127.0.0.2"


def percentile(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


class Client:
    """One participant: an open WebSocket speaking the rendezvous protocol."""

    def __init__(self, port, room):
        self.port = port
        self.room = room
        self.inbox = asyncio.Queue()

    async def connect(self):
        self.reader, self.writer = await asyncio.open_connection(HOST, self.port, local_addr=(SOURCE, 0))
        key = base64.b64encode(os.urandom(16)).decode()
        self.writer.write((f"GET /v1/ws?room={self.room} HTTP/1.1\r\nHost: {HOST}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
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
    reader, writer = await asyncio.open_connection(HOST, port, local_addr=(SOURCE, 0))
    data = json.dumps(body).encode()
    writer.write(f"POST {path} HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/json\r\n"
                 f"Content-Length: {len(data)}\r\nConnection: close\r\n\r\n".encode() + data)
    response = await reader.read()
    writer.close()
    return json.loads(response.split(b"\r\n\r\n", 1)[1])


async def phase(barrier):
    """Waits until every load generator reached this point."""
    if barrier is not None:
        await asyncio.get_running_loop().run_in_executor(None, barrier.wait)


async def main(port, rooms, first_room, barrier, probing):
    """One load generator's share: rooms first_room..<first_room+rooms. Returns its raw figures."""
    gate = asyncio.Semaphore(64)

    async def create(i):
        async with gate:
            return await http_post(port, "/v1/rooms", {"name": f"bench room {i}"})

    await phase(barrier)
    t0 = time.perf_counter()
    created = await asyncio.gather(*(create(first_room + i) for i in range(rooms)))
    create_s = time.perf_counter() - t0

    join_ms = []

    async def join(room, name):
        async with gate:
            client = Client(port, room["room"])
            start = time.perf_counter()
            await client.connect()
            client.send({"type": "join", "room": room["room"], "pin": room["pin"], "name": name})
            at, joined = await client.expect("joined")
            join_ms.append((at - start) * 1000)
            client.id = joined["you"]
            joined_clients.append(client)
            return client

    # Joined clients ping every 15 s as conf does, or the server drops them after 45 s of silence
    # (filling 40,000 seats takes longer than that here).
    joined_clients = []

    async def keep_alive():
        # A fifteenth of the clients each second, as clients started at different times would.
        tick = 0
        while True:
            await asyncio.sleep(1)
            tick += 1
            for client in joined_clients[tick % 15::15]:
                client.send({"type": "ping"})

    pinger = asyncio.create_task(keep_alive())
    await phase(barrier)
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
        await phase(barrier)
        await asyncio.gather(*(relay_round(g) for g in groups))

    # Probes while the server holds every connection: one join or one relay at a time (one
    # generator probes; the others hold their connections meanwhile).
    await phase(barrier)
    probe_join_ms, probe_relay_ms = [], []
    if probing:
        probe_rooms = [await http_post(port, "/v1/rooms", {"name": f"probe {i}"}) for i in range(2)]
        for i in range(200):
            client = Client(port, probe_rooms[0]["room"])
            start = time.perf_counter()
            await client.connect()
            client.send({"type": "join", "room": probe_rooms[0]["room"], "pin": probe_rooms[0]["pin"], "name": "probe"})
            at, _ = await client.expect("joined")
            probe_join_ms.append((at - start) * 1000)
            client.send({"type": "leave"})
            client.task.cancel()
            client.writer.close()
        a, b = Client(port, probe_rooms[1]["room"]), Client(port, probe_rooms[1]["room"])
        for c in (a, b):
            await c.connect()
            c.send({"type": "join", "room": probe_rooms[1]["room"], "pin": probe_rooms[1]["pin"], "name": "probe"})
            _, joined = await c.expect("joined")
            c.id = joined["you"]
        for i in range(150):  # under the per-connection burst allowance (200)
            start = time.perf_counter()
            a.send({"type": "signal", "to": b.id, "payload": {"sdp": "x" * 200, "seq": i}})
            at, _ = await b.expect("signal")
            probe_relay_ms.append((at - start) * 1000)
        for c in (a, b):
            c.task.cancel()
            c.writer.close()
    figures = {"create_s": create_s, "join_s": join_s, "join_ms": join_ms, "relay_ms": relay_ms,
               "probe_join_ms": probe_join_ms, "probe_relay_ms": probe_relay_ms}
    await phase(barrier)  # everyone still connected while the parent reads the server's RSS
    await phase(barrier)
    pinger.cancel()
    for client in [c for group in groups for c in group]:
        client.task.cancel()
        client.writer.close()
    return figures


def generator(port, rooms, first_room, barrier, probing, results, source):
    global SOURCE
    SOURCE = source
    results.put(asyncio.run(main(port, rooms, first_room, barrier, probing)))


def server_memory(pids):
    total = {"VmRSS": 0, "VmHWM": 0}
    for pid in pids:
        for line in open(f"/proc/{pid}/status").read().splitlines():
            key = line.split(":")[0]
            if key in total:
                total[key] += int(line.split()[1])
    return total


def run(port, rooms, server_pids, processes):
    barrier = multiprocessing.Barrier(processes + 1)
    results = multiprocessing.Queue()
    shares = [rooms // processes + (1 if i < rooms % processes else 0) for i in range(processes)]
    starts = [sum(shares[:i]) for i in range(processes)]
    workers = [multiprocessing.Process(target=generator, args=(port, shares[i], starts[i], barrier, i == 0, results, f"127.0.0.{2 + i}"))
               for i in range(processes)]
    for w in workers:
        w.start()
    for _ in range(7):  # create, fill, 3 relay rounds, probes, results ready
        barrier.wait()
    rss = server_memory(server_pids)  # every client still connected
    barrier.wait()
    figures = [results.get() for _ in workers]
    for w in workers:
        w.join()

    def merged(key):
        return [v for f in figures for v in f[key]]

    def described(values):
        return f"p50 {statistics.median(values):.2f} ms, p99 {percentile(values, 99):.2f} ms, max {max(values):.2f} ms"

    create_s = max(f["create_s"] for f in figures)
    join_s = max(f["join_s"] for f in figures)
    relay = merged("relay_ms")
    print(f"rooms={rooms} clients={rooms * 4} load generators={processes}")
    print(f"create {rooms} rooms (64 in flight per generator): {create_s:.2f} s")
    print(f"fill: {rooms * 4} joins, 64 in flight per generator, in {join_s:.2f} s ({rooms * 4 / join_s:.0f}/s); "
          f"latency (WebSocket open + join -> joined) {described(merged('join_ms'))}")
    print(f"burst relay: every client signals at once, 3 rounds: {described(relay)} ({len(relay)} messages)")
    print(f"join with {rooms * 4} connections open, one at a time (200): {described(merged('probe_join_ms'))}")
    print(f"signal relay with {rooms * 4} connections open, one at a time (150): {described(merged('probe_relay_ms'))}")
    print(f"server RSS with all connected: {rss['VmRSS'] / 1024:.1f} MiB (peak {rss['VmHWM'] / 1024:.1f} MiB)")


if __name__ == "__main__":
    run(int(sys.argv[1]), int(sys.argv[2]), [int(p) for p in sys.argv[3].split(",")], int(sys.argv[4]) if len(sys.argv) > 4 else 1)

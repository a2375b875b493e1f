internal import CConfShims
import ConfCore
import ConfRendezvous
#if canImport(Glibc)
import Glibc
#endif

/// One worker's mailbox between the processes of a rendezvous (`--processes P`): a Unix datagram
/// socket in the abstract namespace named after the port and the worker's number (conf_courier.c).
/// Connections for a room another process holds are sent to that worker's courier as descriptors
/// (a WebSocket handed over open carries its transcript: `ws` and a newline, then the bytes);
/// once a second each worker sends its figures to every other process, for `/v1/metrics`.
/// Binding worker 0's name also keeps a second rendezvous of the same user off the port, which
/// SO_REUSEPORT would otherwise let it share.
///
/// Threading: on its worker's loop.
final class RendezvousCourier {
    let fd: Int32
    private let port: UInt16
    private let loop: EventLoop
    private var watch: Timer?
    /// Descriptors whose worker's mailbox was full, oldest first.
    private var waiting: [(descriptor: Int32, worker: Int, payload: [UInt8], since: Instant)] = []
    private var retry: Timer?

    /// Throws when the name is taken (another rendezvous of this user on the port) or the socket cannot be made.
    init(loop: EventLoop, port: UInt16, worker: Int, received: @escaping (_ descriptor: Int32?, _ payload: [UInt8]) -> Void) throws(GLibError) {
        let fd = conf_courier_bind(UInt32(port), UInt32(worker))
        guard fd >= 0 else {
            let why = -fd == EADDRINUSE ? "another conf rendezvous of this user serves port \(port) already" : String(cString: strerror(-fd))
            throw GLibError(domain: "conf", code: -fd, message: why)
        }
        self.fd = fd
        self.port = port
        self.loop = loop
        watch = loop.watch(fd: fd) {
            var payload = [UInt8](repeating: 0, count: Self.largestPayload)
            while true {
                var descriptor: Int32 = -1
                let n = conf_courier_receive(fd, &payload, payload.count, &descriptor)
                if n == -Int(EAGAIN) { return true }
                if n < 0 { continue }  // from another user, or damaged: dropped (its descriptor closed)
                received(descriptor >= 0 ? descriptor : nil, Array(payload[..<n]))
            }
        }
    }

    deinit {
        watch?.cancel()
        retry?.cancel()
        for (descriptor, _, _, _) in waiting { close(descriptor) }
        close(fd)
    }

    /// The most a datagram carries: a WebSocket's transcript behind its mark.
    static let largestPayload = handedOverMark.count + PolledWebSocket.transcriptLimit
    private static let handedOverMark = Array("ws\n".utf8)

    /// The transcript of a WebSocket handed over open, or nil for a connection not yet read.
    static func transcript(in payload: [UInt8]) -> [UInt8]? {
        payload.starts(with: handedOverMark) ? Array(payload.dropFirst(handedOverMark.count)) : nil
    }

    /// Hands `descriptor` to `worker` (its copy travels; ours is closed), with the transcript of a
    /// WebSocket handed over open. A full mailbox (a Unix datagram queue holds
    /// net.unix.max_dgram_qlen messages, 10 by default, and a burst of joins fills it) is tried
    /// again every 2 ms, for up to 2 s; then the connection is closed.
    func send(_ descriptor: Int32, to worker: Int, transcript: [UInt8]? = nil) {
        let payload = transcript.map { Self.handedOverMark + $0 } ?? Array("fd".utf8)
        if waiting.isEmpty, trySend(descriptor, to: worker, payload: payload) != -EAGAIN { return }
        waiting.append((descriptor, worker, payload, loop.clock.now()))
        if retry == nil {
            retry = loop.schedule(every: .milliseconds(2)) { [weak self] in self?.sendWaiting() ?? false }
        }
    }

    /// 0, -EAGAIN (kept), or another -errno (the connection is closed: it cannot go).
    private func trySend(_ descriptor: Int32, to worker: Int, payload: [UInt8]) -> Int32 {
        let result = payload.withUnsafeBytes { conf_courier_send(fd, UInt32(port), UInt32(worker), descriptor, $0.baseAddress, $0.count) }
        if result == 0 {
            close(descriptor)  // our copy: theirs travelled
        } else if result != -EAGAIN {
            PolledWebSocket.endHandedOver(descriptor, transcript: Self.transcript(in: payload))  // it cannot go
        }
        return result
    }

    /// Returns whether some still wait.
    private func sendWaiting() -> Bool {
        let now = loop.clock.now()
        while let (descriptor, worker, payload, since) = waiting.first {
            if trySend(descriptor, to: worker, payload: payload) == -EAGAIN {
                guard now.since(since) > .seconds(2) else { return true }
                // Its worker is not taking any: the client sees the connection end.
                PolledWebSocket.endHandedOver(descriptor, transcript: Self.transcript(in: payload))
            }
            waiting.removeFirst()
        }
        retry = nil
        return false
    }

    /// A line of text to `worker` (best effort: a full mailbox drops it).
    func send(_ text: String, to worker: Int) {
        _ = text.withCString { conf_courier_send(fd, UInt32(port), UInt32(worker), -1, $0, strlen($0)) }
    }
}

/// This process gets SIGTERM when the one that started it ends (the rendezvous's other processes).
public func endWhenTheParentEnds() { conf_die_with_parent() }

internal import CConfShims
import ConfCore
import ConfRendezvous
#if canImport(Glibc)
import Glibc
#endif

/// The couriers of every worker of a rendezvous run as several processes (`--processes P`): one
/// Unix datagram socketpair per worker, made by the first process before it starts the others,
/// which inherit the ends (`environmentVariable` says which descriptors they are). Nothing is
/// named, so no other local user can find, bind or send to a courier; an inherited end is used
/// only when its peer was made by this user.
public struct RendezvousCourierEnds: Sendable {
    public static let environmentVariable = "CONF_RENDEZVOUS_COURIERS"

    /// By worker (counting over every process): where it receives, and where others send to it.
    let ends: [(receive: Int32, send: Int32)]

    /// Makes the pairs for `workers` workers in all.
    public static func make(workers: Int) throws(GLibError) -> RendezvousCourierEnds {
        var made: [(receive: Int32, send: Int32)] = []
        for _ in 0..<workers {
            var pair: [Int32] = [-1, -1]
            let result = conf_courier_pair(&pair)
            guard result == 0 else {
                for (receive, send) in made { close(receive); close(send) }
                throw GLibError(domain: "conf", code: -result, message: "cannot make the processes' couriers: " + String(cString: strerror(-result)))
            }
            made.append((pair[0], pair[1]))
        }
        return RendezvousCourierEnds(ends: made)
    }

    /// The ends the first process handed down, or nil when the variable names none, or names
    /// something that is not a courier of this user's (then this process cannot work with the others).
    public static func inherited(_ environment: [String: String], workers: Int) -> RendezvousCourierEnds? {
        guard let text = environment[environmentVariable] else { return nil }
        var ends: [(receive: Int32, send: Int32)] = []
        for pair in text.split(separator: ";") {
            let numbers = pair.split(separator: ",").compactMap { Int32($0) }
            guard numbers.count == 2, numbers.allSatisfy({ $0 > 2 && conf_courier_is_ours($0) != 0 }) else { return nil }
            for fd in numbers { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            ends.append((numbers[0], numbers[1]))
        }
        return ends.count == workers ? RendezvousCourierEnds(ends: ends) : nil
    }

    /// For the environment of a process started with these ends.
    public var environmentValue: String { ends.map { "\($0.receive),\($0.send)" }.joined(separator: ";") }

    /// Every descriptor, for the processes started to inherit.
    public var descriptors: [Int32] { ends.flatMap { [$0.receive, $0.send] } }
}

/// One worker's mailbox between the processes of a rendezvous: the receiving end of its
/// socketpair, and the sending ends of the workers of other processes (`RendezvousCourierEnds`).
/// Connections for a room another process holds are sent to that worker's courier as descriptors
/// (a WebSocket handed over open carries its transcript: `ws` and a newline, then the bytes);
/// once a second each worker sends its figures to every other process, for `/v1/metrics`.
///
/// Threading: on its worker's loop.
final class RendezvousCourier {
    private let ends: RendezvousCourierEnds
    private let loop: EventLoop
    private var watch: Timer?
    /// Descriptors whose worker's mailbox was full, oldest first.
    private var waiting: [(descriptor: Int32, worker: Int, payload: [UInt8], since: Instant)] = []
    private var retry: Timer?

    init(loop: EventLoop, ends: RendezvousCourierEnds, worker: Int, received: @escaping (_ descriptor: Int32?, _ payload: [UInt8]) -> Void) {
        self.ends = ends
        self.loop = loop
        let fd = ends.ends[worker].receive
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
        let result = payload.withUnsafeBytes { conf_courier_send(ends.ends[worker].send, descriptor, $0.baseAddress, $0.count) }
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
        _ = text.withCString { conf_courier_send(ends.ends[worker].send, -1, $0, strlen($0)) }
    }
}

/// This process gets SIGTERM when the one that started it ends (the rendezvous's other processes).
public func endWhenTheParentEnds() { conf_die_with_parent() }

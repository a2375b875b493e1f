internal import CConfShims
#if canImport(Glibc)
import Glibc
#endif

/// What a descriptor watched by a `SocketPoller` is told.
protocol PolledDescriptor: AnyObject {
    /// Readable, hung up or in error. Level-triggered (unless added `whenMoreArrives`): a client
    /// that stops before EAGAIN is told again on the next wake-up.
    func readable()
    /// Room to write, while `SocketPoller.wantWrites` asked for it.
    func writable()
}

/// Many sockets watched through one epoll set, which is itself a single descriptor on the GLib
/// loop. GLib prepares, polls and checks every source of its context on each iteration, so with
/// thousands of WebSockets as GLib sources every wake-up cost milliseconds (git show
/// 20307e8:BENCHMARKS.md, "The rendezvous under a load generator in C"); here a wake-up costs
/// what is ready.
///
/// Threading: on the EventLoop thread it was made on; clients are called there.
final class SocketPoller {
    private let epoll: Int32
    private var clients: [Int32: any PolledDescriptor] = [:]
    private var watch: Timer?
    /// Ready descriptors handled per wake-up; the loop's other sources run between batches.
    static let batch = 256
    private var readyFDs = [Int32](repeating: 0, count: SocketPoller.batch)
    private var readyFlags = [Int32](repeating: 0, count: SocketPoller.batch)
    /// Where clients read into, one at a time (they are called one at a time, on one thread).
    let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 16_384, alignment: 8)

    init(loop: EventLoop) throws(SocketPollerError) {
        let fd = conf_epoll_create()
        guard fd >= 0 else { throw SocketPollerError(errno: -fd) }
        epoll = fd
        watch = loop.watch(fd: fd) { [unowned self] in
            self.dispatchReady()
            return true
        }
    }

    deinit {
        watch?.cancel()
        close(epoll)
        readBuffer.deallocate()
    }

    /// Watches `fd` for reading; `client` is held until `remove`. `whenMoreArrives`: told only
    /// when new bytes come (edge-triggered), for a client that peeks without reading.
    func add(_ fd: Int32, _ client: any PolledDescriptor, whenMoreArrives: Bool = false) throws(SocketPollerError) {
        let result = conf_epoll_watch(epoll, fd, 0, whenMoreArrives ? 1 : 0, 1)
        guard result == 0 else { throw SocketPollerError(errno: -result) }
        clients[fd] = client
    }

    /// Whether `fd` is also told when it may be written (while it has bytes waiting to go).
    func wantWrites(_ fd: Int32, _ on: Bool) {
        guard clients[fd] != nil else { return }
        _ = conf_epoll_watch(epoll, fd, on ? 1 : 0, 0, 0)
    }

    /// Stops watching `fd` (before it is closed) and lets go of its client.
    func remove(_ fd: Int32) {
        guard clients.removeValue(forKey: fd) != nil else { return }
        _ = conf_epoll_forget(epoll, fd)
    }

    private func dispatchReady() {
        let n = Int(conf_epoll_ready(epoll, &readyFDs, &readyFlags, Int32(Self.batch)))
        guard n > 0 else { return }
        for i in 0..<n {
            let fd = readyFDs[i], flags = readyFlags[i]
            // A client removed by an earlier one in this batch is not called.
            if flags & 2 != 0, let client = clients[fd] { client.writable() }
            if flags & 1 != 0, let client = clients[fd] { client.readable() }
        }
    }
}

struct SocketPollerError: Error, CustomStringConvertible {
    let errno: Int32
    var description: String { "epoll: \(String(cString: strerror(errno)))" }
}

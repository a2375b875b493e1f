import ConfCore
import ConfRendezvous
import ConfWire
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Where the workers of one rendezvous post their figures (each once a second, and whoever serves
/// `/v1/metrics` just before), so that any of them can show all. The one lock is taken once a
/// second per worker, never for a client's message.
public final class MetricsBoard: Sendable {
    private let slots: Mutex<[RendezvousMetricsSnapshot]>
    let count: Int

    public init(workers: Int) {
        slots = Mutex(Array(repeating: RendezvousMetricsSnapshot(), count: workers))
        count = workers
    }

    func post(_ snapshot: RendezvousMetricsSnapshot, from worker: Int) { slots.withLock { $0[worker] = snapshot } }

    var snapshots: [RendezvousMetricsSnapshot] { slots.withLock { $0 } }

    func snapshot(of worker: Int) -> RendezvousMetricsSnapshot { slots.withLock { $0[worker] } }
}

/// `conf rendezvous --workers N [--processes P]`: N event loops per process, each with its own
/// libsoup server listening on the same port (SO_REUSEPORT), its own `RendezvousCore` holding the
/// rooms whose id it owns (`WorkerShare`, over all P x N workers), and all of those rooms'
/// connections. The kernel spreads new connections over the workers; one that lands on the wrong
/// worker is handed to the owner (`WorkerRouting`): before its WebSocket opens when its URL names
/// the room, or open with what it sent when its first message does. Through the owner's loop in
/// this process, as a descriptor over an inherited socketpair to another (`RendezvousCourier`). A room's
/// messages never leave its worker's thread, and no lock is taken for them.
///
/// Threading: made on the thread that runs worker 0's loop (the caller's); workers 1..<N run on
/// threads of their own, reached only through their loops' `invoke`.
public final class RendezvousWorkers {
    /// Where this process's workers sit among all of the rendezvous's.
    public struct Layout: Sendable {
        public var workers: Int
        public var process: Int
        public var processes: Int

        public init(workers: Int, process: Int = 0, processes: Int = 1) {
            (self.workers, self.process, self.processes) = (workers, process, processes)
        }

        var total: Int { workers * processes }
        var first: Int { process * workers }
        func isLocal(_ worker: Int) -> Bool { worker >= first && worker < first + workers }
    }

    /// One worker as the others reach it: its loop, and its server, touched only on that loop.
    final class Worker: @unchecked Sendable {
        let loop: EventLoop
        var server: RendezvousServer?
        var courier: RendezvousCourier?
        var broadcast: Timer?
        /// Worker 0's only: what to do once every worker has shut down.
        var onStopped: (() -> Void)?

        init(loop: EventLoop) { self.loop = loop }
    }

    public let port: UInt16
    private let workers: [Worker]
    private var threads: [pthread_t] = []

    /// Worker `layout.first` on `loop` (the caller's); the process's others on new threads.
    /// `makeServer(k, loop)` builds worker k's server (k counts over every process) on its own
    /// thread; `listen` has been called on none of them. `couriers` (with several processes)
    /// reach the other processes' workers.
    public init(layout: Layout, loop: EventLoop, endpoint: HostPort, couriers: RendezvousCourierEnds?,
                makeServer: @escaping @Sendable (_ worker: Int, _ loop: EventLoop) -> RendezvousServer) throws(GLibError) {
        let board = MetricsBoard(workers: layout.total)
        let shared = layout.total > 1
        let directory = WorkerDirectory()
        var workers = [Worker(loop: loop)]
        let first = makeServer(layout.first, loop)
        workers[0].server = first
        // Routing is in place before a worker listens: it takes connections from then on.
        Self.route(workers[0], index: layout.first, layout: layout, directory: directory)
        port = try first.listen(on: endpoint, reusePort: shared)
        let port = self.port
        if let couriers { workers[0].courier = Self.courier(for: workers[0], worker: layout.first, ends: couriers, board: board, layout: layout) }
        directory.register(workers[0], as: layout.first)
        // The others: each thread makes its loop, server and courier, listens, then says it is ready.
        let ready = Mutex<[Int: Result<Worker, GLibError>]>([:])
        var threads: [pthread_t] = []
        for local in 1..<max(1, layout.workers) {
            let index = layout.first + local
            threads.append(Self.spawn {
                let loop = EventLoop()
                let worker = Worker(loop: loop)
                worker.server = makeServer(index, loop)
                Self.route(worker, index: index, layout: layout, directory: directory)
                do throws(GLibError) {
                    _ = try worker.server!.listen(on: HostPort(host: endpoint.host, port: port), reusePort: true)
                    if let couriers { worker.courier = Self.courier(for: worker, worker: index, ends: couriers, board: board, layout: layout) }
                } catch {
                    ready.withLock { $0[local] = .failure(error) }
                    return
                }
                directory.register(worker, as: index)
                ready.withLock { $0[local] = .success(worker) }
                loop.run()
            })
        }
        while ready.withLock({ $0.count }) < layout.workers - 1 { usleep(1_000) }
        for local in 1..<max(1, layout.workers) {
            switch ready.withLock({ $0[local]! }) {
            case .failure(let error): throw error
            case .success(let worker): workers.append(worker)
            }
        }
        self.workers = workers
        self.threads = threads
        for (local, worker) in workers.enumerated() {
            let index = layout.first + local
            worker.loop.invoke {
                worker.server?.metricsBoard = board
                // Our figures to every other process, once a second, for their /v1/metrics.
                guard layout.processes > 1 else { return }
                worker.broadcast = worker.loop.schedule(every: .seconds(1)) {
                    guard worker.server != nil, let courier = worker.courier else { return false }
                    // What its ticker posted this second: the rooms are not counted twice.
                    let line = "m \(index) " + board.snapshot(of: index).encoded
                    for process in 0..<layout.processes where process != layout.process { courier.send(line, to: process * layout.workers) }
                    return true
                }
            }
        }
    }

    /// Sets worker `index`'s routing, on the thread that makes it, before it listens: a connection
    /// taken before routing was set was served where it landed, and its join refused as misrouted
    /// (seen: 1 run in 6 of the handover test with two processes of two workers).
    private static func route(_ worker: Worker, index: Int, layout: Layout, directory: WorkerDirectory) {
        worker.server?.routing = WorkerRouting(share: WorkerShare(index: index, count: layout.total)!) { fd, owner, transcript in
            if layout.isLocal(owner) {
                directory.deliver(fd, transcript: transcript, to: owner)
            } else if let courier = worker.courier {
                courier.send(fd, to: owner, transcript: transcript)
            } else {
                PolledWebSocket.endHandedOver(fd, transcript: transcript)  // no way to other processes
            }
        }
    }

    /// Worker `index`'s courier: descriptors are adopted by its server, figures posted to `board`
    /// (only other processes' workers': ours post their own).
    private static func courier(for worker: Worker, worker index: Int, ends: RendezvousCourierEnds, board: MetricsBoard,
                                layout: Layout) -> RendezvousCourier {
        RendezvousCourier(loop: worker.loop, ends: ends, worker: index) { descriptor, payload in
            if let descriptor {
                worker.server?.adopt(descriptor, transcript: RendezvousCourier.transcript(in: payload))
                return
            }
            let text = String(decoding: payload, as: UTF8.self)
            if text.hasPrefix("m ") {
                let fields = text.dropFirst(2).split(separator: " ", maxSplits: 1)
                guard fields.count == 2, let from = Int(fields[0]), from >= 0, from < board.count, !layout.isLocal(from),
                      let snapshot = RendezvousMetricsSnapshot(encoded: String(fields[1])) else { return }
                board.post(snapshot, from: from)
            }
        }
    }
    /// Shuts every worker's server down (as `RendezvousServer.shutdown`), then calls `done`.
    /// Called on worker 0's loop, where `done` runs too.
    public func shutdown(reason: String, endRooms: Bool, done: @escaping () -> Void) {
        let remaining = Mutex(workers.count)
        let first = workers[0]
        first.onStopped = done
        for worker in workers {
            worker.loop.invoke {
                guard let server = worker.server else { return }
                server.shutdown(reason: reason, endRooms: endRooms) {
                    let last = remaining.withLock { count -> Bool in
                        count -= 1
                        return count == 0
                    }
                    if last { first.loop.invoke { first.onStopped?() } }
                }
            }
        }
    }

    deinit {
        for worker in workers { worker.loop.invoke { worker.broadcast?.cancel() } }
        for worker in workers.dropFirst() { worker.loop.quit() }
        for thread in threads { pthread_join(thread, nil) }
    }

    private final class ThreadBody: @unchecked Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    private static func spawn(_ body: @escaping @Sendable () -> Void) -> pthread_t {
        var thread = pthread_t()
        let box = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        pthread_create(&thread, nil, { pointer in
            let body = Unmanaged<ThreadBody>.fromOpaque(pointer!).takeRetainedValue()
            body.body()
            return nil
        }, box)
        return thread
    }
}

/// This process's workers as they become ready, for handing connections between them. A worker
/// takes connections as soon as it listens, while the process's later workers are still being
/// made: a connection for one not ready yet waits here until it is.
final class WorkerDirectory: Sendable {
    private struct State {
        var ready: [Int: RendezvousWorkers.Worker] = [:]
        var waiting: [Int: [(fd: Int32, transcript: [UInt8]?)]] = [:]
    }
    private let state = Mutex(State())

    /// Worker `index` is ready; what waited for it goes to its loop.
    func register(_ worker: RendezvousWorkers.Worker, as index: Int) {
        let waited = state.withLock { state in
            state.ready[index] = worker
            return state.waiting.removeValue(forKey: index) ?? []
        }
        for (fd, transcript) in waited { worker.loop.invoke { worker.server?.adopt(fd, transcript: transcript) } }
    }

    /// Gives `fd` to worker `index` on its loop, now or once it is ready.
    func deliver(_ fd: Int32, transcript: [UInt8]?, to index: Int) {
        let worker = state.withLock { state -> RendezvousWorkers.Worker? in
            if let worker = state.ready[index] { return worker }
            state.waiting[index, default: []].append((fd, transcript))
            return nil
        }
        guard let worker else { return }
        worker.loop.invoke { worker.server?.adopt(fd, transcript: transcript) }
    }
}

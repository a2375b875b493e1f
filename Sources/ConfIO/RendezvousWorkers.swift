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
/// worker is handed to the owner before its WebSocket opens (`WorkerRouting`): through the owner's
/// loop in this process, as a descriptor over a Unix socket to another (`RendezvousCourier`). A
/// room's messages never leave its worker's thread, and no lock is taken for them.
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
    /// thread; `listen` has been called on none of them.
    public init(layout: Layout, loop: EventLoop, endpoint: HostPort,
                makeServer: @escaping @Sendable (_ worker: Int, _ loop: EventLoop) -> RendezvousServer) throws(GLibError) {
        let board = MetricsBoard(workers: layout.total)
        let shared = layout.total > 1
        var workers = [Worker(loop: loop)]
        let first = makeServer(layout.first, loop)
        workers[0].server = first
        port = try first.listen(on: endpoint, reusePort: shared)
        let port = self.port
        if shared { workers[0].courier = try Self.courier(for: workers[0], worker: layout.first, port: port, board: board, layout: layout) }
        // The others: each thread makes its loop, server and courier, listens, then says it is ready.
        let ready = Mutex<[Int: Result<Worker, GLibError>]>([:])
        var threads: [pthread_t] = []
        for local in 1..<max(1, layout.workers) {
            let index = layout.first + local
            threads.append(Self.spawn {
                let loop = EventLoop()
                let worker = Worker(loop: loop)
                worker.server = makeServer(index, loop)
                do throws(GLibError) {
                    _ = try worker.server!.listen(on: HostPort(host: endpoint.host, port: port), reusePort: true)
                    worker.courier = try Self.courier(for: worker, worker: index, port: port, board: board, layout: layout)
                } catch {
                    ready.withLock { $0[local] = .failure(error) }
                    return
                }
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
        let all = workers
        for (local, worker) in workers.enumerated() {
            let index = layout.first + local
            let share = WorkerShare(index: index, count: layout.total)!
            worker.loop.invoke {
                worker.server?.metricsBoard = board
                worker.server?.routing = WorkerRouting(share: share) { fd, owner in
                    if layout.isLocal(owner) {
                        let target = all[owner - layout.first]
                        target.loop.invoke { target.server?.adopt(fd) }
                    } else {
                        worker.courier?.send(fd, to: owner)
                    }
                }
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

    /// Worker `index`'s courier: descriptors are adopted by its server, figures posted to `board`
    /// (only other processes' workers': ours post their own).
    private static func courier(for worker: Worker, worker index: Int, port: UInt16, board: MetricsBoard,
                                layout: Layout) throws(GLibError) -> RendezvousCourier {
        try RendezvousCourier(loop: worker.loop, port: port, worker: index) { descriptor, text in
            if let descriptor {
                worker.server?.adopt(descriptor)
            } else if text.hasPrefix("m ") {
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

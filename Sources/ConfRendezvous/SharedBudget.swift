import Synchronization

/// Places the rendezvous workers of one process share: its connections (`ConnectionAdmission`)
/// and its rooms (`RendezvousCore`). Rooms are spread over the workers by their ids, and a room's
/// connections are served by its worker, so one worker may hold more than an even share while
/// another holds fewer: a fixed share each refused (and evicted) real clients on the fuller
/// worker with most of the process's descriptors unused.
///
/// Threading: any worker's thread; one lock, held for an addition.
public final class SharedBudget: Sendable {
    public let capacity: Int
    private let held = Mutex(0)

    public init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Places held now, by every worker.
    public var inUse: Int { held.withLock { $0 } }

    /// Takes a place; false when all are held.
    func take() -> Bool {
        held.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    func release() {
        held.withLock { count in
            assert(count > 0, "a place released twice")
            count = max(0, count - 1)
        }
    }
}

internal import CGLib
internal import CConfShims
import ConfCore

/// A callback run at a time that moves: `wake(at:)` sets the next one, and after it runs it waits
/// for the next `wake(at:)`. For a driver that sleeps until its engine's next deadline rather than
/// on a fixed tick; moving the time costs a field write (no wakeup of the loop, unlike a GLib
/// timeout re-armed), so it may be set after every input. Fires up to 1 ms late (poll(2) counts
/// milliseconds).
///
/// Time: deadlines are on the system's monotonic clock (`SystemClock`, CLOCK_MONOTONIC), as the
/// source reads it, whatever clock the loop gives its users.
/// Threading: the event loop thread only (the deadline is read by the loop's next iteration).
public final class DeadlineTimer {
    private var source: UnsafeMutablePointer<GSource>?

    init(context: OpaquePointer, _ body: @escaping () -> Void) {
        let source = conf_deadline_source_new()
        let box = Unmanaged.passRetained(CallbackBox { body(); return true }).toOpaque()
        g_source_set_callback(source, runCallbackBox, box, releaseCallbackBox)
        g_source_attach(source, context)
        self.source = source
    }

    deinit { cancel() }

    /// Runs the callback once `deadline` has come (at once if it has passed); nil: not until set again.
    public func wake(at deadline: Instant?) {
        guard let source else { return }
        conf_deadline_source_set(source, deadline.map { guint64($0.nanoseconds) } ?? .max)
    }

    public func cancel() {
        guard let source else { return }
        g_source_destroy(source)
        g_source_unref(source)
        self.source = nil
    }
}

extension EventLoop {
    /// A `DeadlineTimer` on this loop, not armed until `wake(at:)`.
    public func deadlineTimer(_ body: @escaping () -> Void) -> DeadlineTimer {
        DeadlineTimer(context: context, body)
    }
}

internal import CGLib
internal import CConfShims
import ConfCore
#if canImport(Glibc)
import Glibc
#endif

/// A GLib main context and loop: the one thread that owns all call state (DESIGN.md, "Inside the
/// program"). libsoup, and later libnice, call back on the thread running it.
///
/// Threading: create the loop, create the objects that use it, and call `run()` all on one thread.
/// The context is made thread-default on that thread at `init`, so libsoup objects made there
/// attach to it. Only `invoke(_:)` and `quit()` may be called from other threads.
///
/// Time: `clock` is where everything on the loop reads "now" (the system's monotonic clock unless
/// a test gives another); timers fire after real delays.
public final class EventLoop: @unchecked Sendable {
    let context: OpaquePointer
    private let loop: OpaquePointer
    public let clock: any MonotonicClock

    public init(clock: any MonotonicClock = SystemClock()) {
        self.clock = clock
        context = g_main_context_new()
        loop = g_main_loop_new(context, 0)
        g_main_context_push_thread_default(context)
    }

    deinit {
        g_main_context_pop_thread_default(context)
        g_main_loop_unref(loop)
        g_main_context_unref(context)
    }

    /// Runs until `quit()`.
    public func run() { g_main_loop_run(loop) }

    public func quit() { g_main_loop_quit(loop) }

    /// Whether the calling thread is the one running this loop.
    var isCurrentThread: Bool { g_main_context_is_owner(context) != 0 }

    /// Runs `body` on the loop thread soon; safe from any thread.
    public func invoke(_ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(CallbackBox { body(); return false }).toOpaque()
        g_main_context_invoke_full(context, G_PRIORITY_DEFAULT, runCallbackBox, box, releaseCallbackBox)
    }

    /// Calls `body` after `delay`, again every `delay` while it returns true.
    @discardableResult
    public func schedule(every delay: Duration, _ body: @escaping () -> Bool) -> Timer {
        let ms = UInt32(clamping: max(0, delay.nanosecondsClamped / 1_000_000))
        return attach(g_timeout_source_new(ms), body)
    }

    /// Calls `body` once after `delay`.
    @discardableResult
    public func schedule(after delay: Duration, _ body: @escaping () -> Void) -> Timer {
        schedule(every: delay) { body(); return false }
    }

    /// Calls `body` on the loop thread each time the process receives `signal` (SIGINT, SIGTERM,
    /// SIGHUP); GLib turns the signal into an event, so `body` may do anything.
    ///
    /// The signal is unblocked on the calling thread first: a parent (a test runner, a supervisor)
    /// may have started us with it blocked, and then it would never arrive.
    @discardableResult
    public func onSignal(_ signal: Int32, _ body: @escaping () -> Void) -> Timer {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, signal)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
        return attach(g_unix_signal_source_new(signal), { body(); return true })
    }

    /// Whether `signal` is ignored now: asked before `onSignal` takes it, whether it was ignored
    /// when we started (`nohup` leaves SIGHUP so), which `onSignal` would undo.
    public static func isIgnored(_ signal: Int32) -> Bool { conf_signal_is_ignored(signal) != 0 }

    /// Calls `body` on the loop thread whenever `fd` is readable (or hung up, or in error), until
    /// it returns false or the returned Timer is cancelled.
    @discardableResult
    public func watch(fd: Int32, _ body: @escaping () -> Bool) -> Timer {
        let source = g_unix_fd_source_new(fd, GIOCondition(rawValue: G_IO_IN.rawValue | G_IO_HUP.rawValue | G_IO_ERR.rawValue))
        let box = Unmanaged.passRetained(CallbackBox(body)).toOpaque()
        g_source_set_callback(source, unsafeBitCast(runFDCallbackBox, to: GSourceFunc.self), box, releaseCallbackBox)
        g_source_attach(source, context)
        return Timer(source: source)
    }

    private func attach(_ source: UnsafeMutablePointer<GSource>!, _ body: @escaping () -> Bool) -> Timer {
        let box = Unmanaged.passRetained(CallbackBox(body)).toOpaque()
        g_source_set_callback(source, runCallbackBox, box, releaseCallbackBox)
        g_source_attach(source, context)
        return Timer(source: source)
    }
}

/// A scheduled callback; `cancel()` stops it. Dropping a Timer does not cancel it.
public final class Timer {
    private var source: UnsafeMutablePointer<GSource>?

    init(source: UnsafeMutablePointer<GSource>?) { self.source = source }

    deinit { if let source { g_source_unref(source) } }

    /// Only on the loop thread.
    public func cancel() {
        guard let source else { return }
        g_source_destroy(source)
        g_source_unref(source)
        self.source = nil
    }
}

final class CallbackBox {
    let body: () -> Bool
    init(_ body: @escaping () -> Bool) { self.body = body }
}

/// GSourceFunc over a `CallbackBox` (its data), for every source on the loop.
let runCallbackBox: GSourceFunc = { data in
    Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue().body() ? 1 : 0
}

/// GUnixFDSourceFunc: (fd, condition, user data) -> gboolean.
private let runFDCallbackBox: @convention(c) (Int32, UInt32, UnsafeMutableRawPointer?) -> Int32 = { _, _, data in
    Unmanaged<CallbackBox>.fromOpaque(data!).takeUnretainedValue().body() ? 1 : 0
}

let releaseCallbackBox: GDestroyNotify = { data in
    Unmanaged<CallbackBox>.fromOpaque(data!).release()
}

/// The system's monotonic clock (CLOCK_MONOTONIC).
public struct SystemClock: MonotonicClock {
    public init() {}
    public func now() -> Instant { Instant(nanoseconds: UInt64(conf_monotonic_ns())) }
}

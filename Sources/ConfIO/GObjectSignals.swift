internal import CGLib

/// Connects `handler` (a `@convention(c)` function whose signature matches the signal's, copied
/// from the header: the cast is unchecked) to `signal` on `instance`, with `box` as user data.
/// The box is retained until the handler is disconnected or the instance finalized.
func connectSignal<Handler>(_ instance: UnsafeMutableRawPointer, _ signal: String, _ handler: Handler, box: AnyObject) {
    let data = Unmanaged.passRetained(box).toOpaque()
    g_signal_connect_data(instance, signal, unsafeBitCast(handler, to: GCallback.self), data,
                          { data, _ in Unmanaged<AnyObject>.fromOpaque(data!).release() }, GConnectFlags(rawValue: 0))
}

/// A GBytes' contents as a String if it is valid UTF-8.
func string(fromBytes bytes: OpaquePointer?) -> String? {
    guard let bytes else { return nil }
    var size: Int = 0
    guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return "" }
    return String(validating: UnsafeRawBufferPointer(start: data, count: size).bindMemory(to: UInt8.self), as: UTF8.self)
}

/// The continuation of a GIO asynchronous call: passed retained as its user data, run once by
/// `onAsyncReady` with the source object and the result.
final class AsyncBox {
    let body: (OpaquePointer?, OpaquePointer?) -> Void
    init(_ body: @escaping (OpaquePointer?, OpaquePointer?) -> Void) { self.body = body }
}

// GAsyncReadyCallback: (GObject *source, GAsyncResult *result, gpointer data). Runs the box once.
let onAsyncReady: GAsyncReadyCallback = { source, result, data in
    let box = Unmanaged<AsyncBox>.fromOpaque(data!).takeRetainedValue()
    box.body(OpaquePointer(source), result)
}

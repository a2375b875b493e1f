internal import CPulse
import ConfCore

/// Why PulseAudio could not be used, in words a user can act on.
public struct PulseError: Error, Sendable, CustomStringConvertible {
    public enum Kind: Sendable { case noServer, noDevice, failed }
    public var kind: Kind
    public var description: String
}

/// A connection to the PulseAudio server through the asynchronous API on its threaded main loop.
///
/// Threading: PulseAudio calls back on its own thread. Every call into libpulse from elsewhere
/// holds the main loop's lock (`withLock`); callbacks run with it held already.
public final class PulseConnection: @unchecked Sendable {
    let mainloop: OpaquePointer
    let context: OpaquePointer

    public init(applicationName: String = "conf") throws(PulseError) {
        mainloop = pa_threaded_mainloop_new()
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, PA_PROP_APPLICATION_NAME, applicationName)
        pa_proplist_sets(properties, PA_PROP_APPLICATION_ID, "org.conf.conf")
        context = pa_context_new_with_proplist(pa_threaded_mainloop_get_api(mainloop), applicationName, properties)
        pa_proplist_free(properties)
        pa_context_set_state_callback(context, signalMainloop, UnsafeMutableRawPointer(mainloop))
        pa_threaded_mainloop_lock(mainloop)
        pa_threaded_mainloop_start(mainloop)
        var failure: String?
        if pa_context_connect(context, nil, PA_CONTEXT_NOAUTOSPAWN, nil) < 0 {
            failure = String(cString: pa_strerror(pa_context_errno(context)))
        } else {
            while true {
                let state = pa_context_get_state(context)
                if state == PA_CONTEXT_READY { break }
                if state == PA_CONTEXT_FAILED || state == PA_CONTEXT_TERMINATED {
                    failure = String(cString: pa_strerror(pa_context_errno(context)))
                    break
                }
                pa_threaded_mainloop_wait(mainloop)
            }
        }
        pa_threaded_mainloop_unlock(mainloop)
        // deinit runs even when init throws here (every stored property is set), and cleans up.
        if let failure { throw PulseError(kind: .noServer, description: "cannot connect to PulseAudio: \(failure)") }
    }

    deinit {
        pa_threaded_mainloop_lock(mainloop)
        pa_context_disconnect(context)
        pa_context_unref(context)
        pa_threaded_mainloop_unlock(mainloop)
        pa_threaded_mainloop_stop(mainloop)
        pa_threaded_mainloop_free(mainloop)
    }

    func withLock<T>(_ body: () throws(PulseError) -> T) throws(PulseError) -> T {
        pa_threaded_mainloop_lock(mainloop)
        defer { pa_threaded_mainloop_unlock(mainloop) }
        return try body()
    }

    /// Waits (lock held) until `operation` completes, then releases it.
    func wait(for operation: OpaquePointer?) {
        guard let operation else { return }
        while pa_operation_get_state(operation) == PA_OPERATION_RUNNING { pa_threaded_mainloop_wait(mainloop) }
        pa_operation_unref(operation)
    }

    public struct Device: Sendable, Equatable {
        public var name: String
        public var description: String
        /// A sink's monitor source, not a microphone.
        public var isMonitor: Bool
        /// The server's default source or sink (what `pulse` with no name uses).
        public var isDefault = false
    }

    /// Sources (microphones, and monitors of sinks) and sinks (speakers).
    public func devices() throws(PulseError) -> (sources: [Device], sinks: [Device]) {
        let box = DeviceBox(mainloop: mainloop)
        try withLock { () throws(PulseError) in
            wait(for: pa_context_get_source_info_list(context, onSourceInfo, Unmanaged.passUnretained(box).toOpaque()))
            wait(for: pa_context_get_sink_info_list(context, onSinkInfo, Unmanaged.passUnretained(box).toOpaque()))
            wait(for: pa_context_get_server_info(context, onServerInfo, Unmanaged.passUnretained(box).toOpaque()))
        }
        var sources = box.sources, sinks = box.sinks
        for index in sources.indices { sources[index].isDefault = sources[index].name == box.defaultSource }
        for index in sinks.indices { sinks[index].isDefault = sinks[index].name == box.defaultSink }
        return (sources, sinks)
    }
}

final class DeviceBox {
    let mainloop: OpaquePointer
    var sources: [PulseConnection.Device] = []
    var sinks: [PulseConnection.Device] = []
    var defaultSource: String?
    var defaultSink: String?
    init(mainloop: OpaquePointer) { self.mainloop = mainloop }
}

/// pa_context_notify_cb_t and friends: wake whoever waits on the main loop.
let signalMainloop: @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void = { _, mainloop in
    pa_threaded_mainloop_signal(OpaquePointer(mainloop), 0)
}

private let onSourceInfo: pa_source_info_cb_t = { _, info, eol, data in
    let box = Unmanaged<DeviceBox>.fromOpaque(data!).takeUnretainedValue()
    if eol != 0 {
        pa_threaded_mainloop_signal(box.mainloop, 0)
        return
    }
    guard let info else { return }
    box.sources.append(.init(name: String(cString: info.pointee.name), description: String(cString: info.pointee.description),
                             isMonitor: info.pointee.monitor_of_sink != UInt32.max))
}

private let onSinkInfo: pa_sink_info_cb_t = { _, info, eol, data in
    let box = Unmanaged<DeviceBox>.fromOpaque(data!).takeUnretainedValue()
    if eol != 0 {
        pa_threaded_mainloop_signal(box.mainloop, 0)
        return
    }
    guard let info else { return }
    box.sinks.append(.init(name: String(cString: info.pointee.name), description: String(cString: info.pointee.description), isMonitor: false))
}

private let onServerInfo: pa_server_info_cb_t = { _, info, data in
    let box = Unmanaged<DeviceBox>.fromOpaque(data!).takeUnretainedValue()
    defer { pa_threaded_mainloop_signal(box.mainloop, 0) }
    guard let info else { return }
    box.defaultSource = info.pointee.default_source_name.map { String(cString: $0) }
    box.defaultSink = info.pointee.default_sink_name.map { String(cString: $0) }
}

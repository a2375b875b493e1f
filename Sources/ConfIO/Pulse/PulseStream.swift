internal import CPulse
import ConfCore

/// A PulseAudio stream of 48 kHz mono 16-bit audio, for capture (the microphone) or playback (one
/// remote participant), with about 20 ms of buffering.
///
/// Capture: PulseAudio's thread fills `ring`; the event loop reads 20 ms frames from it.
/// Playback: the event loop writes decoded frames with `play(_:)` (briefly taking the main loop
/// lock); PulseAudio plays what it has and inserts silence when it runs dry.
/// A stream whose device vanishes ends; `hasFailed` tells, and the call goes on without it.
public final class PulseStream: @unchecked Sendable {
    public enum Direction: Sendable { case capture, playback }

    public let direction: Direction
    /// Captured samples, written on PulseAudio's thread (capture only).
    public let ring = AudioRing(capacity: 48_000)
    private let connection: PulseConnection
    private let stream: OpaquePointer
    private var box: Unmanaged<StreamBox>?

    /// `name` is what the desktop's mixer shows (media.name); `device` a source or sink name, or
    /// nil for the default.
    public init(_ connection: PulseConnection, direction: Direction, name: String, device: String?) throws(PulseError) {
        self.connection = connection
        self.direction = direction
        var spec = pa_sample_spec(format: PA_SAMPLE_S16LE, rate: 48_000, channels: 1)
        let properties = pa_proplist_new()
        pa_proplist_sets(properties, PA_PROP_MEDIA_NAME, name)
        pa_proplist_sets(properties, PA_PROP_MEDIA_ROLE, "phone")
        if direction == .capture { pa_proplist_sets(properties, "filter.want", "echo-cancel") }
        let created: OpaquePointer? = try connection.withLock { () throws(PulseError) in
            pa_stream_new_with_proplist(connection.context, name, &spec, nil, properties)
        }
        pa_proplist_free(properties)
        guard let created else { throw PulseError(kind: .failed, description: "cannot create a PulseAudio stream") }
        stream = created
        let box = Unmanaged.passRetained(StreamBox(ring: ring, mainloop: connection.mainloop))
        self.box = box
        let frameBytes = UInt32(960 * 2)
        var attributes = pa_buffer_attr(maxlength: UInt32.max, tlength: frameBytes * 3, prebuf: frameBytes, minreq: frameBytes / 2,
                                        fragsize: frameBytes)
        var failure: String?
        try connection.withLock { () throws(PulseError) in
            pa_stream_set_state_callback(stream, onStreamState, box.toOpaque())
            let flags = PA_STREAM_ADJUST_LATENCY
            let result: Int32
            if direction == .capture {
                pa_stream_set_read_callback(stream, onReadable, box.toOpaque())
                result = pa_stream_connect_record(stream, device, &attributes, flags)
            } else {
                result = pa_stream_connect_playback(stream, device, &attributes, flags, nil, nil)
            }
            if result < 0 { failure = String(cString: pa_strerror(pa_context_errno(connection.context))) }
            while failure == nil {
                let state = pa_stream_get_state(stream)
                if state == PA_STREAM_READY { break }
                if state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED {
                    failure = String(cString: pa_strerror(pa_context_errno(connection.context)))
                    break
                }
                pa_threaded_mainloop_wait(connection.mainloop)
            }
        }
        if let failure {
            close()
            let what = direction == .capture ? "source" : "sink"
            throw PulseError(kind: .noDevice, description: "cannot open the PulseAudio \(what) \(device.map { "'\($0)'" } ?? "(default)"): \(failure)"
                             + " — `conf devices` lists the names")
        }
    }

    deinit { close() }

    /// Whether the stream ended under us (its device vanished, or the server went away).
    public var hasFailed: Bool {
        (try? connection.withLock { () throws(PulseError) in
            let state = pa_stream_get_state(stream)
            return state == PA_STREAM_FAILED || state == PA_STREAM_TERMINATED
        }) ?? true
    }

    /// Queues one frame for playback.
    public func play(_ samples: [Int16]) {
        guard direction == .playback, box != nil else { return }
        _ = try? connection.withLock { () throws(PulseError) in
            guard pa_stream_get_state(stream) == PA_STREAM_READY else { return }
            samples.withUnsafeBytes { _ = pa_stream_write(stream, $0.baseAddress, $0.count, nil, 0, PA_SEEK_RELATIVE) }
        }
    }

    public func close() {
        guard let box else { return }
        self.box = nil
        _ = try? connection.withLock { () throws(PulseError) in
            pa_stream_set_state_callback(stream, nil, nil)
            pa_stream_set_read_callback(stream, nil, nil)
            pa_stream_disconnect(stream)
            pa_stream_unref(stream)
        }
        box.release()
    }
}

final class StreamBox {
    let ring: AudioRing
    let mainloop: OpaquePointer
    init(ring: AudioRing, mainloop: OpaquePointer) {
        self.ring = ring
        self.mainloop = mainloop
    }
}

private let onStreamState: pa_stream_notify_cb_t = { _, data in
    let box = Unmanaged<StreamBox>.fromOpaque(data!).takeUnretainedValue()
    pa_threaded_mainloop_signal(box.mainloop, 0)
}

/// PulseAudio's thread: move what was captured into the ring. Never blocks.
private let onReadable: pa_stream_request_cb_t = { stream, _, data in
    let box = Unmanaged<StreamBox>.fromOpaque(data!).takeUnretainedValue()
    var bytes: UnsafeRawPointer?
    var count = 0
    while pa_stream_readable_size(stream) > 0 {
        guard pa_stream_peek(stream, &bytes, &count) == 0, count > 0 else { return }
        if let bytes {
            box.ring.write(UnsafeBufferPointer(start: bytes.assumingMemoryBound(to: Int16.self), count: count / 2))
        }  // nil with a count is a hole: skip it
        pa_stream_drop(stream)
    }
}

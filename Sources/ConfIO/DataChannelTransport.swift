internal import CSCTPShims
import ConfCore
import ConfWire

/// WebRTC data channels (RFC 8831) for one peer: an SCTP association (usrsctp) whose packets ride
/// inside DTLS, channels opened with DCEP (RFC 8832). Text messages only, which is all chat needs.
///
/// Stream ids: the DTLS client opens even streams, the server odd ones (RFC 8832 section 6).
/// Closing a channel resets its stream both ways (RFC 8831 section 6.7): whoever closes resets
/// its outgoing stream; the other side sees its incoming stream reset, reports the channel closed
/// and resets its own outgoing stream, which tells the first side the close is complete.
/// Threading: the event loop thread. usrsctp calls back from inside our calls into it; anything
/// that would call into usrsctp again from there is deferred to the loop.
public final class DataChannelTransport {
    public var onOpen: ((String) -> Void)?
    /// A text message on the channel with this label.
    public var onMessage: ((String, String) -> Void)?
    /// The channel with this label was closed: by the peer, or by `close(label:)` once the peer
    /// has closed its side too. Sending on it fails from then on.
    public var onChannelClosed: ((String) -> Void)?
    /// The whole SCTP association ended (the peer aborted or shut it down); every channel with it.
    public var onAssociationClosed: (() -> Void)?

    private let loop: EventLoop
    private let isDTLSClient: Bool
    private let output: ([UInt8]) -> Void
    private var sctp: OpaquePointer?
    private var box: Unmanaged<SCTPBox>?
    private var channels: [UInt16: String] = [:]
    /// Channels we closed whose stream the peer has not reset yet.
    private var closing: [UInt16: String] = [:]
    private var nextStream: UInt16
    private var pendingOpens: [String] = []
    private var isUp = false
    private var associationEnded = false
    /// usrsctp's timers are process-wide; one ticker drives them. Touched only on the loop thread
    /// (conf runs one event loop per process).
    nonisolated(unsafe) private static var timer: Timer?

    public init(loop: EventLoop, isDTLSClient: Bool, output: @escaping ([UInt8]) -> Void) {
        self.loop = loop
        self.isDTLSClient = isDTLSClient
        self.output = output
        nextStream = isDTLSClient ? 0 : 1
        Self.startLibrary(loop)
        let box = Unmanaged.passRetained(SCTPBox(self))
        self.box = box
        sctp = conf_sctp_new(box.toOpaque(), 5000, onOutput, onSCTPMessage, onSCTPEvent, onSCTPStreamReset)
    }

    deinit { release(tellingPeer: false) }

    /// usrsctp once per process, its timers on the loop every 10 ms, told the time elapsed on the
    /// loop's clock.
    private static func startLibrary(_ loop: EventLoop) {
        guard timer == nil else { return }
        conf_sctp_library_init()
        let clock = loop.clock
        var last = clock.now()
        timer = loop.schedule(every: .milliseconds(10)) {
            let now = clock.now()
            let elapsed = UInt32(clamping: now.since(last).nanosecondsClamped / 1_000_000)
            if elapsed > 0 {
                conf_sctp_handle_timers(elapsed)
                last = last + .milliseconds(Int64(elapsed))
            }
            return true
        }
    }

    /// Both ends connect (SCTP handles the simultaneous open).
    public func connect(remotePort: UInt16) {
        guard let sctp else { return }
        _ = conf_sctp_connect(sctp, remotePort)
    }

    /// An SCTP packet that came out of DTLS. Queued to the loop: usrsctp must not be re-entered.
    public func receive(_ packet: [UInt8]) {
        loop.schedule(after: .zero) { [weak self] in
            guard let sctp = self?.sctp else { return }
            packet.withUnsafeBytes { conf_sctp_input(sctp, $0.baseAddress, $0.count) }
        }
    }

    /// Opens a reliable, ordered channel (now, or once the association is up).
    public func open(label: String) {
        guard isUp else { return pendingOpens.append(label) }
        let stream = nextStream
        nextStream += 2
        channels[stream] = label
        send(DCEPMessage.open(label: label, protocol: "", channelType: DCEPMessage.reliable, priority: 0, reliability: 0).bytes,
             stream: stream, ppid: DataChannelPPID.dcep)
        onOpen?(label)
    }

    /// Sends text on every open channel with this label; false if there is none.
    @discardableResult
    public func send(text: String, label: String) -> Bool {
        let streams = channels.filter { $0.value == label }.map(\.key)
        for stream in streams {
            let bytes = Array(text.utf8)
            send(bytes, stream: stream, ppid: bytes.isEmpty ? DataChannelPPID.emptyString : DataChannelPPID.string)
        }
        return !streams.isEmpty
    }

    /// Closes every channel with this label (RFC 8831 section 6.7); false if there is none.
    @discardableResult
    public func close(label: String) -> Bool {
        let streams = channels.filter { $0.value == label }.map(\.key)
        for stream in streams {
            channels[stream] = nil
            closing[stream] = label
            if let sctp { _ = conf_sctp_reset_stream(sctp, stream) }
        }
        return !streams.isEmpty
    }

    /// Ends the association, telling the peer (an SCTP ABORT goes out through `output` now).
    /// No callback follows.
    public func close() {
        release(tellingPeer: true)
    }

    private func release(tellingPeer: Bool) {
        guard let box else { return }
        // From deinit the box's unowned reference can no longer be read: the peer is not told.
        if tellingPeer { conf_sctp_close(sctp) }
        self.box = nil
        conf_sctp_free(sctp)
        sctp = nil
        channels.removeAll()
        closing.removeAll()
        box.release()
    }

    private func send(_ bytes: [UInt8], stream: UInt16, ppid: UInt32) {
        guard let sctp else { return }
        _ = bytes.withUnsafeBytes { conf_sctp_send(sctp, stream, ppid, $0.baseAddress, $0.count) }
    }

    // MARK: usrsctp events (called from inside usrsctp)

    fileprivate func packetOut(_ packet: [UInt8]) { output(packet) }

    fileprivate func message(stream: UInt16, ppid: UInt32, bytes: [UInt8]) {
        switch ppid {
        case DataChannelPPID.dcep:
            guard case .open(let label, _, _, _, _)? = DCEPMessage(bytes: bytes) else { return }
            channels[stream] = label
            loop.schedule(after: .zero) { [weak self] in
                self?.send(DCEPMessage.ack.bytes, stream: stream, ppid: DataChannelPPID.dcep)
                self?.onOpen?(label)
            }
        case DataChannelPPID.string, DataChannelPPID.emptyString:
            guard let label = channels[stream] else { return }
            let text = ppid == DataChannelPPID.emptyString ? "" : String(decoding: bytes, as: UTF8.self)
            loop.schedule(after: .zero) { [weak self] in self?.onMessage?(label, text) }
        default:
            break  // binary messages: not used by conf
        }
    }

    fileprivate func streamReset(_ stream: UInt16) {
        loop.schedule(after: .zero) { [weak self] in
            guard let self, let sctp = self.sctp else { return }
            if let label = self.channels.removeValue(forKey: stream) {
                // The peer closed it: close our side too, then report.
                _ = conf_sctp_reset_stream(sctp, stream)
                self.onChannelClosed?(label)
            } else if let label = self.closing.removeValue(forKey: stream) {
                self.onChannelClosed?(label)  // our close(label:), now complete
            }
        }
    }

    fileprivate func event(_ event: Int32) {
        loop.schedule(after: .zero) { [weak self] in
            guard let self, self.box != nil else { return }
            if event == Int32(CONF_SCTP_UP) {
                self.isUp = true
                let opens = self.pendingOpens
                self.pendingOpens.removeAll()
                for label in opens { self.open(label: label) }
            } else if event == Int32(CONF_SCTP_DOWN), !self.associationEnded {
                self.associationEnded = true
                self.isUp = false
                self.channels.removeAll()
                self.closing.removeAll()
                self.onAssociationClosed?()
            }
        }
    }
}

private final class SCTPBox {
    unowned let transport: DataChannelTransport
    init(_ transport: DataChannelTransport) { self.transport = transport }
}

private func transport(_ context: UnsafeMutableRawPointer?) -> DataChannelTransport {
    Unmanaged<SCTPBox>.fromOpaque(context!).takeUnretainedValue().transport
}

private let onOutput: conf_sctp_output_fn = { context, data, length in
    guard let data else { return }
    transport(context).packetOut(Array(UnsafeRawBufferPointer(start: data, count: length)))
}

private let onSCTPMessage: conf_sctp_message_fn = { context, stream, ppid, data, length in
    let bytes = data.map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
    transport(context).message(stream: stream, ppid: ppid, bytes: bytes)
}

private let onSCTPEvent: conf_sctp_event_fn = { context, event in
    transport(context).event(event)
}

private let onSCTPStreamReset: conf_sctp_stream_reset_fn = { context, stream in
    transport(context).streamReset(stream)
}

internal import CSCTPShims
import ConfCore
import ConfWire

/// WebRTC data channels (RFC 8831) for one peer: an SCTP association (usrsctp) whose packets ride
/// inside DTLS, channels opened with DCEP (RFC 8832). Text messages only, which is all chat needs.
///
/// Stream ids: the DTLS client opens even streams, the server odd ones (RFC 8832 section 6).
/// Threading: the event loop thread. usrsctp calls back from inside our calls into it; anything
/// that would call into usrsctp again from there is deferred to the loop.
public final class DataChannelTransport {
    public var onOpen: ((String) -> Void)?
    /// A text message on the channel with this label.
    public var onMessage: ((String, String) -> Void)?
    public var onClosed: (() -> Void)?

    private let loop: EventLoop
    private let isDTLSClient: Bool
    private let output: ([UInt8]) -> Void
    private var sctp: OpaquePointer?
    private var box: Unmanaged<SCTPBox>?
    private var channels: [UInt16: String] = [:]
    private var nextStream: UInt16
    private var pendingOpens: [String] = []
    private var isUp = false
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
        sctp = conf_sctp_new(box.toOpaque(), 5000, onOutput, onSCTPMessage, onSCTPEvent)
    }

    deinit { close() }

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

    public func close() {
        guard let box else { return }
        self.box = nil
        conf_sctp_free(sctp)
        sctp = nil
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

    fileprivate func event(_ event: Int32) {
        loop.schedule(after: .zero) { [weak self] in
            guard let self else { return }
            if event == Int32(CONF_SCTP_UP) {
                self.isUp = true
                let opens = self.pendingOpens
                self.pendingOpens.removeAll()
                for label in opens { self.open(label: label) }
            } else if event == Int32(CONF_SCTP_DOWN) {
                self.isUp = false
                self.onClosed?()
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

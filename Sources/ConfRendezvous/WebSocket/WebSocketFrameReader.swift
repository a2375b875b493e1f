import ConfCore

/// What a client sent, frame by frame reassembled into messages (RFC 6455 §5).
public enum WebSocketEvent: Equatable, Sendable {
    case text(String)
    case binary(byteCount: Int)
    case ping([UInt8])
    case pong
    /// The client's Close frame: its code (nil when the frame had no body) and reason.
    case close(code: UInt16?, reason: String)
    /// The client broke the protocol: close the connection with this code (1002 protocol error, 1007 invalid UTF-8, 1009 too big). Nothing follows it.
    case failure(code: UInt16, message: String)
}

/// A client's bytes in, its messages out (RFC 6455 §5.2-5.6, §7.4); sans-IO, the bytes hostile.
///
///     header ──control──> whole payload held (≤ 125 bytes) ──> ping / pong / close
///       │ data
///       └──> payload taken as it comes ──last byte──> FIN? ──yes──> text / binary
///                                                      └──no──> next header (a control frame may come between)
///
/// A data frame's payload is taken as soon as it arrives: a text message's is unmasked onto the
/// message, a binary one's only counted (the rendezvous has no use for binary). So what is held
/// stays under maxMessageBytes, plus a frame header, plus what the caller appended and has not yet
/// drained with next(). A message the header shows is too long fails there, before its payload.
public struct WebSocketFrameReader: Sendable {
    private let maxMessageBytes: Int
    /// What came off the socket; bytes before `readIndex` are consumed.
    private var input: [UInt8] = []
    private var readIndex = 0
    private var frame: FrameInProgress?
    private var message: MessageInProgress?
    /// After a failure or a Close nothing more is read.
    private var ended = false

    private struct FrameInProgress {
        let header: WebSocketFrame.Header
        var payloadTaken = 0
        var remaining: Int { header.payloadLength - payloadTaken }
    }

    private struct MessageInProgress {
        let isText: Bool
        var byteCount = 0
        /// A text message's payload so far, unmasked; empty for binary.
        var text: [UInt8] = []
    }

    /// Compaction moves the unread bytes down once this many are consumed and they are at least half.
    private static let compactAfter = 4_096
    /// An emptied input keeps its capacity up to this: a connection that once read a large burst
    /// should not hold it while idle among thousands of others.
    private static let capacityKept = 4_096

    public init(maxMessageBytes: Int) { self.maxMessageBytes = max(0, maxMessageBytes) }

    /// Bytes as they came off the socket.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !ended else { return }
        if readIndex == input.count {
            input.removeAll(keepingCapacity: input.capacity <= Self.capacityKept)
            readIndex = 0
        } else if readIndex >= Self.compactAfter && readIndex * 2 >= input.count {
            input.removeSubrange(..<readIndex)
            readIndex = 0
        }
        input.append(contentsOf: bytes)
    }

    public mutating func append(_ bytes: [UInt8]) { bytes.withUnsafeBytes { append($0) } }

    /// Bytes held that are not yet a whole event (for the caller's bounds).
    public var bufferedByteCount: Int { input.count - readIndex + (message?.text.count ?? 0) }

    /// The next complete event, or nil until more bytes come. After .failure or .close, always nil.
    public mutating func next() -> WebSocketEvent? {
        guard !ended else { return nil }
        while true {
            if frame == nil {
                let read = readHeader()
                switch read {
                case .needMore: return nil
                case .violation(let code, let message): return end(.failure(code: code, message: message))
                case .header(let header):
                    readIndex += header.byteCount
                    frame = FrameInProgress(header: header)
                    if header.opcode == WebSocketFrame.Opcode.text || header.opcode == WebSocketFrame.Opcode.binary {
                        message = MessageInProgress(isText: header.opcode == WebSocketFrame.Opcode.text)
                    }
                }
            }
            guard let current = frame else { return nil }
            if current.header.isControl {
                guard input.count - readIndex >= current.remaining else { return nil }
                let payload = takePayload(current.remaining, of: current)
                frame = nil
                return controlEvent(current.header.opcode, payload: payload)
            }
            takeData(of: current)
            guard let taken = frame, taken.remaining == 0 else { return nil }
            frame = nil
            if taken.header.fin, let event = endMessage() { return event }
        }
    }

    private func readHeader() -> WebSocketFrame.HeaderRead {
        let taken = message?.byteCount ?? 0
        return input.withUnsafeBytes { all in
            WebSocketFrame.readHeader(UnsafeRawBufferPointer(rebasing: all[readIndex...]), messageOpen: message != nil,
                                      dataRoom: maxMessageBytes - taken, limit: maxMessageBytes)
        }
    }

    /// The next `count` payload bytes of `frame`, unmasked.
    private mutating func takePayload(_ count: Int, of frame: FrameInProgress) -> [UInt8] {
        var payload = Array(input[readIndex..<readIndex + count])
        payload.withUnsafeMutableBytes { WebSocketFrame.unmask($0, key: frame.header.maskKey, phase: frame.payloadTaken) }
        readIndex += count
        return payload
    }

    /// Takes what has arrived of a data frame's payload onto the message.
    private mutating func takeData(of current: FrameInProgress) {
        let count = min(input.count - readIndex, current.remaining)
        guard count > 0, var open = message else { return }
        message = nil  // so that appending to `open.text` does not copy it
        if open.isText {
            let start = open.text.count
            open.text.append(contentsOf: input[readIndex..<readIndex + count])
            open.text.withUnsafeMutableBytes { text in
                WebSocketFrame.unmask(UnsafeMutableRawBufferPointer(rebasing: text[start...]), key: current.header.maskKey, phase: current.payloadTaken)
            }
        }
        open.byteCount += count
        message = open
        readIndex += count
        frame?.payloadTaken += count
    }

    /// The message a final frame completed; a text message's UTF-8 is checked whole, so a
    /// character may span fragments (§5.6).
    private mutating func endMessage() -> WebSocketEvent? {
        guard let done = message else { return nil }
        message = nil
        guard done.isText else { return .binary(byteCount: done.byteCount) }
        guard let text = done.text.withUnsafeBufferPointer(String.init(validUTF8:)) else {
            return end(.failure(code: 1007, message: "A text message is not valid UTF-8 (RFC 6455 section 8.1)."))
        }
        return .text(text)
    }

    private mutating func controlEvent(_ opcode: UInt8, payload: [UInt8]) -> WebSocketEvent {
        switch opcode {
        case WebSocketFrame.Opcode.ping: return .ping(payload)
        case WebSocketFrame.Opcode.pong: return .pong
        default: return end(Self.closeEvent(payload))
        }
    }

    /// A Close frame's body (§5.5.1): nothing, or a code and a UTF-8 reason.
    private static func closeEvent(_ payload: [UInt8]) -> WebSocketEvent {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { return .failure(code: 1002, message: "A Close frame's body is one byte, too short for a code.") }
        let code = UInt16(payload[0]) << 8 | UInt16(payload[1])
        // §7.4: 1004 is reserved; 1005, 1006 and 1015 only ever stand for a missing code; 0-999 and
        // 2000-2999 are not used; 3000-4999 are for libraries and applications. 1012-1014 were
        // registered with IANA since (service restart, try again later, bad gateway).
        guard (1000...1003).contains(code) || (1007...1014).contains(code) || (3000...4999).contains(code) else {
            return .failure(code: 1002, message: "A Close frame carries a code that may not be sent (RFC 6455 section 7.4).")
        }
        guard let reason = String(validating: payload[2...], as: UTF8.self) else {
            return .failure(code: 1007, message: "A Close frame's reason is not valid UTF-8.")
        }
        return .close(code: code, reason: reason)
    }

    /// The last event: drops everything held.
    private mutating func end(_ event: WebSocketEvent) -> WebSocketEvent {
        ended = true
        input = []
        readIndex = 0
        frame = nil
        message = nil
        return event
    }
}

/// The transport-wide sequence number header extension
/// (draft-holmer-rmcat-transport-wide-cc-extensions-01 section 2): one counter for every RTP
/// packet a sender puts on a transport, whatever its stream, so that the receiver's
/// `TransportFeedback` can say which packets arrived and when.
///
/// As an RFC 8285 one-byte element (L = 1, two bytes of data):
///
///      0                   1                   2
///      0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///     |  ID   | L=1   |transport-wide sequence number |
///     +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
///
/// `RTPPacket.extensions.data(id)` holds the data bytes (big-endian), without the ID/L byte.
public struct TransportSequenceNumber: Equatable, Sendable {
    /// The extension's name in `a=extmap`.
    public static let uri = "http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01"

    public var sequence: SequenceNumber

    public init(_ sequence: SequenceNumber) { self.sequence = sequence }

    /// Nil unless the element carries exactly two bytes: a longer one is another extension
    /// (transport-wide-cc-02 adds a feedback request) sent under a mismatched id.
    public init?(_ bytes: ArraySlice<UInt8>) {
        guard bytes.count == 2, let high = bytes.first, let low = bytes.last else { return nil }
        sequence = SequenceNumber(UInt16(high) << 8 | UInt16(low))
    }

    public init?(_ bytes: [UInt8]) { self.init(bytes[...]) }

    public var bytes: [UInt8] { [UInt8(sequence.rawValue >> 8), UInt8(sequence.rawValue & 0xFF)] }
}

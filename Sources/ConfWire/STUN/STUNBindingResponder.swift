/// Answers STUN Binding requests as a public STUN server does (RFC 8489 sections 6.3 and 12): the
/// success response tells the client the address its request came from, in XOR-MAPPED-ADDRESS.
/// Bytes in, bytes out: the caller owns the socket and passes each datagram with its source.
///
/// An RFC 3489 Binding request (no magic cookie) gets the classic answer (`STUNClassicBinding`).
/// No answer (nil) to anything but a well-formed Binding request: not STUN, malformed, a wrong
/// FINGERPRINT, an indication, a response, another method. The server does no authentication:
/// USERNAME, MESSAGE-INTEGRITY(-SHA256) and the ICE attributes are understood and ignored, so
/// that browsers' and libnice's requests are answered. A comprehension-required attribute it does
/// not know gets 420 with UNKNOWN-ATTRIBUTES (section 6.3.1.1). Every answer carries SOFTWARE
/// and, last, FINGERPRINT.
public struct STUNBindingResponder: Sendable {
    /// The SOFTWARE attribute of every answer (section 14.14); cut to 127 characters.
    public var software: String

    public init(software: String = "conf") {
        self.software = software
    }

    /// The comprehension-required attributes a Binding request may carry without a 420.
    public static let understood: Set<STUNAttributeType> = [
        .username, .messageIntegrity, .messageIntegritySHA256, .priority, .useCandidate,
    ]

    /// Whether `datagram` has the shape of a Binding request (RFC 8489 section 5: its type, and a
    /// length that matches), read from its first four bytes: what a server checks before it
    /// spends anything on it. RFC 3489's requests have the same header.
    public static func looksLikeBindingRequest(_ datagram: some Collection<UInt8>) -> Bool {
        guard datagram.count >= 20, datagram.count < 2_048 else { return false }
        // Type 0x0001 (a Binding request), then the length of what follows the 20-byte header.
        let header = datagram.prefix(4).reduce(0) { $0 << 8 | Int($1) }
        return header == 0x0001_0000 | (datagram.count - 20)
    }

    /// The datagram to send back to `source`, or nil when `datagram` gets no answer.
    public func respond(to datagram: [UInt8], from source: STUNTransportAddress) -> [UInt8]? {
        guard let request = try? STUNMessage.parse(datagram), request.messageClass == .request, request.method == .binding else {
            return STUNClassicBinding.respond(to: datagram, from: source)
        }
        var response = STUNMessage(.successResponse, .binding, transactionID: request.transactionID)
        let unknown = Self.unknownAttributes(in: request)
        if unknown.isEmpty {
            response.attributes.append(STUNAttribute(.xorMappedAddress, source.attributeValue(xorWith: request.transactionID)))
        } else {
            response.messageClass = .errorResponse
            var list: [UInt8] = []
            for type in unknown { list.appendSTUN(type.rawValue) }
            response.attributes.append(STUNAttribute(.errorCode, STUNErrorCode.unknownAttribute.attributeValue))
            response.attributes.append(STUNAttribute(.unknownAttributes, list))
        }
        response.attributes.append(STUNAttribute(.software, Array(String(software.prefix(127)).utf8)))
        return response.bytes
    }

    /// The comprehension-required types not `understood`, each once, in the order they came.
    /// Attributes after MESSAGE-INTEGRITY(-SHA256) are ignored (section 14.5), so they do not count.
    private static func unknownAttributes(in request: STUNMessage) -> [STUNAttributeType] {
        var unknown: [STUNAttributeType] = []
        for attribute in request.attributes {
            if attribute.type == .messageIntegrity || attribute.type == .messageIntegritySHA256 { break }
            if attribute.type.isComprehensionRequired, !understood.contains(attribute.type), !unknown.contains(attribute.type) {
                unknown.append(attribute.type)
            }
        }
        return unknown
    }
}

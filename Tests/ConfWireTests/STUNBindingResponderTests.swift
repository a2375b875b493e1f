import ConfCore
import ConfWire
import Testing

@Suite struct STUNBindingResponderTests {
    static let id = STUNTransactionID(Array(1...12))!
    static let v4 = STUNTransportAddress(address: [203, 0, 113, 7], port: 51234)!
    static let v6 = STUNTransportAddress(address: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1], port: 443)!
    let responder = STUNBindingResponder()

    static func request(_ attributes: [STUNAttribute], fingerprinted: Bool = true) -> [UInt8] {
        STUNMessage(.request, .binding, transactionID: id, attributes: attributes, fingerprinted: fingerprinted).bytes
    }

    @Test func answersWithTheSourceAddressForIPv4AndIPv6() throws {
        let request = STUNBindingRequest(transactionID: Self.id)
        for source in [Self.v4, Self.v6] {
            let answer = try #require(responder.respond(to: request.bytes, from: source))
            #expect(request.response(in: answer) == .mapped(source))
            let message = try STUNMessage.parse(answer)
            #expect(message.messageClass == .successResponse && message.method == .binding && message.fingerprinted)
            #expect(message.attributes.map(\.type) == [.xorMappedAddress, .software])
            #expect(message.value(of: .software) == Array("conf".utf8))
            // XOR-MAPPED-ADDRESS, not the plain address: NATs that rewrite addresses in payloads miss it.
            #expect(message.value(of: .mappedAddress) == nil)
            #expect(message.value(of: .xorMappedAddress) != source.attributeValue(xorWith: nil))
        }
    }

    @Test func answersARequestWithoutFingerprintAndTheICEAttributesOfABrowser() throws {
        let ice = Self.request([
            STUNAttribute(.username, Array("abcd:efgh".utf8)), STUNAttribute(STUNAttributeType(rawValue: 0xC057), [0, 1, 0, 10]),
            STUNAttribute(.iceControlling, Array(repeating: 7, count: 8)), STUNAttribute(.useCandidate, []),
            STUNAttribute(.priority, [0x6e, 0, 1, 0xff]), STUNAttribute(.messageIntegrity, Array(repeating: 9, count: 20)),
        ], fingerprinted: false)
        let answer = try #require(responder.respond(to: ice, from: Self.v4))
        #expect(STUNBindingRequest(transactionID: Self.id).response(in: answer) == .mapped(Self.v4))
    }

    @Test func answers420ListingEachUnknownComprehensionRequiredAttributeOnce() throws {
        let request = Self.request([
            STUNAttribute(STUNAttributeType(rawValue: 0x0003), [0, 0, 0, 0]),  // CHANGE-REQUEST, RFC 5780: not understood
            STUNAttribute(STUNAttributeType(rawValue: 0x8000), [1]),  // comprehension-optional: ignored
            STUNAttribute(STUNAttributeType(rawValue: 0x7FFF), []),
            STUNAttribute(STUNAttributeType(rawValue: 0x0003), [0, 0, 0, 4]),
        ])
        let answer = try #require(responder.respond(to: request, from: Self.v4))
        let message = try STUNMessage.parse(answer)
        #expect(message.messageClass == .errorResponse && message.method == .binding && message.transactionID == Self.id)
        #expect(message.fingerprinted && message.value(of: .xorMappedAddress) == nil)
        #expect(message.value(of: .unknownAttributes) == [0x00, 0x03, 0x7F, 0xFF])
        #expect(STUNBindingRequest(transactionID: Self.id).response(in: answer) == .error(STUNErrorCode(code: 420, reason: "Unknown Attribute")))
        #expect(message.value(of: .errorCode) == [0, 0, 4, 20] + Array("Unknown Attribute".utf8))
    }

    /// Section 14.5: attributes after MESSAGE-INTEGRITY (but FINGERPRINT) are ignored, unknown or not.
    @Test func anUnknownAttributeAfterMessageIntegrityIsIgnored() throws {
        let request = Self.request([STUNAttribute(.messageIntegrity, Array(repeating: 1, count: 20)), STUNAttribute(STUNAttributeType(rawValue: 0x0003), [0, 0, 0, 0])])
        let answer = try #require(responder.respond(to: request, from: Self.v6))
        #expect(STUNBindingRequest(transactionID: Self.id).response(in: answer) == .mapped(Self.v6))
    }

    @Test func ignoresResponsesIndicationsOtherMethodsAndNonSTUN() {
        let allocate = STUNMethod(rawValue: 0x003)!  // TURN Allocate
        for message in [STUNMessage(.successResponse, .binding, transactionID: Self.id), STUNMessage(.errorResponse, .binding, transactionID: Self.id),
                        STUNMessage(.indication, .binding, transactionID: Self.id), STUNMessage(.request, allocate, transactionID: Self.id)] {
            #expect(responder.respond(to: message.bytes, from: Self.v4) == nil)
        }
        #expect(responder.respond(to: [], from: Self.v4) == nil)
        #expect(responder.respond(to: [0x80, 0x60] + Array(repeating: 0, count: 30), from: Self.v4) == nil)  // RTP
    }

    /// RFC 8489 section 12: an RFC 3489 request (no magic cookie; libnice gathers with these)
    /// gets MAPPED-ADDRESS and its whole 16-byte id back, nothing else; IPv6 and CHANGE-REQUEST none.
    @Test func answersAnRFC3489RequestAsAClassicServer() throws {
        let id: [UInt8] = [0x4e, 0xc5, 0xa3, 0x4d, 0xbb, 0x2f, 0x14, 0x2d, 0x29, 0x65, 0x1c, 0xfc, 0x76, 0x84, 0x4e, 0xda]
        let classic: [UInt8] = [0x00, 0x01, 0x00, 0x00] + id  // as libnice sent it (captured)
        let answer = try #require(responder.respond(to: classic, from: Self.v4))
        #expect(answer == [0x01, 0x01, 0x00, 0x0c] + id + [0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0xc8, 0x22, 203, 0, 113, 7])
        #expect(responder.respond(to: classic, from: Self.v6) == nil)
        let changeIP = [0x00, 0x01, 0x00, 0x08] + id + [0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x04]
        #expect(responder.respond(to: changeIP, from: Self.v4) == nil)
        let noChange = [0x00, 0x01, 0x00, 0x08] + id + [0x00, 0x03, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00]
        #expect(responder.respond(to: noChange, from: Self.v4)?.prefix(20) == [0x01, 0x01, 0x00, 0x0c] + id.prefix(16))
        for bad in [Array(classic.prefix(19)), [0x00, 0x01, 0x00, 0x04] + id, [0x00, 0x01, 0x00, 0x04] + id + [0, 3, 0, 8],
                    [0x01, 0x01, 0x00, 0x00] + id, [0x00, 0x11, 0x00, 0x00] + id] {
            #expect(responder.respond(to: bad, from: Self.v4) == nil, "\(bad)")
        }
    }

    @Test func ignoresARequestWhoseFingerprintIsWrong() throws {
        var request = STUNBindingRequest(transactionID: Self.id).bytes
        #expect(responder.respond(to: request, from: Self.v4) != nil)
        request[request.count - 1] ^= 1
        #expect(responder.respond(to: request, from: Self.v4) == nil)
        #expect(throws: STUNError.self) { try STUNMessage.parse(request) }
    }

    @Test func theClientReadsOnlyAnswersToItsOwnTransaction() throws {
        let mine = STUNBindingRequest(transactionID: Self.id)
        let other = STUNBindingRequest(transactionID: STUNTransactionID(Array(repeating: 5, count: 12))!)
        let answer = try #require(responder.respond(to: other.bytes, from: Self.v4))
        #expect(mine.response(in: answer) == nil)
        #expect(mine.response(in: mine.bytes) == nil)  // its own request is not an answer
        #expect(other.response(in: answer) == .mapped(Self.v4))
    }

    /// RFC 3489 servers answer with MAPPED-ADDRESS only.
    @Test func theClientFallsBackToMappedAddress() {
        let legacy = STUNMessage(.successResponse, .binding, transactionID: Self.id, attributes: [STUNAttribute(.mappedAddress, Self.v4.attributeValue(xorWith: nil))])
        #expect(STUNBindingRequest(transactionID: Self.id).response(in: legacy.bytes) == .mapped(Self.v4))
        let empty = STUNMessage(.successResponse, .binding, transactionID: Self.id)
        #expect(STUNBindingRequest(transactionID: Self.id).response(in: empty.bytes) == nil)
    }

    @Test func aSeededTransactionIDIsTwelveBytesAndDiffersFromTheNext() {
        var random = SeededRandom(seed: 9)
        let first = STUNTransactionID(using: &random), second = STUNTransactionID(using: &random)
        #expect(first.bytes.count == 12 && first != second)
        #expect(STUNTransactionID(Array(repeating: 0, count: 11)) == nil)
    }
}

@Suite struct STUNTransportAddressTests {
    @Test(arguments: [
        ([UInt8](repeating: 0, count: 15) + [1], "::1"),
        ([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1], "2001:db8::1"),
        ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 1], "2001:db8:0:1::1"),  // the longer run
        ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1], "2001:db8::1:0:0:1"),  // tied: the first
        ([0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1], "2001:db8:0:1:1:1:1:1"),  // one zero group stays
        ([UInt8](repeating: 0, count: 16), "::"),
        ([0xfe, 0x80] + [UInt8](repeating: 0, count: 14), "fe80::"),
    ])
    func ipv6IsWrittenAsRFC5952Says(address: [UInt8], text: String) throws {
        #expect(try #require(STUNTransportAddress(address: address, port: 1)).host == text)
    }

    @Test func onlyFourOrSixteenBytesAreAnAddress() {
        #expect(STUNTransportAddress(address: [127, 0, 0, 1], port: 9)?.description == "127.0.0.1:9")
        #expect(STUNTransportAddress(address: [127, 0, 0], port: 9) == nil)
        #expect(STUNTransportAddress(address: Array(repeating: 1, count: 6), port: 9) == nil)
    }
}

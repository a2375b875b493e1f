import ConfCore
import ConfWire
import Testing

/// Datagrams a STUN server's port receives from anyone: nothing may crash the parser, and the
/// responder answers only a well-formed Binding request, with a response for that transaction.
@Suite struct STUNHostileInputTests {
    static let source = STUNTransportAddress(address: [198, 51, 100, 4], port: 40000)!
    static let sample = STUNRFC5769Tests.request
    let responder = STUNBindingResponder()

    /// Any answer must be a fingerprinted Binding response to the transaction of a datagram that
    /// is itself a Binding request; to an RFC 3489 one (no magic cookie), the classic answer:
    /// its whole id back and MAPPED-ADDRESS alone.
    func checkedAnswer(to datagram: [UInt8]) -> [UInt8]? {
        guard let answer = responder.respond(to: datagram, from: Self.source) else { return nil }
        if datagram.count >= 8, Array(datagram[4..<8]) != [0x21, 0x12, 0xA4, 0x42] {
            #expect(Array(datagram.prefix(2)) == [0x00, 0x01])
            #expect(answer == [0x01, 0x01, 0x00, 0x0c] + datagram[4..<20] + [0x00, 0x01, 0x00, 0x08, 0x00, 0x01, 0x9c, 0x40, 198, 51, 100, 4])
            return answer
        }
        let request = try? STUNMessage.parse(datagram)
        #expect(request?.messageClass == .request && request?.method == .binding)
        let response = try? STUNMessage.parse(answer)
        #expect(response?.messageClass == .successResponse || response?.messageClass == .errorResponse)
        #expect(response?.method == .binding && response?.fingerprinted == true)
        #expect(response?.transactionID.bytes == Array(datagram[8..<20]))
        return answer
    }

    @Test func everyTruncationIsRefused() {
        for length in 0..<Self.sample.count {
            let cut = Array(Self.sample.prefix(length))
            #expect(throws: STUNError.self) { try STUNMessage.parse(cut) }
            #expect(checkedAnswer(to: cut) == nil)
        }
        #expect(checkedAnswer(to: Self.sample) != nil)
    }

    /// CRC-32 catches every single-byte change, so no changed datagram parses with its FINGERPRINT.
    /// The only ones answered lose it altogether, by a change to an attribute header: FINGERPRINT's
    /// type turned into another attribute's, or an earlier length grown to swallow FINGERPRINT.
    @Test func everySingleByteChangeOfAFingerprintedRequestFailsTheFingerprint() {
        var answered = Set<Int>()
        for index in Self.sample.indices {
            for delta in 1...255 {
                var mutated = Self.sample
                mutated[index] &+= UInt8(delta)
                #expect((try? STUNMessage.parse(mutated))?.fingerprinted != true)
                if checkedAnswer(to: mutated) != nil {
                    answered.insert(index)
                    #expect((try? STUNMessage.parse(mutated))?.fingerprinted == false)
                }
            }
        }
        let headers = [20, 40, 48, 60, 76, 100].flatMap { $0..<($0 + 4) }  // SOFTWARE ... FINGERPRINT
        #expect(answered.isSubset(of: headers))
        #expect(answered.contains(101))  // 0x8028 -> 0x8022 (SOFTWARE), for one
    }

    /// Without FINGERPRINT many changes still make a request; each answer must still be one.
    @Test func singleByteChangesOfAnUnfingerprintedRequestGetOnlyValidAnswers() {
        let request = STUNMessage(.request, .binding, transactionID: STUNRFC5769Tests.transactionID, attributes: [
            STUNAttribute(.software, Array("abc".utf8)), STUNAttribute(.priority, [1, 2, 3, 4]),
        ], fingerprinted: false).bytes
        var answers = 0
        for index in request.indices {
            for delta in 1...255 {
                var mutated = request
                mutated[index] &+= UInt8(delta)
                if checkedAnswer(to: mutated) != nil { answers += 1 }
            }
        }
        #expect(answers > 0)  // the test reaches the responder's answering path, not only its refusals
    }

    @Test func aLyingMessageLengthIsRefused() {
        for length in 0...0xFFFF where length != Self.sample.count - 20 {
            var lying = Self.sample
            lying[2] = UInt8(length >> 8)
            lying[3] = UInt8(length & 0xFF)
            let expected: STUNError = length % 4 != 0
                ? .lengthNotMultipleOfFour(length) : .lengthMismatch(declared: length, actual: Self.sample.count - 20)
            #expect(throws: expected) { try STUNMessage.parse(lying) }
        }
    }

    /// SOFTWARE "conf" (4 bytes) as the only attribute; its length field says 0 to 65535.
    @Test func anAttributeLengthPastTheEndIsRefused() {
        let request = STUNMessage(.request, .binding, transactionID: STUNRFC5769Tests.transactionID,
                                  attributes: [STUNAttribute(.software, Array("conf".utf8))], fingerprinted: false).bytes
        for length in 0...0xFFFF {
            var lying = request
            lying[22] = UInt8(length >> 8)
            lying[23] = UInt8(length & 0xFF)
            if length == 0 {  // then "conf" is read as the next attribute's header: type "co", length "nf"
                #expect(throws: STUNError.attributeOverrun(type: STUNAttributeType(rawValue: 0x636F), offset: 24)) { try STUNMessage.parse(lying) }
            } else if length <= 4 {  // the rest of the 4 bytes is padding
                #expect((try? STUNMessage.parse(lying))?.value(of: .software) == Array(Array("conf".utf8).prefix(length)))
            } else {
                #expect(throws: STUNError.attributeOverrun(type: .software, offset: 20)) { try STUNMessage.parse(lying) }
                #expect(checkedAnswer(to: lying) == nil)
            }
        }
    }

    @Test func theLimitsHold() {
        let id = STUNRFC5769Tests.transactionID
        let most = STUNMessage(.request, .binding, transactionID: id, attributes: Array(repeating: STUNAttribute(.software, []), count: 63))
        #expect((try? STUNMessage.parse(most.bytes)) == most)  // 63 and FINGERPRINT
        var tooMany = most
        tooMany.attributes.append(STUNAttribute(.software, []))
        #expect(throws: STUNError.tooManyAttributes(limit: 64)) { try STUNMessage.parse(tooMany.bytes) }
        let large = STUNMessage(.request, .binding, transactionID: id, attributes: [STUNAttribute(.software, Array(repeating: 0x61, count: 1480))],
                                fingerprinted: false)
        #expect(large.bytes.count == 1504)
        #expect(throws: STUNError.tooLarge(size: 1504)) { try STUNMessage.parse(large.bytes) }
    }

    /// A FINGERPRINT that is right for a message length counting an attribute after it.
    @Test func anAttributeAfterFingerprintIsRefused() {
        var message = STUNMessage(.request, .binding, transactionID: STUNRFC5769Tests.transactionID, fingerprinted: false).bytes
        message[3] = 12
        let crc = CRC32.checksum(message) ^ STUNMessage.fingerprintXOR
        message += [0x80, 0x28, 0x00, 0x04, UInt8(crc >> 24), UInt8(crc >> 16 & 0xFF), UInt8(crc >> 8 & 0xFF), UInt8(crc & 0xFF)]
        message += [0x80, 0x22, 0x00, 0x00]
        #expect(throws: STUNError.attributeAfterFingerprint(.software)) { try STUNMessage.parse(message) }
        #expect(checkedAnswer(to: message) == nil)
        #expect(checkedAnswer(to: Self.sample + [0x80, 0x22, 0x00, 0x00]) == nil)  // the header's length not even updated
    }

    @Test func aFingerprintOfTheWrongLengthIsRefused() {
        let request = STUNMessage(.request, .binding, transactionID: STUNRFC5769Tests.transactionID,
                                  attributes: [STUNAttribute(.fingerprint, [1, 2, 3, 4, 5, 6, 7, 8])], fingerprinted: false)
        #expect(throws: STUNError.fingerprintLength(8)) { try STUNMessage.parse(request.bytes) }
    }

    /// Random bytes, half of them behind a plausible header (leading zero bits, the cookie, the
    /// right length) so that the attribute walk is reached. Whatever parses must write and parse
    /// back the same.
    @Test func randomDatagramsNeverCrashAndGetOnlyValidAnswers() {
        var random = SeededRandom(seed: 8489)
        var parsed = 0
        for round in 0..<20_000 {
            let length = Int.random(in: 0...160, using: &random) & (round % 2 == 0 ? ~0 : ~3)
            var bytes = (0..<length).map { _ in UInt8.random(in: .min ... .max, using: &random) }
            if round % 2 == 1, length >= 20 {
                bytes[0] &= 0x01
                bytes[2] = UInt8((length - 20) >> 8)
                bytes[3] = UInt8((length - 20) & 0xFF)
                bytes.replaceSubrange(4..<8, with: [0x21, 0x12, 0xA4, 0x42])
            }
            if let message = try? STUNMessage.parse(bytes) {
                parsed += 1
                #expect((try? STUNMessage.parse(message.bytes)) == message)
            }
            _ = checkedAnswer(to: bytes)
        }
        #expect(parsed > 100)
    }
}

import ConfWire
import Testing

/// The query for a browser's `.local` name and the reading of answers, with hostile ones.
struct MDNSMessageTests {
    static let name = "9f70af62-0455-40d7-91e6-827e8ed08e28.local"

    /// An answer as a responder sends it: header, no question, one A record (cache-flush set), the
    /// name written whole; `compressed` writes it once in a question and points at it.
    static func answer(_ address: [UInt8], name: String = name, compressed: Bool = false) -> [UInt8] {
        var labels: [UInt8] = []
        for label in name.split(separator: ".") { labels += [UInt8(label.utf8.count)] + Array(label.utf8) }
        labels.append(0)
        let record: [UInt8] = [0, 1, 0x80, 1, 0, 0, 0, 120, 0, 4] + address
        if compressed {
            return [0, 0, 0x84, 0, 0, 1, 0, 1, 0, 0, 0, 0] + labels + [0, 1, 0, 1] + [0xC0, 12] + record
        }
        return [0, 0, 0x84, 0, 0, 0, 0, 1, 0, 0, 0, 0] + labels + record
    }

    @Test func aQueryAsksForTheNamesIPv4Address() throws {
        let query = try #require(MDNSMessage.query(for: Self.name))
        #expect(Array(query.prefix(12)) == [0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0])
        #expect(query[12] == 36 && Array(query.suffix(5)) == [0, 0, 1, 0, 1])
        #expect(MDNSMessage.addresses(of: Self.name, in: query).isEmpty, "a query is no answer")
    }

    @Test func anAnswerGivesTheAddressWrittenWholeOrPointedAt() {
        #expect(MDNSMessage.addresses(of: Self.name, in: Self.answer([10, 77, 0, 2])) == [[10, 77, 0, 2]])
        #expect(MDNSMessage.addresses(of: Self.name.uppercased(), in: Self.answer([10, 77, 0, 2], compressed: true)) == [[10, 77, 0, 2]])
        #expect(MDNSMessage.addresses(of: "other.local", in: Self.answer([10, 77, 0, 2])).isEmpty)
    }

    @Test(arguments: ["example.org", "a.local.evil", ".local", "a..local", "a_b.local", String(repeating: "a", count: 64) + ".local",
                      "a\u{1B}[2J.local", "läsk.local"])
    func namesThatAreNoBrowsersAreNotAskedFor(_ name: String) {
        #expect(!MDNSMessage.isLocalName(name) && MDNSMessage.query(for: name) == nil)
    }

    @Test func hostileAnswersGiveNothingAndNeverTrap() {
        let good = Self.answer([10, 77, 0, 2])
        var loop = good
        loop[12] = 0xC0; loop[13] = 12  // the name points at itself
        var truncated = good
        truncated.removeLast(3)
        var lying = good
        lying[good.count - 5] = 200  // rdlength past the end
        var huge = Self.answer([10, 77, 0, 2])
        huge[6] = 0xFF; huge[7] = 0xFF  // 65535 answers announced
        for message in [[], [0, 0, 0x84], loop, truncated, lying, Array(repeating: 0xC0, count: 600)] {
            #expect(MDNSMessage.addresses(of: Self.name, in: message).isEmpty)
        }
        #expect(MDNSMessage.addresses(of: Self.name, in: huge) == [[10, 77, 0, 2]], "the one record there is read, no more")
        for length in 0..<good.count { _ = MDNSMessage.addresses(of: Self.name, in: Array(good.prefix(length))) }
    }
}

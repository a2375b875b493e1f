import ConfCrypto
import Testing

/// RFC 4231 section 4 test vectors.
@Suite struct HMACSHA256RFCTests {
    private func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }

    @Test func testCase1() {
        let mac = HMACSHA256(key: [UInt8](repeating: 0x0b, count: 20)).authenticate(Array("Hi There".utf8))
        #expect(hex(mac) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
    }

    @Test func testCase2() {
        let mac = HMACSHA256(key: Array("Jefe".utf8)).authenticate(Array("what do ya want for nothing?".utf8))
        #expect(hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func testCase6KeyLongerThanBlock() {
        let mac = HMACSHA256(key: [UInt8](repeating: 0xaa, count: 131))
            .authenticate(Array("Test Using Larger Than Block-Size Key - Hash Key First".utf8))
        #expect(hex(mac) == "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
    }
}

import ConfCore
import Testing

/// Hex digits both ways; what comes from a peer (a commitment in SDP, a secret over the control
/// channel) is read only when it is exactly the bytes expected.
@Suite struct HexTests {
    @Test func bytesRoundTripInLowerCase() {
        #expect(Hex.string([0x00, 0x0F, 0xA0, 0xFF]) == "000fa0ff")
        #expect(Hex.bytes("000FA0ff", count: 4) == [0x00, 0x0F, 0xA0, 0xFF])
        #expect(Hex.bytes(Hex.string(Array(0...255)), count: 256) == Array(0...255))
    }

    @Test func anythingElseIsNothing() {
        #expect(Hex.bytes("000fa0", count: 4) == nil)       // short
        #expect(Hex.bytes("000fa0ff00", count: 4) == nil)   // long
        #expect(Hex.bytes("000fa0fg", count: 4) == nil)     // not a digit
        #expect(Hex.bytes("0x0fa0ff", count: 4) == nil)
        #expect(Hex.bytes("00 fa0ff", count: 4) == nil)
        #expect(Hex.bytes("é0fa0f", count: 3) == nil)       // multi-byte UTF-8
        #expect(Hex.bytes("", count: 0) == [])
    }
}

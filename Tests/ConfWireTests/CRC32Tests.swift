import ConfWire
import Testing

@Suite struct CRC32Tests {
    @Test func matchesTheCheckValuesOfCRC32IEEE() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([]) == 0)
        #expect(CRC32.checksum([0]) == 0xD202_EF8D)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }
}

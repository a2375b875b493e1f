import ConfWire
import Testing

@Suite struct IPv4AddressTests {
    @Test func parsesAndPrintsDottedQuads() {
        #expect(IPv4Address("192.168.1.2") == IPv4Address(192, 168, 1, 2))
        #expect(IPv4Address("192.168.1.2")?.value == 0xC0A8_0102)
        #expect(IPv4Address(203, 0, 113, 255).description == "203.0.113.255")
        for bad in ["", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1..3.4", "a.b.c.d", "1.2.3.-4", "1.2.3.4 ", "١.2.3.4"] {
            #expect(IPv4Address(bad) == nil, "\(bad)")
        }
    }

    @Test func convertsToAndFromIPv4MappedIPv6() {
        let address = IPv4Address(10, 1, 2, 3)
        #expect(address.ipv4MappedIPv6 == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 1, 2, 3])
        #expect(IPv4Address(ipv4MappedIPv6: address.ipv4MappedIPv6) == address)
        #expect(IPv4Address(ipv4MappedIPv6: [0x20, 0x01] + [UInt8](repeating: 0, count: 14)) == nil)
        #expect(IPv4Address(ipv4MappedIPv6: [UInt8](repeating: 0, count: 16)) == nil)
        #expect(IPv4Address(ipv4MappedIPv6: [0xFF, 0xFF, 1, 2, 3, 4]) == nil)
    }

    @Test func classifiesWhereAnAddressCanBeReachedFrom() {
        let cases: [(String, IPv4Address.Scope)] = [
            ("0.0.0.0", .unspecified),
            ("0.1.2.3", .private), ("10.0.0.1", .private), ("127.0.0.1", .private), ("169.254.3.4", .private),
            ("172.16.0.1", .private), ("172.31.255.255", .private), ("192.168.0.1", .private), ("224.0.0.1", .private),
            ("255.255.255.255", .private),
            ("100.64.0.0", .shared), ("100.64.1.2", .shared), ("100.127.255.255", .shared),
            ("100.63.255.255", .public), ("100.128.0.0", .public), ("172.15.255.255", .public), ("172.32.0.0", .public),
            ("8.8.8.8", .public), ("203.0.113.7", .public), ("192.169.0.1", .public), ("169.253.0.1", .public),
        ]
        for (text, scope) in cases { #expect(IPv4Address(text)?.scope == scope, "\(text)") }
    }
}

import ConfRendezvous
import Testing

@Suite struct ClientAddressTests {
    @Test(arguments: [
        ("192.0.2.7", "192.0.2.7", "192.0.2.0/24"),
        ("2001:db8:1:2:aaaa:bbbb:cccc:dddd", "2001:db8:1:2::/64", "2001:db8:1::/48"),
        ("2001:0DB8:0001:0002::1", "2001:db8:1:2::/64", "2001:db8:1::/48"),
        ("2001:db8::1", "2001:db8:0:0::/64", "2001:db8:0::/48"),
        ("::1", "0:0:0:0::/64", "0:0:0::/48"),
        ("::ffff:192.0.2.7", "192.0.2.7", "192.0.2.0/24"),
        ("fe80::1%eth0", "fe80:0:0:0::/64", "fe80:0:0::/48"),
        ("not-an-address", "not-an-address", "not-an-address"),
        ("1.2.3.256", "1.2.3.256", "1.2.3.256"),
        ("1:2:3", "1:2:3", "1:2:3"),
        ("1::2::3", "1::2::3", "1::2::3"),
    ])
    func keysClientsByAddressAndIPv6ByTheirSlash64(_ text: String, _ client: String, _ network: String) {
        let address = ClientAddress(text)
        #expect(address.client == client)
        #expect(address.network == network)
    }

    /// Eleven addresses of one /64 are one client; another /64 of the same /48 is another client
    /// of the same network.
    @Test func addressesOfOneSlash64AreOneClient() {
        let keys = Set((1...11).map { ClientAddress("2001:db8:5:6::\(String($0, radix: 16))").client })
        #expect(keys == ["2001:db8:5:6::/64"])
        #expect(ClientAddress("2001:db8:5:7::1").client != ClientAddress("2001:db8:5:6::1").client)
        #expect(ClientAddress("2001:db8:5:7::1").network == ClientAddress("2001:db8:5:6::1").network)
    }
}

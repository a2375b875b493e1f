import Testing
@testable import ConfIO

/// The lines a leftovers file keeps for UPnP-IGD mappings: written and read back, and anything
/// else refused (the file is this user's own, but it is read as untrusted text all the same).
@Suite struct PortMappingLeftoversTests {
    @Test func aMappingsLineReadsBackAsItself() {
        let mapping = PortMappingLeftovers.UPnPMapping(proto: .udp, externalPort: 54_726, localAddress: "192.168.1.10", localPort: 54_726)
        #expect(mapping.line == "upnp UDP 54726 192.168.1.10 54726")
        #expect(PortMappingLeftovers.UPnPMapping(line: mapping.line) == mapping)
    }

    @Test(arguments: ["upnp UDP 0 192.168.1.10 7373", "upnp SCTP 7373 192.168.1.10 7373", "upnp TCP 7373 example.org 7373",
                      "upnp TCP 7373 192.168.1.10 70000", "upnp TCP 7373 192.168.1.10", "upnp TCP 7373 192.168.1.10 7373 extra",
                      "UPNP TCP 7373 192.168.1.10 7373", "0a0b0c", ""])
    func anythingElseIsNoMapping(_ line: String) {
        #expect(PortMappingLeftovers.UPnPMapping(line: line) == nil)
    }
}

import ConfCore
import ConfWire
import Testing

/// The PCP (RFC 6887) and NAT-PMP (RFC 6886) messages byte for byte against the RFCs' layouts.
@Suite struct PortMappingCodecRFCTests {
    let nonce = PCPNonce(Array(1...12))!

    @Test func pcpMapRequestFollowsSections7Point1And11Point1() throws {
        let request = PCPMapRequest(lifetime: 7200, clientAddress: IPv4Address(192, 168, 1, 10), nonce: nonce, transport: .tcp,
                                    internalPort: 7373, suggestedExternalPort: 7373)
        let expected: [UInt8] = [
            2, 1, 0, 0,  // version 2, R = 0, opcode MAP, reserved
            0, 0, 0x1C, 0x20,  // requested lifetime 7200
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 192, 168, 1, 10,  // client ::ffff:192.168.1.10
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,  // mapping nonce
            6, 0, 0, 0,  // protocol TCP, reserved
            0x1C, 0xCD, 0x1C, 0xCD,  // internal port 7373, suggested external port 7373
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0,  // suggested external ::ffff:0.0.0.0 (any)
        ]
        #expect(request.bytes == expected)
        #expect(request.bytes.count == 60)
        #expect(try PCPMapRequest(bytes: expected) == request)
    }

    @Test func pcpDeletionIsAMapRequestWithLifetimeZero() {
        let delete = PCPMapRequest(lifetime: 0, clientAddress: IPv4Address(10, 0, 0, 2), nonce: nonce, transport: .udp, internalPort: 7373,
                                   suggestedExternalPort: 7373)
        #expect(Array(delete.bytes[4..<8]) == [0, 0, 0, 0])
        #expect(delete.bytes[36] == 17)
    }

    @Test func pcpMapResponseParsesSections7Point2And11Point1() throws {
        let bytes: [UInt8] = [
            2, 0x81, 0, 0,  // version 2, R = 1, opcode MAP, reserved, result SUCCESS
            0, 0, 0x0E, 0x10,  // lifetime 3600
            0, 0, 0x01, 0x00,  // epoch time 256
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,  // reserved
            1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,  // nonce
            17, 0, 0, 0,  // UDP
            0x1C, 0xCD, 0x1C, 0xCE,  // internal 7373, assigned external 7374
            0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 203, 0, 113, 7,  // ::ffff:203.0.113.7
        ]
        let response = try PCPResponse(bytes: bytes)
        #expect(response.opcode == PCP.mapOpcode)
        #expect(response.result == .success)
        #expect(response.lifetime == 3600)
        #expect(response.epochTime == 256)
        #expect(response.map == PCPResponse.Map(nonce: nonce, transport: .udp, internalPort: 7373, externalPort: 7374,
                                                externalAddress: IPv4Address(203, 0, 113, 7)))
        #expect(response.bytes == bytes)
    }

    @Test func pcpResponseFramingIsChecked() throws {
        let valid = PCPResponse(opcode: 1, result: .success, lifetime: 1, epochTime: 1,
                                map: .init(nonce: nonce, transport: .tcp, internalPort: 1, externalPort: 1, externalAddress: IPv4Address(1, 2, 3, 4))).bytes
        #expect(throws: PortMappingParseError.tooShort(count: 20, needed: 24)) { try PCPResponse(bytes: Array(valid.prefix(20))) }
        #expect(throws: PortMappingParseError.tooShort(count: 56, needed: 60)) { try PCPResponse(bytes: Array(valid.prefix(56))) }
        #expect(throws: PortMappingParseError.badLength(61)) { try PCPResponse(bytes: valid + [0]) }
        #expect(throws: PortMappingParseError.badLength(1104)) { try PCPResponse(bytes: valid + [UInt8](repeating: 0, count: 1044)) }
        #expect(throws: PortMappingParseError.wrongVersion(1)) { try PCPResponse(bytes: [1] + valid.dropFirst()) }
        #expect(throws: PortMappingParseError.notAResponse) { try PCPResponse(bytes: [2, 1] + valid.dropFirst(2)) }
        #expect(throws: PortMappingParseError.unexpectedOpcode(2)) { try PCPResponse(bytes: [2, 0x82] + valid.dropFirst(2)) }
        var sctp = valid
        sctp[36] = 132
        #expect(throws: PortMappingParseError.unknownTransport(132)) { try PCPResponse(bytes: sctp) }
        // Options after the MAP fields are skipped.
        #expect(try PCPResponse(bytes: valid + [0x12, 0, 0, 0]).map?.externalPort == 1)
    }

    @Test func pcpErrorMayBeTheHeaderAlone() throws {
        let header: [UInt8] = [2, 0x81, 0, 1, 0, 0, 0, 30, 0, 0, 0, 9] + [UInt8](repeating: 0, count: 12)
        let response = try PCPResponse(bytes: header)
        #expect(response.result == .unsupportedVersion)
        #expect(response.map == nil)
        #expect(response.epochTime == 9)
    }

    @Test func pcpResultCodesCarryTheirRFCNames() {
        let names = (0...13).map { PCPResultCode(code: UInt8($0)).name }
        #expect(names == ["SUCCESS", "UNSUPP_VERSION", "NOT_AUTHORIZED", "MALFORMED_REQUEST", "UNSUPP_OPCODE", "UNSUPP_OPTION",
                          "MALFORMED_OPTION", "NETWORK_FAILURE", "NO_RESOURCES", "UNSUPP_PROTOCOL", "USER_EX_QUOTA",
                          "CANNOT_PROVIDE_EXTERNAL", "ADDRESS_MISMATCH", "EXCESSIVE_REMOTE_PEERS"])
        for code in UInt8(0)...255 { #expect(PCPResultCode(code: code).code == code) }
        #expect(PCPResultCode(code: 14) == .unassigned(14))
        #expect(PCPResultCode.noResources.description.contains("NO_RESOURCES (8)"))
    }

    @Test func natPMPRequestsFollowSections3Point2To3Point4() throws {
        #expect(NATPMPRequest.publicAddress.bytes == [0, 0])
        let udp = NATPMPRequest.mapping(.udp, internalPort: 7373, suggestedExternalPort: 7373, lifetime: 7200)
        #expect(udp.bytes == [0, 1, 0, 0, 0x1C, 0xCD, 0x1C, 0xCD, 0, 0, 0x1C, 0x20])
        let tcp = NATPMPRequest.mapping(.tcp, internalPort: 80, suggestedExternalPort: 0, lifetime: 0)
        #expect(tcp.bytes == [0, 2, 0, 0, 0, 80, 0, 0, 0, 0, 0, 0])
        #expect(try NATPMPRequest(bytes: udp.bytes) == udp)
        #expect(try NATPMPRequest(bytes: [0, 0]) == .publicAddress)
        #expect(throws: PortMappingParseError.notAResponse) { try NATPMPRequest(bytes: [0, 129, 0, 0]) }
    }

    @Test func natPMPResponsesParse() throws {
        let address: [UInt8] = [0, 128, 0, 0, 0, 0, 0x12, 0x34, 198, 51, 100, 9]
        let parsed = try NATPMPResponse(bytes: address)
        #expect(parsed == NATPMPResponse(result: .success, epochTime: 0x1234, body: .publicAddress(IPv4Address(198, 51, 100, 9))))
        #expect(parsed.bytes == address)

        let mapping: [UInt8] = [0, 130, 0, 0, 0, 0, 0, 5, 0x1C, 0xCD, 0x1C, 0xCE, 0, 0, 0x0E, 0x10]
        let map = try NATPMPResponse(bytes: mapping)
        #expect(map == NATPMPResponse(result: .success, epochTime: 5, body: .mapping(.tcp, internalPort: 7373, externalPort: 7374, lifetime: 3600)))
        #expect(map.bytes == mapping)

        // Section 3.5: the answer of a NAT-PMP gateway to a PCP (version 2) MAP request.
        let unsupported: [UInt8] = [0, 129, 0, 1, 0, 0, 0, 77]
        #expect(try NATPMPResponse(bytes: unsupported) == NATPMPResponse(result: .unsupportedVersion, epochTime: 77, body: .headerOnly(requestOpcode: 1)))

        let noWAN: [UInt8] = [0, 128, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0]
        #expect(try NATPMPResponse(bytes: noWAN).result == .networkFailure)
        #expect(throws: PortMappingParseError.tooShort(count: 11, needed: 12)) { try NATPMPResponse(bytes: Array(address.prefix(11))) }
        #expect(throws: PortMappingParseError.tooShort(count: 15, needed: 16)) { try NATPMPResponse(bytes: Array(mapping.prefix(15))) }
        #expect(throws: PortMappingParseError.notAResponse) { try NATPMPResponse(bytes: [0, 2] + mapping.dropFirst(2)) }
        #expect(throws: PortMappingParseError.wrongVersion(2)) { try NATPMPResponse(bytes: [2] + mapping.dropFirst()) }
        #expect(throws: PortMappingParseError.unexpectedOpcode(131)) { try NATPMPResponse(bytes: [0, 131] + mapping.dropFirst(2)) }
    }

    @Test func natPMPResultCodesSayWhatTheyMean() {
        #expect((0...5).map { NATPMPResultCode(code: UInt16($0)) } == [.success, .unsupportedVersion, .notAuthorized, .networkFailure, .outOfResources,
                                                                       .unsupportedOpcode])
        #expect(NATPMPResultCode(code: 6) == .unassigned(6))
        #expect(NATPMPResultCode.notAuthorized.meaning.contains("refused"))
        #expect(NATPMPResultCode(code: 300).code == 300)
    }
}

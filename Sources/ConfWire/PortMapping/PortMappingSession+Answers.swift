import ConfCore

/// The gateway's answers: each checked against what was asked, from whom, and in which protocol.
extension PortMappingSession {

    /// Reads a datagram from the gateway; false when it answers nothing asked.
    func received(_ bytes: [UInt8], now: Instant) -> Bool {
        if mappingProtocol == .pcp {
            if let response = try? PCPResponse(bytes: bytes) { return received(response, now: now) }
            // A NAT-PMP gateway answers a version-2 request in its own format, result 1
            // (RFC 6886 section 3.5, RFC 6887 section 9).
            if phase == .discovering(.pcp), let response = try? NATPMPResponse(bytes: bytes), response.result == .unsupportedVersion {
                heardAny = true
                begin(.natPMP, now: now)
                return true
            }
            return false
        }
        guard let response = try? NATPMPResponse(bytes: bytes) else { return false }
        return received(response, now: now)
    }

    func received(_ response: PCPResponse, now: Instant) -> Bool {
        if response.result == .unsupportedVersion, phase == .discovering(.pcp) {
            heardAny = true
            begin(.natPMP, now: now)
            return true
        }
        if response.opcode == PCP.announceOpcode {
            guard response.result == .success, phase != .releasing else { return false }
            heard(epochTime: response.epochTime, now: now)
            return true
        }
        guard let map = response.map, let index = slots.firstIndex(where: { $0.nonce == map.nonce }),
              slots[index].wanted.transport == map.transport, slots[index].wanted.internalPort == map.internalPort,
              pending[.mapping(index)] != nil else { return false }
        if phase == .releasing { return answeredDeletion(index) }
        switch response.result {
        case .success:
            guard response.lifetime > 0, map.externalPort != 0, let address = map.externalAddress else { return false }
            heard(epochTime: response.epochTime, now: now)
            answered(index, externalPort: map.externalPort, externalAddress: address, lifetime: response.lifetime, now: now)
        case .networkFailure, .cannotProvideExternal:
            heard(epochTime: response.epochTime, now: now)
            fail(.noPublicAddress(.pcp, externalAddress: nil, result: .pcp(response.result)))
        default:
            heard(epochTime: response.epochTime, now: now)
            fail(.refused(.pcp(response.result), mapping: slots[index].wanted))
        }
        return true
    }

    func received(_ response: NATPMPResponse, now: Instant) -> Bool {
        switch response.body {
        case .publicAddress(let address):
            // Asked for, or the gateway's announcement of a new address (section 3.2.1).
            guard pending[.publicAddress] != nil || phase == .mapped(.natPMP) else { return false }
            heard(epochTime: response.epochTime, now: now)
            pending[.publicAddress] = nil
            switch response.result {
            case .success where address.scope == .public:
                natPMPAddress = address
                if case .mapped = phase { reportGrant() } else { completeIfGranted() }
            case .success, .networkFailure:
                fail(.noPublicAddress(.natPMP, externalAddress: address, result: response.result == .success ? nil : .natPMP(response.result)))
            default:
                fail(.refused(.natPMP(response.result), mapping: nil))
            }
        case .mapping(let transport, let internalPort, let externalPort, let lifetime):
            guard let index = slots.indices.first(where: { slots[$0].wanted.transport == transport && slots[$0].wanted.internalPort == internalPort }),
                  pending[.mapping(index)] != nil else { return false }
            if phase == .releasing { return answeredDeletion(index) }
            if response.result == .success, lifetime == 0 || externalPort == 0 { return false }
            heard(epochTime: response.epochTime, now: now)
            switch response.result {
            case .success: answered(index, externalPort: externalPort, externalAddress: nil, lifetime: lifetime, now: now)
            case .networkFailure: fail(.noPublicAddress(.natPMP, externalAddress: nil, result: .natPMP(response.result)))
            default: fail(.refused(.natPMP(response.result), mapping: slots[index].wanted))
            }
        case .headerOnly(let requestOpcode):
            // An error the gateway could not tie to its request's fields: it refuses every
            // request of that opcode.
            let asked = pending.keys.filter { id in
                id.mappingIndex.map { slots[$0].wanted.transport.natPMPOpcode == requestOpcode } ?? (requestOpcode == 0)
            }
            // "Unsupported version" answers a PCP request sent before the fallback: our NAT-PMP
            // requests are version 0.
            guard response.result != .success, response.result != .unsupportedVersion, !asked.isEmpty else { return false }
            if phase == .releasing {
                for id in asked { pending[id] = nil }
                if pending.isEmpty { finishRelease() }
                return true
            }
            heard(epochTime: response.epochTime, now: now)
            fail(.refused(.natPMP(response.result), mapping: asked.count == 1 ? asked[0].mappingIndex.map { slots[$0].wanted } : nil))
        }
        return true
    }

    func answeredDeletion(_ index: Int) -> Bool {
        pending[.mapping(index)] = nil
        slots[index].granted = nil
        if pending.isEmpty { finishRelease() }
        return true
    }

    func answered(_ index: Int, externalPort: UInt16, externalAddress: IPv4Address?, lifetime: UInt32, now: Instant) {
        pending[.mapping(index)] = nil
        let seconds = Duration.seconds(Int64(lifetime))
        slots[index].granted = Granted(externalPort: externalPort, externalAddress: externalAddress, lifetime: lifetime,
                                       expiresAt: now + seconds, renewAt: now + seconds / 2)
        if case .mapped = phase { reportGrant() } else { completeIfGranted() }
    }

    /// Once every mapping (and with NAT-PMP the external address) is known: mapped.
    func completeIfGranted() {
        guard case .discovering(let kind) = phase, slots.allSatisfy({ $0.granted != nil }), kind == .pcp || natPMPAddress != nil else { return }
        phase = .mapped(kind)
        reportGrant()
    }

    /// Reports the grant when it is new or its address or ports changed; a non-public address ends it.
    func reportGrant() {
        guard case .mapped(let kind) = phase, slots.allSatisfy({ $0.granted != nil }),
              let address = kind == .pcp ? slots.first?.granted?.externalAddress : natPMPAddress else { return }
        guard address.scope == .public else {
            fail(.noPublicAddress(kind, externalAddress: address, result: nil))
            return
        }
        let ports = slots.map { PortMappingGrant.MappedPort(wanted: $0.wanted, externalPort: $0.granted!.externalPort) }
        let lifetime = slots.map { $0.granted!.lifetime }.min() ?? configuration.requestedLifetime
        let new = PortMappingGrant(mappingProtocol: kind, externalAddress: address, ports: ports, lifetime: lifetime)
        defer { grant = new }
        guard grant?.externalAddress != address || grant?.ports != ports else { return }
        outputs.append(.event(.mapped(new)))
    }

    /// Every valid answer's epoch: when the gateway lost its state, whatever it had granted is
    /// asked for again at once (RFC 6887 section 8.5, RFC 6886 section 3.6).
    func heard(epochTime: UInt32, now: Instant) {
        heardAny = true
        heardInProtocol = true
        guard epoch.lostState(epochTime: epochTime, now: now), phase != .failed else { return }
        if mappingProtocol == .natPMP, pending[.publicAddress] == nil {
            ask(.publicAddress, NATPMPRequest.publicAddress.bytes, until: now + Self.answerWindow, now: now)
        }
        for index in slots.indices where slots[index].granted != nil && pending[.mapping(index)] == nil {
            requestMapping(index, lifetime: configuration.requestedLifetime, until: now + Self.answerWindow, now: now)
        }
    }
}

import ConfCore
import ConfWire

/// SDP and ICE candidate lines from a peer: whatever parses must serialize and parse again.
func fuzzSDP(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let sdp = try? SessionDescription.parse(text) {
        guard (try? SessionDescription.parse(sdp.serialized)) != nil else { fatalError("serialized SDP does not parse") }
    }
    if case .success(let candidate) = IceCandidate.parse(text) {
        guard case .success(let again) = IceCandidate.parse(candidate.description), again == candidate else {
            fatalError("candidate does not round-trip")
        }
    }
}

/// Datagrams: the first-byte demultiplexer (RFC 7983), RTP, RTCP compound packets, DCEP messages,
/// the jitter buffer fed with whatever parses as RTP, and the VP8 payload descriptor (which must
/// write and read back the same fields), a link's picture-id rewrite and the frame assembler.
func fuzzPackets(_ buffer: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(buffer)
    _ = PacketKind(classifying: bytes)
    if let rtp = RTPPacket(bytes: bytes) {
        guard let again = RTPPacket(bytes: rtp.bytes), again.payload == rtp.payload else { fatalError("RTP does not round-trip") }
        var buffer = AudioJitterBuffer()
        buffer.insert(sequence: rtp.sequenceNumber, timestamp: rtp.timestamp, payload: rtp.payload, arrival: Instant(nanoseconds: 1_000_000))
        buffer.insert(sequence: rtp.sequenceNumber &+ 40_000, timestamp: rtp.timestamp, payload: [], arrival: Instant(nanoseconds: 2_000_000))
        for tick in 0..<5 { _ = buffer.pop(now: Instant(nanoseconds: UInt64(tick) * 20_000_000)) }
    }
    if let packets = RTCPPacket.parseCompound(bytes) {
        for packet in packets where !packet.bytes.isEmpty {
            guard RTCPPacket.parseCompound(packet.bytes) == [packet] else { fatalError("RTCP does not round-trip") }
        }
    }
    if let message = DCEPMessage(bytes: bytes), DCEPMessage(bytes: message.bytes) != message {
        fatalError("DCEP does not round-trip")
    }
    if let (descriptor, _) = VP8PayloadDescriptor.parse(bytes), VP8PayloadDescriptor.parse(descriptor.bytes + [0])?.0 != descriptor {
        fatalError("VP8 payload descriptor does not round-trip")
    }
    var rewriter = VP8PictureIDRewriter(firstPictureID: 0x7FFF)
    var assembler = VP8FrameAssembler()
    for payload in rewriter.rewrite([bytes, Array(bytes.dropFirst())]) {
        _ = assembler.insert(sequence: SequenceNumber(UInt16(truncatingIfNeeded: payload.count)), timestamp: 0, marker: true, payload: payload)
    }
}

/// The bodies of transport feedback and REMB as they follow an RTCP header, so that the fuzzer
/// need not first find a length that frames them; and the transport sequence number. A target of
/// its own: a 36-byte body can describe 65535 packets, and round-tripping those is slow enough to
/// hold back the other parsers.
func fuzzFeedback(_ buffer: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(buffer)
    if let feedback = TransportFeedback(rtcpBody: bytes, padded: bytes.first.map { $0 & 1 == 1 } ?? false),
       TransportFeedback(rtcpBody: Array(feedback.bytes.dropFirst(4))) != feedback {
        fatalError("transport feedback does not round-trip")
    }
    if let remb = ReceiverEstimatedMaximumBitrate(rtcpBody: bytes), ReceiverEstimatedMaximumBitrate(rtcpBody: Array(remb.bytes.dropFirst(4))) != remb {
        fatalError("REMB does not round-trip")
    }
    if let sequence = TransportSequenceNumber(Array(bytes.prefix(2))), TransportSequenceNumber(sequence.bytes) != sequence {
        fatalError("the transport sequence number does not round-trip")
    }
}

/// Text from a rendezvous WebSocket: JSON, client and server messages, peer signals.
func fuzzSignaling(_ bytes: UnsafeBufferPointer<UInt8>) {
    let text = String(decoding: bytes, as: UTF8.self)
    if let json = try? JSONValue.parse(text) {
        guard (try? JSONValue.parse(json.serialized)) == json else { fatalError("JSON does not round-trip") }
        _ = try? PeerSignal(json: json)
    }
    _ = try? ClientMessage(text: text)
    _ = try? ServerMessage(text: text)
}

/// A datagram on the rendezvous's STUN port: whatever parses must write and parse back the same;
/// the Binding responder may answer only a Binding request, with a Binding response for its
/// transaction that parses, and the client's reading of any datagram must not crash.
func fuzzSTUN(_ buffer: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(buffer)
    let request = try? STUNMessage.parse(bytes)
    if let request, (try? STUNMessage.parse(request.bytes)) != request { fatalError("STUN does not round-trip") }
    let sources = [STUNTransportAddress(address: [192, 0, 2, 1], port: 3478)!, STUNTransportAddress(address: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 12), port: 1)!]
    for source in sources {
        guard let answer = STUNBindingResponder().respond(to: bytes, from: source) else { continue }
        if bytes.count >= 20, Array(bytes[4..<8]) != [0x21, 0x12, 0xA4, 0x42] {
            // An RFC 3489 request: the classic answer, its whole id back.
            guard bytes[0] == 0, bytes[1] == 1, answer.count == 32, answer[0] == 1, answer[1] == 1, answer[4..<20] == bytes[4..<20] else {
                fatalError("the classic answer is not one")
            }
            continue
        }
        guard let request, request.messageClass == .request, request.method == .binding else { fatalError("answered what is not a Binding request") }
        guard let response = try? STUNMessage.parse(answer), response.transactionID == request.transactionID, response.method == .binding,
              response.messageClass == .successResponse || response.messageClass == .errorResponse else {
            fatalError("the answer is not a Binding response to the request")
        }
        if response.messageClass == .successResponse,
           STUNBindingRequest(transactionID: request.transactionID).response(in: answer) != .mapped(source) {
            fatalError("the answer does not map the source address")
        }
    }
    if bytes.count >= 20, let id = STUNTransactionID(Array(bytes[8..<20])) {
        _ = STUNBindingRequest(transactionID: id).response(in: bytes)
    }
}

/// Datagrams from a home router's port-mapping server (PCP, NAT-PMP): whatever parses must write
/// and read back the same, and no datagram may make a session asking for a mapping trap.
func fuzzPortMapping(_ buffer: UnsafeBufferPointer<UInt8>) {
    let bytes = Array(buffer)
    if let response = try? PCPResponse(bytes: bytes), (try? PCPResponse(bytes: response.bytes)) != response {
        fatalError("PCP response does not round-trip")
    }
    if let request = try? PCPMapRequest(bytes: bytes), (try? PCPMapRequest(bytes: request.bytes)) != request {
        fatalError("PCP MAP request does not round-trip")
    }
    if let response = try? NATPMPResponse(bytes: bytes), (try? NATPMPResponse(bytes: response.bytes)) != response {
        fatalError("NAT-PMP response does not round-trip")
    }
    if let request = try? NATPMPRequest(bytes: bytes), (try? NATPMPRequest(bytes: request.bytes)) != request {
        fatalError("NAT-PMP request does not round-trip")
    }
    var random = SeededRandom(seed: 1)
    let gateway = IPv4Address(192, 168, 1, 1)
    let session = PortMappingSession(configuration: .init(clientAddress: IPv4Address(192, 168, 1, 2), gateway: gateway,
                                                          mappings: [WantedMapping(.tcp, internalPort: 7373), WantedMapping(.udp, internalPort: 7373)]),
                                     random: &random)
    session.handle(.start, now: .zero)
    session.handle(.received(bytes, from: gateway, port: PortMappingSession.gatewayPort), now: .zero)
    session.handle(.timeout, now: Instant(nanoseconds: 2_000_000_000))
    session.handle(.received(bytes, from: gateway, port: PortMappingSession.gatewayPort), now: Instant(nanoseconds: 2_000_000_000))
    session.handle(.release, now: Instant(nanoseconds: 3_000_000_000))
    while session.pollOutput() != nil {}
}

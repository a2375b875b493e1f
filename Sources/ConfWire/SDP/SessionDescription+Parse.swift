import ConfCore

extension SessionDescription {
    public static let maxBytes = 65_536
    static let maxLines = 2_000
    static let maxMediaSections = 16
    /// More than a peer needs for five hash functions and a certificate change (RFC 8122 section 5).
    static let maxFingerprints = 16
    static let maxMediaStreams = 8

    /// Parses SDP text (RFC 8866) from the network. Lines may end in CRLF or LF. Unknown attributes
    /// are skipped; malformed lines of the kinds conf relies on are errors naming the line.
    /// Session-level ICE credentials, fingerprints and setup are copied into every media section;
    /// a section's own fingerprints replace the session's (RFC 8122 section 5).
    public static func parse(_ text: String) throws(SDPError) -> SessionDescription {
        guard text.utf8.count <= maxBytes else { throw .tooLarge(limit: maxBytes) }
        let lines = text.split(omittingEmptySubsequences: true) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        guard lines.count <= maxLines else { throw .malformed(line: maxLines, reason: "more than \(maxLines) lines") }

        var description = SessionDescription(sessionID: 0, bundle: [], media: [])
        var session = MediaDescription(kind: .other("session"), proto: "", formats: [], mid: nil)
        var sawVersion = false, sawOrigin = false
        var current: MediaDescription?

        for (offset, raw) in lines.enumerated() {
            let number = offset + 1
            let line = String(raw)
            guard line.utf8.count >= 2, line.utf8.dropFirst().first == UInt8(ascii: "=") else {
                throw .malformed(line: number, reason: "expected 'x=value'")
            }
            let type = line.first!
            let value = String(line.dropFirst(2))
            switch type {
            case "v":
                guard value == "0" else { throw .malformed(line: number, reason: "version must be 0") }
                sawVersion = true
            case "o":
                let fields = value.split(separator: " ")
                guard fields.count == 6, let id = UInt64(fields[1]), let version = UInt64(fields[2]) else {
                    throw .malformed(line: number, reason: "origin must be 'o=- SESSION-ID VERSION IN IP4 ADDRESS'")
                }
                description.sessionID = id
                description.sessionVersion = version
                sawOrigin = true
            case "m":
                if let current { description.media.append(finished(current, session: session)) }
                guard description.media.count < maxMediaSections else {
                    throw .malformed(line: number, reason: "more than \(maxMediaSections) media sections")
                }
                current = try parseMediaLine(value, line: number, inheriting: session)
            case "a":
                if current != nil {
                    try apply(attribute: value, to: &current!, line: number)
                } else if value.hasPrefix("group:BUNDLE") {
                    description.bundle = value.dropFirst("group:BUNDLE".count).split(separator: " ").map(String.init)
                } else if value.hasPrefix("x-conf-sas-commit:") {
                    // 32 bytes in hex, or nothing: a malformed commitment is no commitment.
                    description.sasCommitment = Hex.bytes(String(value.dropFirst("x-conf-sas-commit:".count)), count: 32)
                } else if value.hasPrefix("x-conf-sas:") {
                    description.exporterSAS = value.dropFirst("x-conf-sas:".count).split(separator: " ").contains("exporter")
                } else {
                    try apply(attribute: value, to: &session, line: number)
                }
            default:
                continue  // s=, t=, c=, b=, i=, ... carry nothing conf uses
            }
        }
        if let current { description.media.append(finished(current, session: session)) }
        guard sawVersion else { throw .missing("v= line") }
        guard sawOrigin else { throw .missing("o= line") }
        guard !description.media.isEmpty else { throw .missing("media section (m= line)") }
        return description
    }

    private static func parseMediaLine(_ value: String, line: Int, inheriting session: MediaDescription) throws(SDPError) -> MediaDescription {
        let fields = value.split(separator: " ").map(String.init)
        guard fields.count >= 4 else { throw .malformed(line: line, reason: "m= needs media, port, proto and formats") }
        guard let port = UInt16(fields[1].split(separator: "/").first ?? "") else {
            throw .malformed(line: line, reason: "m= port must be 0 to 65535")
        }
        var media = MediaDescription(kind: MediaKind(fields[0]), port: port, proto: fields[2], formats: Array(fields[3...]), mid: nil)
        media.iceUfrag = session.iceUfrag
        media.icePwd = session.icePwd
        media.iceOptions = session.iceOptions
        media.setup = session.setup
        media.direction = session.direction
        return media
    }

    private static func finished(_ media: MediaDescription, session: MediaDescription) -> MediaDescription {
        guard media.fingerprints.isEmpty else { return media }
        var media = media
        media.fingerprints = session.fingerprints
        return media
    }

    private static func apply(attribute: String, to media: inout MediaDescription, line: Int) throws(SDPError) {
        let name = String(attribute.prefix { $0 != ":" })
        let value = attribute.count > name.count ? String(attribute.dropFirst(name.count + 1)) : ""
        func fail(_ reason: String) -> SDPError { .malformed(line: line, reason: "a=\(name): \(reason)") }

        switch name {
        case "mid":
            guard IceCandidate.isToken(value, maxLength: 32) else { throw fail("a mid is 1 to 32 printable characters") }
            media.mid = value
        case "sendrecv", "sendonly", "recvonly", "inactive":
            media.direction = Direction(rawValue: name)!
        case "ice-ufrag":
            guard IceCandidate.isToken(value, maxLength: 256), value.utf8.count >= 4 else { throw fail("4 to 256 characters") }
            media.iceUfrag = value
        case "ice-pwd":
            guard IceCandidate.isToken(value, maxLength: 256), value.utf8.count >= 22 else { throw fail("22 to 256 characters") }
            media.icePwd = value
        case "ice-options":
            media.iceOptions = value.split(separator: " ").map(String.init)
        case "fingerprint":
            guard media.fingerprints.count < maxFingerprints else { throw fail("more than \(maxFingerprints) fingerprints") }
            media.fingerprints.append(try parseFingerprint(value, fail))
        case "msid":
            // Tolerated, not relied on: a malformed one is skipped, not a reason to refuse the SDP.
            let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
            guard media.mediaStreams.count < maxMediaStreams, let first = parts.first,
                  let id = MediaStreamID(stream: first, track: parts.count > 1 ? parts[1] : nil)
            else { break }
            media.mediaStreams.append(id)
        case "setup":
            guard let role = SetupRole(rawValue: value) else { throw fail("must be actpass, active or passive") }
            media.setup = role
        case "rtcp-mux":
            media.rtcpMux = true
        case "rtcp-rsize":
            media.rtcpReducedSize = true
        case "bundle-only":
            media.bundleOnly = true
        case "rtpmap":
            let parts = value.split(separator: " ", maxSplits: 1)
            let codec = parts.count == 2 ? parts[1].split(separator: "/") : []
            guard parts.count == 2, let pt = UInt8(parts[0]), pt < 128, codec.count >= 2, let rate = UInt32(codec[1]) else {
                throw fail("expected 'PT ENCODING/RATE[/CHANNELS]'")
            }
            let channels = codec.count > 2 ? UInt8(codec[2]) : nil
            media.rtpMaps.append(RTPMap(payloadType: pt, encoding: String(codec[0]), clockRate: rate, channels: channels))
        case "fmtp":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2, let pt = UInt8(parts[0]), pt < 128 else { throw fail("expected 'PT PARAMETERS'") }
            media.formatParameters[pt] = String(parts[1])
        case "rtcp-fb":
            let parts = value.split(separator: " ", maxSplits: 1)
            guard parts.count == 2 else { throw fail("expected 'PT FEEDBACK'") }
            media.rtcpFeedback.append((String(parts[0]), String(parts[1])))
        case "extmap":
            let parts = value.split(separator: " ")
            guard parts.count >= 2, let id = UInt8(parts[0].split(separator: "/")[0]), (1...255).contains(id) else {
                throw fail("expected 'ID URI'")
            }
            media.extensions.append((id, String(parts[1])))
        case "ssrc":
            guard let ssrc = UInt32(value.prefix { $0 != " " }) else { throw fail("the SSRC must fit 32 bits") }
            if !media.ssrcs.contains(ssrc) { media.ssrcs.append(ssrc) }
        case "sctp-port":
            guard let port = UInt16(value) else { throw fail("a port from 0 to 65535") }
            media.sctpPort = port
        case "maxptime":
            guard let time = UInt32(value) else { throw fail("a time in milliseconds") }
            media.maxPacketTime = time
        case "max-message-size":
            guard let size = UInt32(value) else { throw fail("a size in bytes") }
            media.maxMessageSize = size
        case "candidate":
            switch IceCandidate.parse(attribute) {
            case .success(let candidate): media.candidates.append(candidate)
            case .failure(let error): throw .malformed(line: line, reason: error.description)
            }
        case "end-of-candidates":
            media.endOfCandidates = true
        default:
            break
        }
    }

    /// `hash-func SP fingerprint` (RFC 8122 section 5). Hash functions conf cannot compute are
    /// kept (the negotiation decides whether enough is left to verify the peer); the known ones
    /// must have their digest's length.
    private static func parseFingerprint(_ value: String, _ fail: (String) -> SDPError) throws(SDPError) -> Fingerprint {
        let parts = value.split(separator: " ")
        guard parts.count == 2 else { throw fail("expected 'sha-256 AB:CD:...'") }
        let algorithm = parts[0].lowercased()
        guard IceCandidate.isToken(algorithm, maxLength: 16) else { throw fail("the hash function must be a name of up to 16 characters") }
        var bytes: [UInt8] = []
        for pair in parts[1].split(separator: ":", omittingEmptySubsequences: false) {
            guard pair.count == 2, let byte = UInt8(pair, radix: 16) else { throw fail("the hash must be hex pairs separated by ':'") }
            bytes.append(byte)
        }
        let fingerprint = Fingerprint(algorithm: algorithm, bytes: bytes)
        if let function = fingerprint.hashFunction, bytes.count != function.digestLength {
            throw fail("a \(algorithm) hash has \(function.digestLength) bytes, not \(bytes.count)")
        }
        guard (1...64).contains(bytes.count) else { throw fail("a hash has 1 to 64 bytes, not \(bytes.count)") }
        return fingerprint
    }
}

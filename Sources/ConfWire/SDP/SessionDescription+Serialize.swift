import ConfCore

extension SessionDescription {
    /// SDP text with CRLF line ends (RFC 8866 section 5).
    public var serialized: String {
        var lines = ["v=0", "o=- \(sessionID) \(sessionVersion) IN IP4 127.0.0.1", "s=-", "t=0 0"]
        if !bundle.isEmpty { lines.append("a=group:BUNDLE " + bundle.joined(separator: " ")) }
        lines.append("a=msid-semantic: WMS *")
        if exporterSAS { lines.append("a=x-conf-sas:exporter") }
        if let sasCommitment { lines.append("a=x-conf-sas-commit:" + Hex.string(sasCommitment)) }
        for media in media { lines += media.lines }
        return lines.joined(separator: "\r\n") + "\r\n"
    }
}

extension MediaDescription {
    var lines: [String] {
        var out = ["m=\(kind.name) \(port) \(proto) \(formats.joined(separator: " "))", "c=IN IP4 0.0.0.0"]
        if kind != .application { out.append("a=rtcp:9 IN IP4 0.0.0.0") }
        for candidate in candidates { out.append("a=\(candidate)") }
        if endOfCandidates { out.append("a=end-of-candidates") }
        if let iceUfrag { out.append("a=ice-ufrag:\(iceUfrag)") }
        if let icePwd { out.append("a=ice-pwd:\(icePwd)") }
        if !iceOptions.isEmpty { out.append("a=ice-options:" + iceOptions.joined(separator: " ")) }
        for fingerprint in fingerprints { out.append("a=fingerprint:\(fingerprint)") }
        if let setup { out.append("a=setup:\(setup.rawValue)") }
        if let mid { out.append("a=mid:\(mid)") }
        if bundleOnly { out.append("a=bundle-only") }
        for ext in extensions { out.append("a=extmap:\(ext.id) \(ext.uri)") }
        if kind != .application { out.append("a=\(direction.rawValue)") }
        for stream in mediaStreams { out.append("a=msid:\(stream)") }
        if rtcpMux { out.append("a=rtcp-mux") }
        if rtcpReducedSize { out.append("a=rtcp-rsize") }
        for map in rtpMaps {
            out.append("a=rtpmap:\(map.payloadType) \(map.encoding)/\(map.clockRate)" + (map.channels.map { "/\($0)" } ?? ""))
            for feedback in rtcpFeedback where feedback.payloadType == String(map.payloadType) {
                out.append("a=rtcp-fb:\(feedback.payloadType) \(feedback.value)")
            }
            if let fmtp = formatParameters[map.payloadType] { out.append("a=fmtp:\(map.payloadType) \(fmtp)") }
        }
        if let maxPacketTime { out.append("a=maxptime:\(maxPacketTime)") }
        for ssrc in ssrcs { out.append("a=ssrc:\(ssrc) cname:conf") }
        if let sctpPort { out.append("a=sctp-port:\(sctpPort)") }
        if let maxMessageSize { out.append("a=max-message-size:\(maxMessageSize)") }
        return out
    }
}

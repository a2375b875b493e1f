import ConfWire

/// Transport-wide congestion control in offer/answer: the transport sequence number header
/// extension (`a=extmap`, RFC 8285) on audio and video, and the feedback it makes possible
/// (`a=rtcp-fb:PT transport-cc`, as browsers offer both), and on video `goog-remb`
/// (draft-alvestrand-rmcat-remb-03 section 3): conf sends each peer its share of a downlink they
/// queue in together as a REMB (CallEngine+DownlinkShare), which a browser heeds only where it
/// was negotiated.
extension SDPNegotiation {
    public static let transportSequenceURI = TransportSequenceNumber.uri
    /// The id conf offers the transport sequence number at, in both sections: one BUNDLE
    /// transport shares one id space (RFC 8843), so it must not be audio level's 1.
    public static let transportSequenceExtensionID: UInt8 = 3
    static let transportFeedbackName = "transport-cc"
    static let receiverEstimatedBitrateName = "goog-remb"

    static func offerCongestionControl(in section: inout MediaDescription, payloadType: UInt8, receiverEstimate: Bool) {
        section.extensions.append((transportSequenceExtensionID, transportSequenceURI))
        if receiverEstimate { section.rtcpFeedback.append((String(payloadType), receiverEstimatedBitrateName)) }
        section.rtcpFeedback.append((String(payloadType), transportFeedbackName))
    }

    /// The answer takes the extension only when offered, with the offer's id (RFC 8285 section 6),
    /// and the feedback only as offered.
    static func answerCongestionControl(to remote: MediaDescription, payloadType: UInt8, answer: inout MediaDescription,
                                        negotiated: inout NegotiatedMedia) {
        if let offered = usableTransportSequence(in: remote) {
            answer.extensions.append(offered)
            negotiated.transportSequenceExtension = offered.id
        }
        let feedback = feedbackNames(in: remote, payloadType: payloadType)
        for name in [transportFeedbackName, receiverEstimatedBitrateName] where feedback.contains(name) {
            answer.rtcpFeedback.append((String(payloadType), name))
        }
        negotiated.transportFeedback = feedback.contains(transportFeedbackName)
        negotiated.receiverEstimatedBitrate = feedback.contains(receiverEstimatedBitrateName)
    }

    /// From the peer's answer to our offer: what both sides listed. goog-remb is taken from an
    /// answer to an offer without it too: it only says the peer may send REMB.
    static func acceptCongestionControl(answer theirs: MediaDescription, offer ours: MediaDescription, payloadType: UInt8,
                                        negotiated: inout NegotiatedMedia) {
        if usableTransportSequence(in: ours) != nil { negotiated.transportSequenceExtension = usableTransportSequence(in: theirs)?.id }
        let answered = feedbackNames(in: theirs, payloadType: payloadType)
        negotiated.transportFeedback = answered.contains(transportFeedbackName)
            && feedbackNames(in: ours, payloadType: payloadType).contains(transportFeedbackName)
        negotiated.receiverEstimatedBitrate = answered.contains(receiverEstimatedBitrateName)
    }

    /// The section's transport sequence extension, when at an id that conf's one-byte header
    /// elements can carry (1...14, RFC 8285 section 4.2).
    static func usableTransportSequence(in section: MediaDescription) -> (id: UInt8, uri: String)? {
        section.extensions.first { $0.uri == transportSequenceURI && (1...14).contains($0.id) }
    }

    /// The `a=rtcp-fb` values given for `payloadType` or for every format ("*", RFC 4585 section 4.2).
    static func feedbackNames(in section: MediaDescription, payloadType: UInt8) -> Set<String> {
        Set(section.rtcpFeedback.filter { $0.payloadType == String(payloadType) || $0.payloadType == "*" }.map(\.value))
    }
}

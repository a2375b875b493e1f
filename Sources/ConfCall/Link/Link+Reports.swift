import ConfCore
import ConfSession
import ConfWire

/// The link's RTCP reports (RFC 3550 section 6.4) and its round trip: a sender report the moment
/// DTLS is up and then every `firstRoundTripReportInterval` until one is answered (for at most
/// `firstRoundTripWait`: the peer may not have had its keys when the first came), then a report
/// every interval the engine gives (`CallEngine.reportInterval`): an SR while we send audio,
/// with a block for what we receive. The peer's reports are answered and measured here.
extension Link {
    static let firstRoundTripWait: Duration = .milliseconds(500)
    static let firstRoundTripReportInterval: Duration = .milliseconds(100)

    /// Whether sender reports still go every 100 ms at `time`: from DTLS up until one is
    /// answered (a round trip measured), for at most `firstRoundTripWait`.
    func measuresFirstRoundTrip(at time: Instant) -> Bool {
        guard meter.latest == nil, let up = dtlsConnectedAt else { return false }
        return time < up + Self.firstRoundTripWait
    }

    /// When the next report is due, reporting every `interval` once the round trip is known.
    func nextReport(interval: Duration) -> Instant {
        let quick = lastReportSent + Self.firstRoundTripReportInterval
        return measuresFirstRoundTrip(at: quick) ? quick : lastReportSent + interval
    }

    /// The first sender report, as DTLS comes up.
    func sendFirstReport(now: Instant) {
        sendRTCP(meter.senderReport(now: now))
    }

    /// A report, if one is due by `now`.
    func sendReportIfDue(interval: Duration, now: Instant) {
        if measuresFirstRoundTrip(at: now) {
            guard now.since(lastReportSent) >= Self.firstRoundTripReportInterval else { return }
            lastReportSent = now
            sendRTCP(meter.senderReport(now: now))
        } else if now.since(lastReportSent) >= interval {
            lastReportSent = now
            var reception = audioIn?.reception
            // Audio gathered for a long packet has been captured, not sent: "now" on the RTP clock is past it.
            let sent = audioOut.senderInfo.map { ($0.packets, $0.octets, $0.rtpTimestamp &+ audioPackets.pendingSamples) }
            sendRTCP(meter.report(now: now, sent: sent, reception: &reception))
            audioIn?.reception = reception
        }
    }

    /// The peer's RTCP as the round trip sees it: its reports answered, the round trip measured
    /// (for the estimator and the video receiver's patience), and while the first round trip is
    /// still awaited another SR (the peer has its keys now: it sent this).
    func measureRoundTrip(_ packets: [RTCPPacket], now: Instant) {
        if let answer = meter.received(packets, now: now) { sendRTCP(answer) }
        tookRoundTrip(now: now)
        if measuresFirstRoundTrip(at: now) { sendRTCP(meter.senderReport(now: now)) }
    }
}

import ConfCore
import ConfSession
import ConfWire

/// One encoding, each link at its own rate: a frame is packetised once, then each link's
/// `TemporalLayerSelector` decides whether it gets it (the layers its estimate carries), its
/// `VP8PictureIDRewriter` numbers the frames it gets without gaps, and its own RTP stream and
/// pacer send them. A link paused for bandwidth gets no video (its audio goes on) and starts
/// again at a key frame.
extension CallEngine {
    /// One encoded frame; `layer` nil for a stream without temporal layers (`.videoFrame`).
    func sendVideo(_ frame: [UInt8], layer: VP8FrameLayer?, captured: Instant, now: Instant) {
        guard configuration.sendsVideo, !videoMuted else { return }
        let first = firstVideoCapture ?? captured
        firstVideoCapture = first
        let ticks = UInt32(truncatingIfNeeded: Int64(captured.since(first).milliseconds * 90))
        let payloads: [[UInt8]]
        let place: VP8FrameLayer
        if let layer {
            encodedLayers = max(encodedLayers, min(3, Int(layer.temporalLayer) + 1))
            payloads = videoPacketizer.packetize(frame, layer: layer)
            place = layer
        } else {
            encodedLayers = 1
            payloads = videoPacketizer.packetize(frame)
            // RFC 6386 section 9.1: bit 0 of the frame tag is clear on a key frame.
            place = VP8FrameLayer(keyFrame: frame.first.map { $0 & 1 == 0 } ?? false)
        }
        for link in links.values where link.phase == .connected && !link.peerHidesOurVideo {
            guard let video = link.negotiated?.video, video.sends, link.srtp != nil else { continue }
            guard forwards(place, on: link) else { continue }
            link.videoOut.payloadType = video.payloadType
            let packets = link.videoOut.packetize(link.pictureIDs.rewrite(payloads), mediaTime: ticks)
            enqueue(packets, .video, on: link, transportSequenceID: transportSequenceID(video), now: now)
        }
    }

    /// Whether the link gets this frame: not while paused, from a key frame after a pause, then
    /// as its layer selector says.
    private func forwards(_ frame: VP8FrameLayer, on link: PeerConnection) -> Bool {
        guard !link.layerPolicy.paused else { return false }
        if link.videoWaitsForKeyFrame {
            guard frame.keyFrame else { return false }
            link.videoWaitsForKeyFrame = false
        }
        return link.layerSelector.forward(frame)
    }

    /// What the link's video may take, in kbit/s: its estimate less what its audio and its resends
    /// take. Resends count against it as libwebrtc counts its protection overhead: on a path
    /// that loses, media at the whole estimate plus the resends it asks for (up to half the
    /// estimate, `RetransmissionLimiter`) would overrun it and lose more.
    func videoBudgetKbps(_ link: PeerConnection) -> Int {
        max(0, link.congestion.target - Int(link.traffic.audioBitsPerSecond) - Int(link.recentResendBitsPerSecond)) / 1000
    }

    /// The links that get our video, connected (a peer that hides it gets none, and its budget
    /// does not set the encoder's).
    var videoLinks: [PeerConnection] {
        links.values.filter { $0.phase == .connected && $0.negotiated?.video?.sends == true && $0.srtp != nil && !$0.peerHidesOurVideo }
    }

    /// The encoder's target: the best link's video budget, at least `minimumVideoKbps`, at most
    /// the configured bitrate.
    var encoderTargetKbps: Int {
        let best = videoLinks.map(videoBudgetKbps).max() ?? configuration.videoBitrateKbps
        return min(configuration.videoBitrateKbps, max(Self.minimumVideoKbps, best))
    }

    /// Each link's layers and pause from its budget now; `video-paused` / `video-resumed`.
    func updateLayers(encoderKbps: Int, now: Instant) {
        guard configuration.sendsVideo else { return }
        for link in videoLinks.sorted(by: { $0.id.rawValue < $1.id.rawValue }) {
            let change = link.layerPolicy.update(budgetKbps: videoBudgetKbps(link), encoderKbps: encoderKbps, layers: encodedLayers, now: now)
            link.layerSelector.maximumLayer = link.layerPolicy.maximumLayer
            switch change {
            case .paused:
                link.congestion.dropQueued(.video)
                link.congestion.dropQueued(.retransmission)
                outputs.append(.event(.videoPaused(link.peer, reason: .bandwidth)))
            case .resumed:
                link.videoWaitsForKeyFrame = true
                outputs.append(.keyFrameRequested)
                outputs.append(.event(.videoResumed(link.peer)))
            case nil:
                break
            }
        }
    }

    /// The temporal layers the link is being sent now: 0 while paused.
    func forwardedLayers(_ link: PeerConnection) -> Int {
        link.layerPolicy.paused || configuration.sendsVideo == false ? 0 : min(encodedLayers, Int(link.layerSelector.currentLayer) + 1)
    }
}

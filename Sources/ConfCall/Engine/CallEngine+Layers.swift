import ConfCore
import ConfSession
import ConfWire

/// One encoding, each link at its own rate: a frame is packetised once, then each link's
/// `TemporalLayerSelector` decides whether it gets it (the layers its estimate carries), its
/// `VP8PictureIDRewriter` numbers the frames it gets without gaps, and its own RTP stream and
/// pacer send them. A link paused for bandwidth gets no video (its audio goes on) and starts
/// again at a key frame.
extension CallEngine {
    /// One encoded frame of `encoding`; `layer` nil for a stream without temporal layers (`.videoFrame`).
    func sendVideo(_ frame: [UInt8], layer: VP8FrameLayer?, encoding: VideoEncoding = .full, captured: Instant, now: Instant) {
        guard configuration.sendsVideo, !videoMuted else { return }
        let first = firstVideoCapture ?? captured
        firstVideoCapture = first
        let ticks = UInt32(truncatingIfNeeded: Int64(captured.since(first).milliseconds * 90))
        let payloads: [[UInt8]]
        let place: VP8FrameLayer
        if let layer {
            let layers = min(3, Int(layer.temporalLayer) + 1)
            if encoding == .small {
                smallEncodedLayers = max(smallEncodedLayers, layers)
                payloads = smallVideoPacketizer.packetize(frame, layer: layer)
            } else {
                encodedLayers = max(encodedLayers, layers)
                payloads = videoPacketizer.packetize(frame, layer: layer)
            }
            place = layer
        } else {
            encodedLayers = 1
            payloads = videoPacketizer.packetize(frame)
            // RFC 6386 section 9.1: bit 0 of the frame tag is clear on a key frame.
            place = VP8FrameLayer(keyFrame: frame.first.map { $0 & 1 == 0 } ?? false)
        }
        if place.keyFrame, encoding == .full {
            newLinkKeyFrameAsked = false
            newLinkKeyFrameDue = nil  // the links waiting take this one
        }
        for link in linksInOrder where link.phase == .connected && !link.peerHidesOurVideo && link.forwarding.mayGet(encoding) {
            guard let video = link.negotiated?.video, video.sends, link.srtp != nil else { continue }
            guard link.forwarding.forwards(place, of: encoding) else { continue }
            link.videoOut.payloadType = video.payloadType
            let packets = link.videoOut.packetize(link.forwarding.numbered(payloads), mediaTime: ticks)
            enqueue(packets, .video, on: link, transportSequenceID: transportSequenceID(video), now: now)
            if place.keyFrame { link.forwarding.keyFrameSentAt = now + link.congestion.pacer.queueTime }
        }
    }

    /// A PLI from this link asks for a key frame unless one is still on its way to it: a PLI
    /// that left the peer before our last key frame could reach it (from when the key frame is
    /// due out of the pacer, a round trip, at most `maximumHeldRoundTrip`, and `keyFrameTransit`
    /// for its packets to follow one another). In a mesh one encoder serves every link, so each
    /// receiver's late PLI for a key frame already sent made another, each several frames' worth
    /// to every link at once: seen at the start through a capped uplink, eight key frames in 2.6
    /// s. A receiver whose frames stay unusable asks again (conf's at most every 300 ms, for each
    /// frame it cannot use), and that request is answered once the window has passed.
    func keyFrameAnswersPictureLoss(on link: PeerConnection, now: Instant) -> Bool {
        guard let sent = link.forwarding.keyFrameSentAt else { return true }
        return now.since(sent) >= min(link.meter.latest ?? .zero, Self.maximumHeldRoundTrip) + Self.keyFrameTransit
    }

    static let keyFrameTransit: Duration = .milliseconds(150)
    static let maximumHeldRoundTrip: Duration = .seconds(1)

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
        linksInOrder.filter { $0.phase == .connected && $0.negotiated?.video?.sends == true && $0.srtp != nil && !$0.peerHidesOurVideo }
    }

    /// `.videoWanted` when it changed whether the encoder has anyone to encode for: no while
    /// every link is paused for bandwidth or hides our video, whose CPU a slow machine's links
    /// then lack. Alone in the room it still runs: started only with the first link, the first
    /// second after link-up went out short of its upper layers (Tests/FLAKES.md, LossTests).
    func sayWhetherVideoIsWanted() {
        guard configuration.sendsVideo, !isLeaving else { return }
        let live = links.lazy.filter { $0.phase != .disconnected }
        let wanted = live.isEmpty || live.contains { !$0.peerHidesOurVideo && !$0.forwarding.paused }
        guard wanted != videoWantedSaid else { return }
        videoWantedSaid = wanted
        outputs.append(.videoWanted(wanted))
    }

    /// The encoder's target: the best budget among the links (`encodingBudgetKbps`), at least
    /// `minimumVideoKbps`, at most the configured bitrate.
    var encoderTargetKbps: Int {
        let best = encodingBudgetKbps(videoLinks) ?? configuration.videoBitrateKbps
        return min(configuration.videoBitrateKbps, max(Self.minimumVideoKbps, best))
    }

    /// The most one encoding should make for `links`: the best of their video budgets, where the
    /// links that share our uplink (`shareBottleneck`) count as one, at the least of their
    /// budgets (a paused one aside); nil for no links. They send at one rate, so their budgets
    /// differ only by their resends, and one link's resends take that uplink from all of them.
    /// Counted apart, the link without resends would set the encoder, and each link with a few
    /// would lose its top layer, half its frame rate, and go without a frame whenever libvpx
    /// skipped base-layer pictures to pay for a large one.
    func encodingBudgetKbps(_ links: [PeerConnection]) -> Int? {
        let grouped = links.filter { $0.congestion.share != nil && !$0.forwarding.paused }
        let apart = links.filter { $0.congestion.share == nil || $0.forwarding.paused }.map(videoBudgetKbps)
        return (apart + [grouped.map(videoBudgetKbps).min()].compactMap { $0 }).max()
    }

    /// The small encoding's target while some link is on it: the best budget among those links
    /// (`encodingBudgetKbps`), within `minimumSmallVideoKbps` and half the full encoding's target
    /// (a quarter of the pixels needs no more) or its floor, whichever is more (links under the
    /// floor take all their budget in the small encoding); nil while no link is on it, or is
    /// still sent it until the full one's key frame.
    func smallTargetKbps(fullKbps: Int) -> Int? {
        let onSmall = videoLinks.filter { $0.forwarding.mayGet(.small) }
        guard let best = encodingBudgetKbps(onSmall) else { return nil }
        return max(Self.minimumSmallVideoKbps, min(max(fullKbps / 2, fullVideoFloorKbps), best))
    }

    /// What a link's budget must reach for the full encoding: the driver's floor for its picture
    /// (`Configuration.fullVideoFloorKbps`), but no more than half of `--video-bitrate` (asked
    /// for a low rate, the full picture is what was asked for); 0 without one.
    var fullVideoFloorKbps: Int {
        configuration.fullVideoFloorKbps.map { min($0, configuration.videoBitrateKbps / 2) } ?? 0
    }

    /// Each link's encoding, layers and pause from its budget now; `video-paused` / `video-resumed`.
    /// A link that cannot carry half the full encoding's frame rate, or the full picture's floor
    /// once its estimate has settled (`shareSettling` after it came up), moves to the small
    /// encoding where the driver makes one (`Configuration.smallVideo`, `LinkEncodingChoice`); it
    /// pauses only when it cannot carry the small one's base layer. Not before its estimate has
    /// settled: in a call's first seconds a weak peer's link still counts in the uplink's group,
    /// whose least would put every link under the floor, and the way back to full is a key frame
    /// large enough to hold the healthy links for half a second.
    func updateLayers(encoderKbps: Int, now: Instant) {
        guard configuration.sendsVideo else { return }
        let links = videoLinks
        if configuration.smallVideo {
            let halfFrameRate = LinkLayerPolicy.halfFrameRateKbps(encoderKbps: encoderKbps, layers: encodedLayers)
            for link in links where !link.forwarding.paused {
                let fullNeeds = max(halfFrameRate, link.isUp(for: Self.shareSettling, now: now) ? fullVideoFloorKbps : 0)
                guard let encoding = link.forwarding.chooseEncoding(budgetKbps: videoBudgetKbps(link), fullNeedsKbps: fullNeeds, now: now) else { continue }
                // Under the floor but over the half-rate layers, the full picture still fits
                // meanwhile; under those, it would overrun the link until the small one came.
                switchEncoding(link, to: encoding, keepingTheOld: encoding == .full || videoBudgetKbps(link) >= halfFrameRate)
            }
        }
        let smallKbps = smallTargetKbps(fullKbps: encoderKbps)
        askSmallVideoBitrate(smallKbps, now: now)
        for link in links {
            let small = link.forwarding.encoding == .small
            let change = link.forwarding.judge(budgetKbps: videoBudgetKbps(link), encoderKbps: small ? smallKbps ?? encoderKbps : encoderKbps,
                                               layers: encodedLayers(for: link), now: now)
            switch change {
            case .paused:
                link.congestion.dropQueued(.video)
                link.congestion.dropQueued(.retransmission)
                outputs.append(.event(.videoPaused(link.peer, reason: .bandwidth)))
            case .resumed:
                link.forwarding.waitForKeyFrame()
                outputs.append(keyFrameRequest(for: link))
                outputs.append(.event(.videoResumed(link.peer)))
            case nil:
                break
            }
        }
    }

    /// No small encoding after all (its encoder would not start): the links waiting for it go back
    /// to the full one, where their budgets decide their layers or a pause, as without one.
    func smallVideoUnavailable(now: Instant) {
        guard configuration.smallVideo else { return }
        configuration.smallVideo = false
        outputs.append(.note(.smallVideoUnavailable))
        for link in videoLinks where link.forwarding.chosenEncoding == .small {
            link.forwarding.forgetTheEncodingChoice()
            switchEncoding(link, to: .full, keepingTheOld: false)
        }
        askSmallVideoBitrate(nil, now: now)
    }

    /// The link is sent `encoding` from its next key frame (asked for now; a small encoding that
    /// is only starting begins with one), keeping the old one meanwhile or not as
    /// `VideoForwarding.move` says; what was queued of the old one goes when it starts afresh.
    private func switchEncoding(_ link: PeerConnection, to encoding: VideoEncoding, keepingTheOld: Bool) {
        switch link.forwarding.move(to: encoding, keepingTheOld: keepingTheOld) {
        case .backBeforeTheKeyFrame: return
        case .keepsTheOldMeanwhile: break
        case .startsAfresh: link.congestion.dropQueued(.video)
        }
        outputs.append(.note(.linkEncoding(link.peer, encoding)))
        if encoding == .full || smallVideoAsked != nil { outputs.append(keyFrameRequest(for: link)) }
    }

    /// What asks for a key frame of the encoding the link is on.
    func keyFrameRequest(for link: PeerConnection) -> Output {
        link.forwarding.chosenEncoding == .small ? .smallKeyFrameRequested : .keyFrameRequested
    }

    /// How many temporal layers the encoding the link is on makes.
    func encodedLayers(for link: PeerConnection) -> Int {
        link.forwarding.encoding == .small ? smallEncodedLayers : encodedLayers
    }

    /// The temporal layers the link is being sent now: 0 while paused.
    func forwardedLayers(_ link: PeerConnection) -> Int {
        configuration.sendsVideo ? link.forwarding.forwardedLayers(encoded: encodedLayers(for: link)) : 0
    }
}

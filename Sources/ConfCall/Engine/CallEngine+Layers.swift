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
        let packetized = outgoingVideo.packetize(frame, layer: layer, encoding: encoding, captured: captured)
        let place = packetized.place
        for link in linksInOrder where link.phase == .connected && !link.peerHidesOurVideo && link.forwarding.mayGet(encoding) {
            guard let video = link.negotiated?.video, video.sends, link.srtp != nil else { continue }
            guard link.forwarding.forwards(place, of: encoding) else { continue }
            link.videoOut.payloadType = video.payloadType
            let packets = link.videoOut.packetize(link.forwarding.numbered(packetized.payloads), mediaTime: packetized.mediaTime)
            enqueue(packets, .video, on: link, transportSequenceID: link.transportSequenceID(video), now: now)
            if place.keyFrame { link.forwarding.sentKeyFrame(leaving: now + link.congestion.pacer.queueTime) }
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
    func keyFrameAnswersPictureLoss(on link: Link, now: Instant) -> Bool {
        guard let sent = link.forwarding.keyFrameSentAt else { return true }
        return now.since(sent) >= min(link.meter.latest ?? .zero, Self.maximumHeldRoundTrip) + Self.keyFrameTransit
    }

    static let keyFrameTransit: Duration = .milliseconds(150)
    static let maximumHeldRoundTrip: Duration = .seconds(1)

    /// What the link's video may take, in kbit/s: its estimate less what its audio and its resends
    /// take. Resends count against it as libwebrtc counts its protection overhead: on a path
    /// that loses, media at the whole estimate plus the resends it asks for (up to half the
    /// estimate, `RetransmissionLimiter`) would overrun it and lose more.
    func videoBudgetKbps(_ link: Link) -> Int {
        max(0, link.congestion.target - Int(link.traffic.audioBitsPerSecond) - Int(link.recentResendBitsPerSecond)) / 1000
    }

    /// The links that get our video, connected (a peer that hides it gets none, and its budget
    /// does not set the encoder's).
    var videoLinks: [Link] {
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
        guard wanted != outgoingVideo.wantedSaid else { return }
        outgoingVideo.wantedSaid = wanted
        outputs.append(.videoWanted(wanted))
    }

    /// The allocator with this call's settings.
    var videoAllocator: VideoAllocator {
        VideoAllocator(videoBitrateKbps: configuration.videoBitrateKbps, minimumVideoKbps: Self.minimumVideoKbps,
                       minimumSmallVideoKbps: Self.minimumSmallVideoKbps, fullVideoFloorKbps: fullVideoFloorKbps,
                       smallVideo: configuration.smallVideo)
    }

    /// A link as the allocator sees it.
    func allocated(_ link: Link, now: Instant) -> VideoAllocator.Recipient {
        VideoAllocator.Recipient(id: link.id, budgetKbps: videoBudgetKbps(link), sharesUplink: link.congestion.share != nil,
                                 settled: link.isUp(for: Self.shareSettling, now: now), forwarding: link.forwarding)
    }

    /// What a link's budget must reach for the full encoding: the driver's floor for its picture
    /// (`Configuration.fullVideoFloorKbps`), but no more than half of `--video-bitrate` (asked
    /// for a low rate, the full picture is what was asked for); 0 without one.
    var fullVideoFloorKbps: Int {
        configuration.fullVideoFloorKbps.map { min($0, configuration.videoBitrateKbps / 2) } ?? 0
    }

    /// The encoder's target, and each link's encoding, layers and pause from its budget now, as
    /// `VideoAllocator` says; `video-paused` / `video-resumed`, key frame requests, the small
    /// encoder's target. Returns the full encoder's target.
    func updateLayers(now: Instant) -> Int {
        let links = videoLinks
        var allocated = links.map { self.allocated($0, now: now) }
        let allocator = videoAllocator
        let encoderKbps = allocator.encoderTargetKbps(allocated)
        guard configuration.sendsVideo else { return encoderKbps }
        let moves = allocator.chooseEncodings(&allocated, encoderKbps: encoderKbps, layers: outgoingVideo.layers(of: .full), now: now)
        for (link, state) in zip(links, allocated) { link.forwarding = state.forwarding }
        for move in moves {
            guard let link = peerSlots[move.id]?.link else { continue }
            movedEncoding(link, to: move.encoding, move.how)
        }
        let smallKbps = allocator.smallTargetKbps(allocated, fullKbps: encoderKbps)
        askSmallVideoBitrate(smallKbps, now: now)
        let changes = allocator.judgeLayers(&allocated, encoderKbps: encoderKbps, smallKbps: smallKbps,
                                            layers: { [outgoingVideo] in outgoingVideo.layers(of: $0) }, now: now)
        for (link, state) in zip(links, allocated) { link.forwarding = state.forwarding }
        for (id, change) in changes {
            guard let link = peerSlots[id]?.link else { continue }
            switch change {
            case .paused:
                link.congestion.dropQueued(.video)
                link.congestion.dropQueued(.retransmission)
                outputs.append(.event(.videoPaused(link.peer, reason: .bandwidth)))
            case .resumed:
                outputs.append(keyFrameRequest(for: link))
                outputs.append(.event(.videoResumed(link.peer)))
            }
        }
        return encoderKbps
    }

    /// No small encoding after all (its encoder would not start): the links waiting for it go back
    /// to the full one, where their budgets decide their layers or a pause, as without one.
    func smallVideoUnavailable(now: Instant) {
        guard configuration.smallVideo else { return }
        configuration.smallVideo = false
        outputs.append(.note(.smallVideoUnavailable))
        for link in videoLinks where link.forwarding.chosenEncoding == .small {
            link.forwarding.forgetTheEncodingChoice()
            movedEncoding(link, to: .full, link.forwarding.move(to: .full, keepingTheOld: false))
        }
        askSmallVideoBitrate(nil, now: now)
    }

    /// The link moved to `encoding` (`VideoForwarding.move`), sent from its next key frame: asked
    /// for now (a small encoding that is only starting begins with one); what was queued of the
    /// old one goes when it starts afresh. Back before that key frame came, nothing changes.
    private func movedEncoding(_ link: Link, to encoding: VideoEncoding, _ how: VideoForwarding.Move) {
        switch how {
        case .backBeforeTheKeyFrame: return
        case .keepsTheOldMeanwhile: break
        case .startsAfresh: link.congestion.dropQueued(.video)
        }
        outputs.append(.note(.linkEncoding(link.peer, encoding)))
        if encoding == .full || outgoingVideo.smallAsked != nil { outputs.append(keyFrameRequest(for: link)) }
    }

    /// What asks for a key frame of the encoding the link is on.
    func keyFrameRequest(for link: Link) -> Output {
        link.forwarding.chosenEncoding == .small ? .smallKeyFrameRequested : .keyFrameRequested
    }

    /// How many temporal layers the encoding the link is on makes.
    func encodedLayers(for link: Link) -> Int {
        outgoingVideo.layers(of: link.forwarding.encoding)
    }

    /// The temporal layers the link is being sent now: 0 while paused.
    func forwardedLayers(_ link: Link) -> Int {
        configuration.sendsVideo ? link.forwarding.forwardedLayers(encoded: encodedLayers(for: link)) : 0
    }
}

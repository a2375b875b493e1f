internal import CVPX
internal import CMediaShims
public import ConfCore
public import ConfWire

/// One encoded VP8 frame and where it sits in the temporal layers.
public struct VP8EncodedFrame: Equatable, Sendable {
    public var data: [UInt8]
    public var layer: VP8FrameLayer

    public var isKeyFrame: Bool { layer.keyFrame }
    public var temporalLayer: UInt8 { layer.temporalLayer }
    public var layerSync: Bool { layer.layerSync }
}

/// One VP8 encoder for the participant's camera (RFC 6386): real-time, constant bit rate, no
/// look-ahead, error resilient. Encode once, send to every peer. With 2 or 3 temporal layers
/// (`VP8TemporalPattern`) each link can take a lower frame rate of the same stream. Not
/// thread-safe: one owner.
public final class VP8Encoder {
    public let width: Int
    public let height: Int
    public let temporalLayers: Int
    /// The total target in kbps, all layers together.
    public private(set) var bitrateKbps: Int
    private var codec = vpx_codec_ctx_t()
    /// Kept to change the bitrate at run time (`vpx_codec_enc_config_set` takes a whole configuration).
    private var config = vpx_codec_enc_cfg_t()
    private let pattern: VP8TemporalPattern
    private let keyFrameInterval: Int
    private var frameCount: Int64 = 0
    /// Timestamps in 1/90,000 s (the RTP video clock): libvpx's rate control takes each frame's
    /// share of the target from the time since the last one, so pictures skipped upstream leave
    /// their bits to the next instead of going unspent. Nominal step: `frameTicks`.
    private static let ticksPerSecond: Int64 = 90_000
    private let frameTicks: Int64
    /// A gap between pictures counts for at most this many frame intervals.
    private static let longestStep: Int64 = 4
    private var lastPTS: Int64?
    private var lastCapture: Instant?
    /// The pattern slot of the next frame; a key frame is slot 0.
    private var slotIndex = 0
    private var framesSinceKeyFrame = 0

    /// `temporalLayers` is 1 (one stream, no layer flags: libvpx chooses references), 2 or 3.
    /// `dropsFrames`: whether rate control may skip a picture too busy for the target (what a call
    /// wants; off where every picture must come out, as in tests of the layer pattern).
    public init(width: Int, height: Int, bitrateKbps: Int = 800, framesPerSecond: Int = 30, temporalLayers: Int = 1,
                dropsFrames: Bool = true) throws(VP8Error) {
        guard let pattern = VP8TemporalPattern(layers: temporalLayers) else { throw VP8Error("VP8 temporal layers must be 1, 2 or 3, not \(temporalLayers)") }
        self.width = width
        self.height = height
        self.temporalLayers = temporalLayers
        self.bitrateKbps = bitrateKbps
        self.pattern = pattern
        // A key frame of its own accord only every 100 s (libwebrtc's VP8 default: 3,000 frames at
        // 30 fps): receivers ask with a PLI when they need one, and asking again is how a lost PLI
        // is made good. In a call a key frame is 8-9 frames' worth of the target, sent to every
        // link at once; rate control then skips about every other picture for a second to pay
        // for it (git show 20307e8:BENCHMARKS.md, "Key frames every 10 s").
        keyFrameInterval = max(1, framesPerSecond * 100)
        frameTicks = max(1, Self.ticksPerSecond / Int64(max(1, framesPerSecond)))
        var status = conf_vp8_encoder_defaults(&config)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot configure VP8", status) }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: Int32(Self.ticksPerSecond))
        config.rc_end_usage = VPX_CBR
        config.g_lag_in_frames = 0
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.g_threads = 1
        config.kf_max_dist = UInt32(keyFrameInterval)
        // A short rate-control buffer (ms of the target rate; libwebrtc's real-time values), so that
        // a new target from the congestion estimate shows in the output within a second rather
        // than after libvpx's default 6 s buffer drains.
        config.rc_buf_initial_sz = 500
        config.rc_buf_optimal_sz = 600
        config.rc_buf_sz = 1000
        // Stay on the target when the picture is too busy for it (libwebrtc's VP8 settings): skip
        // a frame rather than overshoot into a link's queue, quantizers 2...56, undershoot allowed,
        // overshoot 15 %.
        config.rc_dropframe_thresh = dropsFrames ? 30 : 0
        config.rc_min_quantizer = 2
        config.rc_max_quantizer = 56
        config.rc_undershoot_pct = 100
        config.rc_overshoot_pct = 15
        if temporalLayers > 1 {
            // Key frames are placed by us, always in a base-layer slot, so that every link gets them.
            config.kf_mode = VPX_KF_DISABLED
            configureLayers()
        }
        setBitrateFields(bitrateKbps)
        status = conf_vp8_encoder_init(&codec, &config)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot start the VP8 encoder", status) }
        conf_vp8_set_cpu_used(&codec, 8)  // fastest real-time preset
    }

    deinit { vpx_codec_destroy(&codec) }

    /// Changes the target bitrate from the next frame on (the congestion estimate's job); the
    /// layers keep their shares of it.
    public func setBitrate(kbps: Int) throws(VP8Error) {
        let kbps = max(1, kbps)
        setBitrateFields(kbps)
        let status = vpx_codec_enc_config_set(&codec, &config)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot change the VP8 bitrate", status) }
        bitrateKbps = kbps
    }

    /// Encodes one picture; `keyFrame` forces a key frame (after a PLI); `capturedAt`, when the
    /// picture was taken (nil: one nominal frame interval after the last). Nil when the encoder
    /// dropped the frame.
    public func encode(_ frame: VideoFrame, keyFrame: Bool = false, capturedAt: Instant? = nil) throws(VP8Error) -> VP8EncodedFrame? {
        precondition(frame.width == width && frame.height == height, "the encoder was made for \(width)x\(height)")
        let chroma = frame.chromaWidth * frame.chromaHeight
        precondition(frame.y.count >= width * height && frame.u.count >= chroma && frame.v.count >= chroma, "a picture's planes are short")
        let layered = temporalLayers > 1
        let forceKey = keyFrame || (layered && (frameCount == 0 || framesSinceKeyFrame >= keyFrameInterval))
        if forceKey { slotIndex = 0 }
        let slot = pattern.slots[slotIndex]
        // A key frame refreshes every buffer whatever the slot says: no slot flags on it.
        let flags = forceKey ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : layered ? Self.flags(for: slot) : 0
        if layered {
            let status = conf_vp8_set_temporal_layer_id(&codec, Int32(slot.layer))
            guard status == VPX_CODEC_OK else { throw VP8Error("cannot set the VP8 temporal layer", status) }
        }
        let status = encodePicture(frame, flags: flags, pts: presentationTime(capturedAt))
        guard status == VPX_CODEC_OK else { throw VP8Error("VP8 encoding failed", status) }
        slotIndex = (slotIndex + 1) % pattern.slots.count
        framesSinceKeyFrame += 1
        guard let (data, packetFlags) = takeOutput() else { return nil }
        let isKey = packetFlags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0
        if isKey {
            framesSinceKeyFrame = 1
            slotIndex = 1 % pattern.slots.count  // a key frame libvpx chose itself restarts the cycle too
        }
        let layer = VP8FrameLayer(temporalLayer: isKey ? 0 : slot.layer, layerSync: isKey || (layered && slot.layerSync), keyFrame: isKey,
                                  discardable: packetFlags & vpx_codec_frame_flags_t(VPX_FRAME_IS_DROPPABLE) != 0)
        return VP8EncodedFrame(data: data, layer: layer)
    }

    /// The per-frame flags of a slot (vp8cx.h): what it may not predict from, what it may not refresh.
    private static func flags(for slot: VP8TemporalPattern.Slot) -> vpx_enc_frame_flags_t {
        var flags = VP8_EFLAG_NO_REF_ARF | VP8_EFLAG_NO_UPD_ARF
        if !slot.references.contains(.last) { flags |= VP8_EFLAG_NO_REF_LAST }
        if !slot.references.contains(.golden) { flags |= VP8_EFLAG_NO_REF_GF }
        if !slot.updates.contains(.last) { flags |= VP8_EFLAG_NO_UPD_LAST }
        if !slot.updates.contains(.golden) { flags |= VP8_EFLAG_NO_UPD_GF }
        if slot.layer > 0 { flags |= VP8_EFLAG_NO_UPD_ENTROPY }
        return vpx_enc_frame_flags_t(flags)
    }

    // MARK: libvpx

    /// The layer fields of the configuration: count, period, layer ids, frame-rate divisors.
    private func configureLayers() {
        config.ts_number_layers = UInt32(pattern.layers)
        let ids = pattern.layerIDs
        config.ts_periodicity = UInt32(ids.count)
        Self.fill(&config.ts_layer_id, ids.map(UInt32.init))
        Self.fill(&config.ts_rate_decimator, pattern.rateDecimators.map(UInt32.init))
    }

    /// The total target and, with layers, each layer's cumulative share (kbps).
    private func setBitrateFields(_ kbps: Int) {
        config.rc_target_bitrate = UInt32(kbps)
        guard temporalLayers > 1 else { return }
        Self.fill(&config.ts_target_bitrate, pattern.cumulativeBitrates(totalKbps: kbps).map(UInt32.init))
    }

    /// Writes `values` into the front of a C array imported as a tuple of UInt32.
    private static func fill<Tuple>(_ tuple: inout Tuple, _ values: [UInt32]) {
        withUnsafeMutableBytes(of: &tuple) { raw in
            let slots = raw.bindMemory(to: UInt32.self)
            for (index, value) in values.enumerated() where index < slots.count { slots[index] = value }
        }
    }

    /// The next picture's timestamp: a nominal interval after the last, or, given when the
    /// picture was taken, the time since the last one in whole intervals, at most `longestStep`:
    /// given a whole pause (the camera off, the process stopped) as one frame's duration, libvpx
    /// dropped nearly every picture after it for seconds (4 of 60 in the 2 s after a 6 s pause).
    private func presentationTime(_ capturedAt: Instant?) -> Int64 {
        defer { lastCapture = capturedAt }
        var step = frameTicks
        if let capturedAt, let lastCapture {
            // Whole intervals: a picture skipped shows, the jitter of when ticks ran does not
            // (a duration 10 % off makes libvpx re-estimate its frame rate from that one frame).
            let micros = capturedAt.since(lastCapture).nanosecondsClamped / 1_000
            let intervals = (micros * Self.ticksPerSecond / 1_000_000 + frameTicks / 2) / frameTicks
            step = min(max(1, intervals), Self.longestStep) * frameTicks
        }
        let pts = (lastPTS ?? -step) + step
        lastPTS = pts
        return pts
    }

    private func encodePicture(_ frame: VideoFrame, flags: vpx_enc_frame_flags_t, pts: Int64) -> vpx_codec_err_t {
        var image = vpx_image_t()
        // libvpx reads the planes during vpx_codec_encode (it copies the picture into its own
        // lookahead) and never writes them: the arrays' own storage serves, no copy.
        return frame.y.withUnsafeBufferPointer { y in
            frame.u.withUnsafeBufferPointer { u in
                frame.v.withUnsafeBufferPointer { v in
                    let luma = UnsafeMutablePointer(mutating: y.baseAddress)
                    vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, luma)
                    // vpx_img_wrap assumes one buffer with aligned chroma strides; set ours.
                    image.planes.0 = luma
                    image.planes.1 = UnsafeMutablePointer(mutating: u.baseAddress)
                    image.planes.2 = UnsafeMutablePointer(mutating: v.baseAddress)
                    image.stride.0 = Int32(width)
                    image.stride.1 = Int32(frame.chromaWidth)
                    image.stride.2 = Int32(frame.chromaWidth)
                    defer { frameCount += 1 }
                    return vpx_codec_encode(&codec, &image, pts, UInt(frameTicks), flags, UInt(VPX_DL_REALTIME))
                }
            }
        }
    }

    /// The frame libvpx produced for the last picture, with its packet flags; nil when it dropped it.
    private func takeOutput() -> (data: [UInt8], flags: vpx_codec_frame_flags_t)? {
        var iterator: vpx_codec_iter_t?
        var result: (data: [UInt8], flags: vpx_codec_frame_flags_t)?
        while let packet = vpx_codec_get_cx_data(&codec, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let frame = packet.pointee.data.frame
            result = (Array(UnsafeRawBufferPointer(start: frame.buf, count: frame.sz).bindMemory(to: UInt8.self)), frame.flags)
        }
        return result
    }
}

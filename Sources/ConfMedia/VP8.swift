internal import CVPX
internal import CMediaShims

/// Why a libvpx call failed, with libvpx's own words.
public struct VP8Error: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ context: String, _ code: vpx_codec_err_t) { description = "\(context): \(String(cString: vpx_codec_err_to_string(code)))" }
}

/// One VP8 encoder for the participant's camera (RFC 6386): real-time, constant bit rate, no
/// look-ahead, error resilient. Encode once, send to every peer. Not thread-safe: one owner.
public final class VP8Encoder {
    public let width: Int
    public let height: Int
    private var codec = vpx_codec_ctx_t()
    private var frameCount: Int64 = 0

    public init(width: Int, height: Int, bitrateKbps: Int = 800, framesPerSecond: Int = 30) throws(VP8Error) {
        self.width = width
        self.height = height
        var config = vpx_codec_enc_cfg_t()
        var status = conf_vp8_encoder_defaults(&config)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot configure VP8", status) }
        config.g_w = UInt32(width)
        config.g_h = UInt32(height)
        config.g_timebase = vpx_rational(num: 1, den: Int32(framesPerSecond))
        config.rc_target_bitrate = UInt32(bitrateKbps)
        config.rc_end_usage = VPX_CBR
        config.g_lag_in_frames = 0
        config.g_error_resilient = vpx_codec_er_flags_t(VPX_ERROR_RESILIENT_DEFAULT)
        config.g_threads = 1
        config.kf_max_dist = UInt32(framesPerSecond * 10)
        status = conf_vp8_encoder_init(&codec, &config)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot start the VP8 encoder", status) }
        conf_vp8_set_cpu_used(&codec, 8)  // fastest real-time preset
    }

    deinit { vpx_codec_destroy(&codec) }

    /// Encodes one picture; `keyFrame` forces a key frame (after a PLI). Returns the frame's
    /// bytes (nil when the encoder dropped it) and whether it is a key frame.
    public func encode(_ frame: VideoFrame, keyFrame: Bool = false) throws(VP8Error) -> (data: [UInt8], isKeyFrame: Bool)? {
        precondition(frame.width == width && frame.height == height, "the encoder was made for \(width)x\(height)")
        var image = vpx_image_t()
        var planes = frame.y + frame.u + frame.v
        let status = planes.withUnsafeMutableBufferPointer { buffer -> vpx_codec_err_t in
            vpx_img_wrap(&image, VPX_IMG_FMT_I420, UInt32(width), UInt32(height), 1, buffer.baseAddress)
            // vpx_img_wrap assumes aligned chroma strides; set them to ours.
            image.planes.0 = buffer.baseAddress
            image.planes.1 = buffer.baseAddress! + frame.y.count
            image.planes.2 = buffer.baseAddress! + frame.y.count + frame.u.count
            image.stride.0 = Int32(width)
            image.stride.1 = Int32(frame.chromaWidth)
            image.stride.2 = Int32(frame.chromaWidth)
            defer { frameCount += 1 }
            return vpx_codec_encode(&codec, &image, frameCount, 1, keyFrame ? vpx_enc_frame_flags_t(VPX_EFLAG_FORCE_KF) : 0,
                                    UInt(VPX_DL_REALTIME))
        }
        guard status == VPX_CODEC_OK else { throw VP8Error("VP8 encoding failed", status) }
        var iterator: vpx_codec_iter_t?
        var result: (data: [UInt8], isKeyFrame: Bool)?
        while let packet = vpx_codec_get_cx_data(&codec, &iterator) {
            guard packet.pointee.kind == VPX_CODEC_CX_FRAME_PKT else { continue }
            let frame = packet.pointee.data.frame
            let bytes = Array(UnsafeRawBufferPointer(start: frame.buf, count: frame.sz).bindMemory(to: UInt8.self))
            result = (bytes, frame.flags & vpx_codec_frame_flags_t(VPX_FRAME_IS_KEY) != 0)
        }
        return result
    }
}

/// One VP8 decoder per remote participant.
public final class VP8Decoder {
    private var codec = vpx_codec_ctx_t()

    public init() throws(VP8Error) {
        let status = conf_vp8_decoder_init(&codec)
        guard status == VPX_CODEC_OK else { throw VP8Error("cannot start the VP8 decoder", status) }
    }

    deinit { vpx_codec_destroy(&codec) }

    /// The picture in `data`, or nil when libvpx rejects it (corrupt, or a delta frame with no
    /// key frame before it): ask the sender for a key frame then.
    public func decode(_ data: [UInt8]) -> VideoFrame? {
        guard !data.isEmpty else { return nil }
        let status = data.withUnsafeBufferPointer { vpx_codec_decode(&codec, $0.baseAddress, UInt32($0.count), nil, 0) }
        guard status == VPX_CODEC_OK else { return nil }
        var iterator: vpx_codec_iter_t?
        var result: VideoFrame?
        while let image = vpx_codec_get_frame(&codec, &iterator) {
            let w = Int(image.pointee.d_w), h = Int(image.pointee.d_h)
            let cw = (w + 1) / 2, ch = (h + 1) / 2
            func plane(_ index: Int, _ width: Int, _ height: Int) -> [UInt8] {
                let base: UnsafeMutablePointer<UInt8>? = index == 0 ? image.pointee.planes.0 : index == 1 ? image.pointee.planes.1 : image.pointee.planes.2
                let stride = Int(index == 0 ? image.pointee.stride.0 : index == 1 ? image.pointee.stride.1 : image.pointee.stride.2)
                guard let base else { return [] }
                var out = [UInt8](repeating: 0, count: width * height)
                for row in 0..<height {
                    for column in 0..<width { out[row * width + column] = base[row * stride + column] }
                }
                return out
            }
            result = VideoFrame(width: w, height: h, y: plane(0, w, h), u: plane(1, cw, ch), v: plane(2, cw, ch))
        }
        return result
    }
}

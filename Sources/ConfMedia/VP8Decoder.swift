internal import CVPX
internal import CMediaShims

/// Why a libvpx call failed, with libvpx's own words.
public struct VP8Error: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ context: String, _ code: vpx_codec_err_t) { description = "\(context): \(String(cString: vpx_codec_err_to_string(code)))" }
    init(_ description: String) { self.description = description }
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
                return Self.copyPlane(from: base, stride: stride, width: width, height: height)
            }
            result = VideoFrame(width: w, height: h, y: plane(0, w, h), u: plane(1, cw, ch), v: plane(2, cw, ch))
        }
        return result
    }

    /// A plane of `height` rows of `width` bytes, `stride` apart in libvpx's buffer, copied row
    /// by row into an array of its own (libvpx reuses the buffer on the next decode).
    static func copyPlane(from base: UnsafePointer<UInt8>, stride: Int, width: Int, height: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: width * height) { buffer, count in
            for row in 0..<height {
                (buffer.baseAddress! + row * width).initialize(from: base + row * stride, count: width)
            }
            count = width * height
        }
    }
}

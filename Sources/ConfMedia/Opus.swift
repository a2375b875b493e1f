internal import COpus
internal import CMediaShims

/// Why an Opus call failed, with libopus's own words.
public struct OpusError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ context: String, code: Int32) { description = "\(context): \(String(cString: opus_strerror(code)))" }
}

/// Audio as conf handles it end to end: 48 kHz, mono, 16-bit, 20 ms frames (960 samples).
public enum AudioFormat {
    public static let sampleRate = 48_000
    public static let frameSamples = 960
    public static let frameDuration: Duration = .milliseconds(20)
}

/// One Opus encoder (RFC 6716) for the participant's voice: VOIP application, in-band FEC on.
/// Encode once, send to every peer. Not thread-safe: one owner.
public final class OpusEncoder {
    private let encoder: OpaquePointer

    public init(bitrate: Int = 32_000) throws(OpusError) {
        var error: Int32 = 0
        guard let encoder = opus_encoder_create(Int32(AudioFormat.sampleRate), 1, OPUS_APPLICATION_VOIP, &error), error == OPUS_OK else {
            throw OpusError("cannot create the Opus encoder", code: error)
        }
        self.encoder = encoder
        conf_opus_set_bitrate(encoder, Int32(bitrate))
        conf_opus_set_inband_fec(encoder, 1)
        conf_opus_set_packet_loss_perc(encoder, 10)  // what FEC protects against; RTCP will tune it
        conf_opus_set_signal_voice(encoder)
    }

    deinit { opus_encoder_destroy(encoder) }

    /// OPUS_SET_BITRATE, bits per second (libopus takes 500...512000), from the next frame on.
    public func setBitrate(_ bitsPerSecond: Int) throws(OpusError) {
        try check(conf_opus_set_bitrate(encoder, Int32(clamping: min(512_000, max(500, bitsPerSecond)))), "cannot set the Opus bitrate")
    }

    /// OPUS_SET_INBAND_FEC: each packet carries a low-rate copy of the one before, for the
    /// receiver to recover a single loss (RFC 6716 section 2.1.7).
    public func setInbandFEC(_ on: Bool) throws(OpusError) {
        try check(conf_opus_set_inband_fec(encoder, on ? 1 : 0), "cannot set Opus in-band FEC")
    }

    /// OPUS_SET_PACKET_LOSS_PERC: the loss to expect, 0...100; the more, the more FEC takes.
    public func setExpectedLoss(percent: Int) throws(OpusError) {
        try check(conf_opus_set_packet_loss_perc(encoder, Int32(min(100, max(0, percent)))), "cannot set the Opus expected loss")
    }

    private func check(_ code: Int32, _ context: String) throws(OpusError) {
        guard code == OPUS_OK else { throw OpusError(context, code: code) }
    }

    /// One 20 ms frame of 960 samples in, one Opus packet out.
    public func encode(_ samples: [Int16]) throws(OpusError) -> [UInt8] {
        precondition(samples.count == AudioFormat.frameSamples, "Opus frames are 960 samples")
        var packet = [UInt8](repeating: 0, count: 1275)
        let length = opus_encode(encoder, samples, Int32(samples.count), &packet, Int32(packet.count))
        guard length > 0 else { throw OpusError("Opus encoding failed", code: length) }
        return Array(packet[..<Int(length)])
    }
}

/// One Opus decoder per remote participant, with loss concealment and FEC recovery.
public final class OpusDecoder {
    private let decoder: OpaquePointer

    public init() throws(OpusError) {
        var error: Int32 = 0
        guard let decoder = opus_decoder_create(Int32(AudioFormat.sampleRate), 1, &error), error == OPUS_OK else {
            throw OpusError("cannot create the Opus decoder", code: error)
        }
        self.decoder = decoder
    }

    deinit { opus_decoder_destroy(decoder) }

    /// A packet's audio, whole 20 ms frames of it (20 to 120 ms; RFC 7587 lets a sender put
    /// up to 120 ms in a packet); nil for a packet libopus rejects or one of another length
    /// (it is then concealed).
    public func decode(_ packet: [UInt8]) -> [Int16]? {
        // Sized from the packet's own TOC (RFC 6716 section 3.1): 960 samples for the usual 20 ms.
        let expected = Int(opus_decoder_get_nb_samples(decoder, packet, Int32(packet.count)))
        guard expected > 0, expected <= Self.maximumPacketSamples, expected % AudioFormat.frameSamples == 0 else { return nil }
        var pcm = [Int16](repeating: 0, count: expected)
        let samples = opus_decode(decoder, packet, Int32(packet.count), &pcm, Int32(pcm.count), 0)
        return Int(samples) == expected ? pcm : nil
    }

    /// 120 ms at 48 kHz: the most one Opus packet holds (RFC 6716 section 3.2.5).
    static let maximumPacketSamples = 5_760

    /// 20 ms for a lost packet: recovered from the FEC in the *next* packet when given, else
    /// concealed (PLC).
    public func conceal(usingNext next: [UInt8]?) -> [Int16] {
        if let next, let recovered = fecRecovery(next) { return recovered }
        return concealment() ?? [Int16](repeating: 0, count: AudioFormat.frameSamples)
    }

    /// 20 ms rebuilt from `next`'s in-band FEC (with decode_fec, libopus gives exactly the
    /// frame size asked for).
    private func fecRecovery(_ next: [UInt8]) -> [Int16]? {
        var pcm = [Int16](repeating: 0, count: AudioFormat.frameSamples)
        let samples = opus_decode(decoder, next, Int32(next.count), &pcm, Int32(pcm.count), 1)
        return samples == Int32(AudioFormat.frameSamples) ? pcm : nil
    }

    /// 20 ms of packet loss concealment.
    private func concealment() -> [Int16]? {
        var pcm = [Int16](repeating: 0, count: AudioFormat.frameSamples)
        let samples = opus_decode(decoder, nil, 0, &pcm, Int32(pcm.count), 0)
        return samples == Int32(AudioFormat.frameSamples) ? pcm : nil
    }
}

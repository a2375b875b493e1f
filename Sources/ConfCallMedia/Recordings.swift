import ConfCore
import ConfMedia
import ConfWire
#if canImport(Glibc)
import Glibc
#endif

/// The files of `--record DIR`: one WAV and one IVF per participant per call, kept open across
/// that participant's link restarts (keyed by participant id, not by link), so a restart appends
/// instead of starting a file. The pipelines hand over what they receive; this decides the files.
///
/// Names: DIR/NAME.wav and DIR/NAME.ivf from the participant's name. A name another participant
/// of this call has, or that a file already in DIR has (an earlier run), gets the first free
/// number: NAME-2, NAME-3, ... Files are created with O_EXCL: nothing in DIR is ever overwritten.
///
/// The audio sink `--record` adds next to the speaker. A file that cannot be written (disk full,
/// file size limit, no permission) is reported once (`MediaIssue.recordError`) and given up; the
/// call and the participant's other file go on.
///
/// Threading: the event loop thread only.
public final class Recordings: AudioSink {
    private final class Participant {
        let base: String
        var audio: WAVWriter?
        var video: IVFWriter?
        var audioFailed = false
        var videoFailed = false
        var audioTimeline = AudioRecordingTimeline()
        var videoTimeline = VideoRecordingTimeline()

        init(base: String) { self.base = base }
    }

    private let directory: String
    private let videoSize: (width: Int, height: Int)
    private var participants: [ParticipantID: Participant] = [:]
    /// Base names handed out in this call (also those of participants who left).
    private var usedNames: Set<String> = []

    public init(directory: String, videoSize: (width: Int, height: Int)) {
        self.directory = directory
        self.videoSize = videoSize
        // Under a file size limit (ulimit -f) a write past it would otherwise kill the process
        // with SIGXFSZ; ignored, the write fails with EFBIG and becomes a record-error.
        signal(SIGXFSZ, SIG_IGN)
    }

    /// A decoded frame of `peer`'s audio, played out at `at` (muted-here frames are silence).
    public func play(_ pcm: [Int16], from peer: ConfWire.Participant, at: Instant) -> MediaIssue? {
        let entry = participant(peer)
        guard !entry.audioFailed else { return nil }
        if entry.audio == nil {
            do {
                entry.audio = try create(entry.base, "wav") { path throws(RecordingError) in try WAVWriter(path: path) }
            } catch {
                entry.audioFailed = true
                return issue(error, peer: peer)
            }
        }
        var silence = entry.audioTimeline.silenceBefore(frameAt: at, samples: pcm.count)
        do {
            while silence > 0 {  // a second at a time: a long gap is not one huge buffer
                let chunk = min(silence, AudioFormat.sampleRate)
                try entry.audio?.append([Int16](repeating: 0, count: chunk))
                silence -= chunk
            }
            try entry.audio?.append(pcm)
        } catch {
            entry.audioFailed = true
            entry.audio = nil
            return issue(error, peer: peer)
        }
        return nil
    }

    /// The picture size a VP8 key frame names (RFC 6386 §9.1: a 3-byte frame tag, the start code
    /// 9d 01 2a, then 14-bit width and height); nil for an inter frame.
    static func keyFrameSize(_ frame: [UInt8]) -> (width: Int, height: Int)? {
        guard frame.count >= 10, frame[0] & 1 == 0, frame[3] == 0x9D, frame[4] == 0x01, frame[5] == 0x2A else { return nil }
        let width = Int(frame[6]) | Int(frame[7] & 0x3F) << 8, height = Int(frame[8]) | Int(frame[9] & 0x3F) << 8
        return width > 0 && height > 0 ? (width, height) : nil
    }

    /// A complete VP8 frame of `peer`'s video: its RTP timestamp and stream, arrived at `now`.
    public func video(_ frame: [UInt8], rtpTimestamp: UInt32, ssrc: UInt32, from peer: ConfWire.Participant, at now: Instant) -> MediaIssue? {
        let entry = participant(peer)
        guard !entry.videoFailed else { return nil }
        if entry.video == nil {
            do {
                // The header's size: the sender's own (a clip keeps its shape), from a key frame when this is one.
                let size = Self.keyFrameSize(frame) ?? videoSize
                entry.video = try create(entry.base, "ivf") { path throws(RecordingError) in
                    try IVFWriter(path: path, width: size.width, height: size.height)
                }
            } catch {
                entry.videoFailed = true
                return issue(error, peer: peer)
            }
        }
        let ticks = entry.videoTimeline.ticks(rtpTimestamp: rtpTimestamp, ssrc: ssrc, now: now)
        do {
            try entry.video?.append(frame, timestamp: ticks)
        } catch {
            entry.videoFailed = true
            entry.video = nil
            return issue(error, peer: peer)
        }
        return nil
    }

    /// The participant left the room: its files are complete. Should the same id record again, it
    /// gets new files.
    public func peerLeft(_ id: ParticipantID) {
        guard let entry = participants.removeValue(forKey: id) else { return }
        entry.audio?.close()
        entry.video?.close()
    }

    /// The call ends: every file gets its final header.
    public func close() {
        for id in Array(participants.keys) { peerLeft(id) }
    }

    // MARK: Names

    private func participant(_ peer: ConfWire.Participant) -> Participant {
        if let entry = participants[peer.id] { return entry }
        let name = Self.fileName(for: peer)
        var number = 1
        func candidate() -> String { number == 1 ? name : "\(name)-\(number)" }
        while usedNames.contains(candidate()) || exists(candidate() + ".wav") || exists(candidate() + ".ivf") { number += 1 }
        let entry = Participant(base: candidate())
        usedNames.insert(entry.base)
        participants[peer.id] = entry
        return entry
    }

    /// Creates DIR/BASE.EXT, or the next free number should another process have taken it since.
    private func create<W>(_ base: String, _ ext: String, _ make: (String) throws(RecordingError) -> W) throws(RecordingError) -> W {
        var name = base
        var number = 1
        while true {
            do {
                return try make(directory + "/" + name + "." + ext)
            } catch where error.code == EEXIST && number < 1000 {
                number += 1
                name = "\(base)-\(number)"
            }
        }
    }

    private func exists(_ file: String) -> Bool { access(directory + "/" + file, F_OK) == 0 }

    /// A file name from a participant's name: no slashes, no leading dots, no control characters,
    /// at most 96 bytes (a file name has 255, with room for "-NNN.wav"); the id when nothing is left.
    public static func fileName(for peer: ConfWire.Participant) -> String {
        var cleaned = String(String(peer.name.unicodeScalars.map { scalar -> Character in
            scalar == "/" || scalar.properties.generalCategory == .control ? "_" : Character(scalar)
        }).drop { $0 == "." })
        while cleaned.utf8.count > 96 { cleaned.removeLast() }
        return cleaned.isEmpty ? peer.id.rawValue : cleaned
    }

    private func issue(_ error: RecordingError, peer: ConfWire.Participant) -> MediaIssue {
        .recordError(peer, path: error.path, reason: error.reason)
    }
}

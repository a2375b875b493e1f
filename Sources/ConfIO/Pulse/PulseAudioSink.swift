import ConfCore
import ConfMedia
import ConfWire

/// `--audio-sink pulse[:NAME]`: each remote participant plays as its own PulseAudio stream named
/// after them (so the desktop's mixer can set its volume), opened at its first frame. A stream
/// that cannot be opened, or whose device goes away (asked once a second per stream), is reported
/// once; that peer is not played from then on.
/// Threading: the event loop thread only.
public final class PulseAudioSink: AudioSink {
    private enum Playback {
        case playing(PulseStream, lastDeviceCheck: Instant)
        case stopped
    }

    private let connection: PulseConnection
    private let device: String?
    private var peers: [ParticipantID: Playback] = [:]

    /// `device`: a PulseAudio sink name, or nil for the default one.
    public init(_ connection: PulseConnection, device: String?) {
        self.connection = connection
        self.device = device
    }

    public func play(_ pcm: [Int16], from peer: Participant, at: Instant) -> MediaIssue? {
        switch peers[peer.id] {
        case .stopped?:
            return nil
        case .playing(let stream, let lastCheck)?:
            if at.since(lastCheck) >= .seconds(1) {
                if stream.hasFailed {
                    stream.close()
                    peers[peer.id] = .stopped
                    return .speakerLost(peer)
                }
                peers[peer.id] = .playing(stream, lastDeviceCheck: at)
            }
            stream.play(pcm)
            return nil
        case nil:
            do {
                let stream = try PulseStream(connection, direction: .playback, name: peer.name, device: device)
                peers[peer.id] = .playing(stream, lastDeviceCheck: at)
                stream.play(pcm)
                return nil
            } catch {
                peers[peer.id] = .stopped
                return .cannotPlay(peer, reason: "\(error)")
            }
        }
    }

    public func peerLeft(_ id: ParticipantID) {
        if case .playing(let stream, _)? = peers.removeValue(forKey: id) { stream.close() }
    }

    public func close() {
        for id in Array(peers.keys) { peerLeft(id) }
    }
}

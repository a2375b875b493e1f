import ConfCall
import ConfIO
import ConfMedia

/// What `--audio-source`, `--audio-sink`, `--record` and `--audio-bitrate` ask for, checked before
/// the call starts (an unreadable file is an error then, not later). ConfApp's `parse` only checks
/// and prepares the backends chosen by name (`MediaBackends`); its `connectSoundServer` then
/// opens the sound server; `CallMedia` opens the backends once we are in the room.
public struct AudioSettings {
    public var enabled = true
    public var source: BackendChoice<any AudioSource>
    public var sink: BackendChoice<any AudioSink>
    public var recordDirectory: String?
    public var bitrate = 32_000
    /// The PulseAudio server, connected up front when a source or sink needs it.
    public var pulse: PulseConnection?
    /// Set when the default devices were wanted and there is no sound server: why, and which
    /// devices the call goes on without (silence is sent, nothing is played).
    public var missingDevices: (reason: String, devices: [CallEvent.Device])?
    /// Whether the source or sink was named by flag, environment or config file (then it must exist).
    public var askedForSource = false
    public var askedForSink = false
    /// Sounds for joins, leaves and chat on the speaker: for people, so not with --json or --no-sounds.
    public var sounds = true

    public init(source: BackendChoice<any AudioSource>, sink: BackendChoice<any AudioSink>) {
        (self.source, self.sink) = (source, sink)
    }

    /// Whether anything here needs a PulseAudio server.
    public var needsPulse: Bool { enabled && (source.isPulse || sink.isPulse) }
}

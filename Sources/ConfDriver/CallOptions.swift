import ConfCall
import ConfIO

/// A participant's call as the command line asked for it, every option checked: the ICE servers,
/// the connect timeout, the media settings, the views. `CallSetup.attach` builds the call from it.
public struct CallOptions {
    public var iceServers: [IceServerAddress] = []
    public var connectTimeout: Duration = .seconds(15)
    public var say: [String] = []
    public var relayOnly = false
    /// `--port-mapping on`: ask the router (PCP, NAT-PMP, UPnP-IGD) to forward the media ports too.
    public var portMapping = true
    /// `--ca`: also the authorities TURN-over-TLS servers are checked against.
    public var trust: String?
    public var audio: AudioSettings
    public var startMuted = false
    public var playAtStart: [Int16]?
    public var stats = false
    public var video: VideoSettings
    public var view = VideoView.none
    /// `--video-view auto` with no display: the screen may draw the video in the terminal.
    public var viewIsAuto = true
    public var screen = false
    /// Ours, as the roster shows it.
    public var name: String
    /// False for `conf host`: it stays in its room whoever fails to connect.
    public var leavesWhenNobodyConnects = true

    public init(audio: AudioSettings, video: VideoSettings, name: String) {
        (self.audio, self.video, self.name) = (audio, video, name)
    }
}

/// `--video-view`: where others' video is shown (`auto` is decided when the options are read).
public enum VideoView: Sendable { case none, terminal, window }

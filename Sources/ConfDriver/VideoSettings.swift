import ConfMedia

/// What `--video-source`, `--video-bitrate` and `--no-video` ask for. ConfApp's `parse` checks and
/// prepares the source chosen by name (`MediaBackends`); its `checkDevice` then looks for a camera asked for,
/// before the room is made; `CallMedia` opens it once we are in the room.
public struct VideoSettings {
    public var enabled = true
    public var source: BackendChoice<(any VideoSource)?>
    public var framesPerSecond = 15
    public var bitrateKbps = 600

    public init(source: BackendChoice<(any VideoSource)?>) { self.source = source }
}

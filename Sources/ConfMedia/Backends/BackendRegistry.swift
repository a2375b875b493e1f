import ConfCore

/// Why a media backend could not be chosen or opened.
public enum MediaBackendError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No backend has this name.
    case unknown(String)
    /// The backend exists but its argument is missing or wrong (`tone:5`, `file:`).
    case badArgument(String)
    /// What the argument names cannot be read (a missing or malformed WAV file): the reader's words.
    case unreadable(String)
    /// The device could not be opened: the library's words.
    case device(String)

    public var description: String {
        switch self {
        case .unknown(let name): "no media backend is called '\(name)'"
        case .badArgument(let text), .unreadable(let text), .device(let text): text
        }
    }
}

/// The size and rate of the video a participant sends (the room's resolution).
public struct VideoFormat: Equatable, Sendable {
    public var width: Int
    public var height: Int
    public var framesPerSecond: Int

    public init(width: Int, height: Int, framesPerSecond: Int) {
        self.width = width
        self.height = height
        self.framesPerSecond = framesPerSecond
    }
}

/// What a backend is opened with once the call starts: the devices (ConfIO's sound server and
/// event loop; pure backends ignore them) and the video format of the room.
public struct BackendContext<Devices> {
    public var devices: Devices
    public var video: VideoFormat
    /// The clock the call runs on, for a source that draws the time (`pattern:clock`).
    public var clock: any MonotonicClock

    public init(devices: Devices, video: VideoFormat, clock: any MonotonicClock = ManualClock(Instant(nanoseconds: 0))) {
        self.devices = devices
        self.video = video
        self.clock = clock
    }
}

/// Backends of one kind chosen by name, `NAME` or `NAME:ARGUMENT`, as baresip registers its
/// modules (`ausrc_register(..., "pulse", alloc)`); test doubles register the same way.
///
/// Choosing takes two steps, so that every option is checked before any device is touched:
/// `prepare` runs when the command line is read (it checks the argument and reads a file it
/// names, touching no device) and returns the `Opening` that makes the backend once the call
/// starts. `NAME` gives the backend no argument, `NAME:` an empty one.
public struct BackendRegistry<Made, Devices> {
    public typealias Opening = (BackendContext<Devices>) throws(MediaBackendError) -> Made
    public typealias Prepare = (_ argument: String?) throws(MediaBackendError) -> Opening

    private var backends: [String: Prepare] = [:]

    public init() {}

    public mutating func register(_ name: String, _ prepare: @escaping Prepare) {
        backends[name] = prepare
    }

    public var names: [String] { backends.keys.sorted() }

    public func prepare(_ text: String) throws(MediaBackendError) -> Opening {
        let (name, argument) = Self.split(text)
        guard let prepare = backends[name] else { throw .unknown(name) }
        return try prepare(argument)
    }

    /// "pulse" is (pulse, nil); "pulse:" is (pulse, ""); "file:a:b.wav" is (file, "a:b.wav").
    public static func split(_ text: String) -> (name: String, argument: String?) {
        guard let colon = text.firstIndex(of: ":") else { return (text, nil) }
        return (String(text[..<colon]), String(text[text.index(after: colon)...]))
    }
}

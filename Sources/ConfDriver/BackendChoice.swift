import ConfIO
import ConfMedia

/// A media backend chosen on the command line: its text (`pulse:NAME`, `tone:440`, `v4l2:/dev/video0`),
/// its name, and what opens it once the call starts (prepared, so its argument is already checked).
public struct BackendChoice<Made> {
    public typealias Registry = BackendRegistry<Made, MediaDevices>
    public let text: String
    public let open: Registry.Opening

    public var name: String { Registry.split(text).name }
    public var argument: String? { Registry.split(text).argument }
    public var isPulse: Bool { name == "pulse" }

    /// Prepares `text`'s backend; `failure` turns what is wrong with it into the command's error.
    public static func choose(_ text: String, from registry: Registry,
                       failure: (MediaBackendError) throws(CommandFailure) -> Never = usageFailure)
        throws(CommandFailure) -> BackendChoice
    {
        do throws(MediaBackendError) {
            return BackendChoice(text: text, open: try registry.prepare(text))
        } catch {
            try failure(error)
        }
    }

    public static func usageFailure(_ error: MediaBackendError) throws(CommandFailure) -> Never {
        throw CommandFailure(.usage, code: "usage", "\(error)")
    }
}

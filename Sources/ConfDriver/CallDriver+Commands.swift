import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfWire

/// The stdin commands that act on the call.
extension CallDriver {
    public func setAudioMuted(_ muted: Bool) {
        audio?.muted = muted
        engine.setAudioMuted(muted, now: clock.now())
        drain()
    }

    /// `mute-peer ann` or `mute-peer p2`.
    public func setLocallyMuted(_ who: String, _ muted: Bool) throws(CommandLineProblem) {
        guard let id = engine.findPeer(who), engine.setLocallyMuted(id, muted, now: clock.now()) else {
            throw CommandLineProblem(message: "no participant \(who) is connected")
        }
        drain()
    }

    public func say(_ text: String) throws(CommandLineProblem) {
        defer { drain() }
        guard engine.say(text, now: clock.now()) else {
            throw CommandLineProblem(message: "nobody is connected yet and \(CallEngine.maxHeldChat) messages already wait: this one was dropped")
        }
    }
}

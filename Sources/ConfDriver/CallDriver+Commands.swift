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

    /// `camera off` stops capture and encoding too; `camera on` starts them at a key frame.
    public func setCamera(on: Bool) throws(CommandLineProblem) {
        guard engine.setVideoMuted(!on, now: clock.now()) else {
            throw CommandLineProblem(message: "this call sends no video (a listener, or --video-source none)")
        }
        video?.paused = !on
        drain()
    }

    /// `hide ann` or `hide p2`; `show` undoes it.
    public func setVideoHidden(_ who: String, _ hidden: Bool) throws(CommandLineProblem) {
        guard let id = engine.findPeer(who), engine.setVideoHidden(id, hidden, now: clock.now()) else {
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

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
        guard engine.setLocallyMuted(try peer(named: who), muted, now: clock.now()) else {
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

    /// `camera next` (the next camera conf can read after the one in use, in `conf devices`'
    /// order) or `camera /dev/videoN`: the new one is opened first, so a camera that will not open
    /// leaves the call on the old one.
    public func switchCamera(to path: String?) throws(CommandLineProblem) {
        guard let video, video.sends, let openCamera else {
            throw CommandLineProblem(message: "this call sends no video (a listener, no camera when it started, or --video-source none)")
        }
        let current = (video.currentSource as? CameraVideoSource)?.path
        let target: String
        if let path {
            target = path
        } else {
            let cameras = CameraDevices.list().filter { !$0.modes.isEmpty }.map(\.path)
            let after = current.flatMap { cameras.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            guard let next = (cameras[min(after, cameras.count)...] + cameras).first(where: { $0 != current }) else {
                throw CommandLineProblem(message: "there is no other camera to switch to (conf devices lists them)")
            }
            target = next
        }
        guard target != current else { throw CommandLineProblem(message: "already sending from \(target)") }
        let camera = try openCamera(target)
        video.replaceSource(with: camera)
        reporter.emit(.cameraSwitched(device: target, mode: camera.mode))
        drain()
    }

    /// `hide ann` or `hide p2`; `show` undoes it.
    public func setVideoHidden(_ who: String, _ hidden: Bool) throws(CommandLineProblem) {
        guard engine.setVideoHidden(try peer(named: who), hidden, now: clock.now()) else {
            throw CommandLineProblem(message: "no participant \(who) is connected")
        }
        drain()
    }

    /// `ann` or `p2`; two called ann must be told apart by id.
    private func peer(named who: String) throws(CommandLineProblem) -> ParticipantID {
        switch engine.findPeer(who) {
        case .one(let id): return id
        case .none: throw CommandLineProblem(message: "no participant \(who) is connected")
        case .several(let ids):
            throw CommandLineProblem(message: "\(ids.count) participants are called \(who): give the id, \(ids.map(\.rawValue).joined(separator: " or "))")
        }
    }

    public func say(_ text: String) throws(CommandLineProblem) {
        defer { drain() }
        guard engine.say(text, now: clock.now()) else {
            throw CommandLineProblem(message: "nobody is connected yet and \(CallEngine.maxHeldChat) messages already wait: this one was dropped")
        }
    }
}

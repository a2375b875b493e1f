import ConfCall
import ConfCallMedia
import ConfCore
import ConfIO
import ConfWire

/// The commands that act on the call, whichever control gave them.
extension CallControls {
    public func setAudioMuted(_ muted: Bool) {
        devices.audio?.muted = muted
        _ = driver.command(.setAudioMuted(muted))
    }

    /// `mute-peer ann` or `mute-peer p2`.
    public func setLocallyMuted(_ who: String, _ muted: Bool) throws(CommandLineProblem) {
        let id = try peer(named: who)
        try command(.setLocallyMuted(id, muted), naming: who)
    }

    /// `camera off` stops capture and encoding too; `camera on` starts them at a key frame.
    public func setCamera(on: Bool) throws(CommandLineProblem) {
        try command(.setVideoMuted(!on))
        devices.video?.paused = !on
    }

    /// `camera next` (the next camera conf can read after the one in use, in `conf devices`'
    /// order) or `camera /dev/videoN`: the new one is opened first, so a camera that will not open
    /// leaves the call on the old one.
    public func switchCamera(to path: String?) throws(CommandLineProblem) {
        guard let video = devices.video, video.sends, let openCamera = devices.openCamera else {
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
        driver.drain()
    }

    /// `hide ann` or `hide p2`; `show` undoes it.
    public func setVideoHidden(_ who: String, _ hidden: Bool) throws(CommandLineProblem) {
        let id = try peer(named: who)
        try command(.setVideoHidden(id, hidden), naming: who)
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
        try command(.say(text))
    }

    /// Feeds a command; its refusal, if any, in words. `who`: how the command named the peer.
    private func command(_ input: CallEngine.Input, naming who: String? = nil) throws(CommandLineProblem) {
        switch driver.command(input) {
        case nil:
            return
        case .notConnected(let id):
            throw CommandLineProblem(message: "no participant \(who ?? id.rawValue) is connected")
        case .sendsNoVideo:
            throw CommandLineProblem(message: "this call sends no video (a listener, or --video-source none)")
        case .chatQueueFull:
            throw CommandLineProblem(message: "nobody is connected yet and \(CallEngine.maxHeldChat) messages already wait: this one was dropped")
        }
    }
}

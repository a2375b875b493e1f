import ConfCore
import ConfIO
import ConfSession
import ConfWire

extension CallController {
    /// `audio-stats` events every `interval` (`--stats`).
    func reportStatistics(every interval: Duration) {
        statsTimer = loop.schedule(every: interval) { [weak self] in
            guard let self, let audio = self.audio else { return false }
            let peers = audio.statistics(links: Array(self.links.values), now: self.clock.now())
            guard !peers.isEmpty else { return true }
            let human = peers.map { p in
                "\(p["peer"]?.stringValue ?? "?"): \(p["kbps"]?.numberValue ?? 0) kbit/s, loss \(p["loss_percent"]?.numberValue ?? 0) %, "
                    + "jitter \(p["jitter_ms"]?.numberValue ?? 0) ms, buffer \(p["buffer_ms"]?.numberValue ?? 0) ms, concealed \(p["concealed_ms"]?.numberValue ?? 0) ms"
            }.joined(separator: "; ")
            self.reporter.emit(.object(["type": "audio-stats", "peers": .array(peers)]), human: self.reporter.style.dim("audio: " + human))
            return true
        }
    }
}

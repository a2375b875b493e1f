import ConfCall
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
            self.reporter.emit(.audioStats(peers))
            return true
        }
    }
}

import ConfMedia

/// One-shot sounds mixed into outgoing frames.
final class SoundMixer {
    private var sounds: [SamplesGenerator] = []

    func add(_ samples: [Int16]) { sounds.append(SamplesGenerator(samples: samples)) }

    func mix(_ frame: [Int16]) -> [Int16] {
        guard !sounds.isEmpty else { return frame }
        var out = frame
        for sound in sounds {
            let extra = sound.nextFrame()
            for i in out.indices { out[i] = Int16(clamping: Int32(out[i]) + Int32(extra[i])) }
        }
        sounds.removeAll { $0.isFinished }
        return out
    }
}

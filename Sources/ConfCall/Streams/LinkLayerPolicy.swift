import ConfCore
import ConfWire

/// How much of the one layered video stream one link gets, from its video budget (the link's
/// congestion estimate minus what its audio takes): the highest temporal layer whose cumulative
/// share of the encoder's rate fits (`TemporalLayerSelector.highestLayer`; going down, one step
/// per `layerStepDownSpacing`, below), or no video at all while even the base layer does not fit.
/// Pure; time is passed in.
///
///                 budget < base layer for `pauseAfter`
///     +---------+ -----------------------------------> +--------+
///     | sending |                                      | paused |
///     +---------+ <----------------------------------- +--------+
///       budget ≥ `resumeMargin` × base layer for `resumeAfter`
///
/// The two thresholds and the waits keep a link whose estimate hovers at the base layer's rate
/// from flapping; a pause stops video only, the link's audio goes on. A resume that fails (video
/// pauses again within `failedResumeWithin`) doubles the wait before the next one, up to
/// `longestResumeWait`: with video paused the estimate climbs on audio and probes alone, and each
/// try fills the link's queue, which delays the audio. Video that goes on for that long undoes it.
///
/// Layers go down one at a time, at most one step per `layerStepDownSpacing`; up at once (the
/// selector still waits for a frame the link can decode). On an uplink shared by several links
/// their estimates saw-tooth unevenly, and the encoder follows the best of them, so a link's
/// budget can dip under the two lower layers' share for one 200 ms update; going straight to the
/// base layer would give it a quarter of the frame rate for that dip. A fall that lasts still
/// reaches the base layer one spacing later; the pacer and the path's queue hold what the one
/// step too many sends meanwhile.
struct LinkLayerPolicy: Sendable {
    enum Change: Equatable, Sendable { case paused, resumed }

    var pauseAfter: Duration = .milliseconds(500)
    var resumeAfter: Duration = .seconds(1)
    var resumeMargin = 1.25
    var failedResumeWithin: Duration = .seconds(10)
    var longestResumeWait: Duration = .seconds(32)
    var layerStepDownSpacing: Duration = .milliseconds(400)
    /// When `maximumLayer` last went down.
    private var steppedDownAt: Instant?
    /// Whether a budget has been judged yet: the first one sets the layers outright (a new link,
    /// or one judged afresh on another encoding, has no layers to step down from).
    private var judged = false
    /// Resumes that failed in a row: video paused again within `failedResumeWithin` of each.
    private var failedResumes = 0
    private var resumedAt: Instant?
    private(set) var paused = false
    /// The highest layer the link may get while it is not paused.
    private(set) var maximumLayer: UInt8 = 2
    /// Since when the budget has been on the other side of the threshold that would change `paused`.
    private var crossedAt: Instant?

    /// The base layer's rate in kbit/s when the encoder makes `encoderKbps` in `layers` layers.
    static func baseLayerKbps(encoderKbps: Int, layers: Int) -> Int {
        encoderKbps * (VP8FrameLayer.cumulativeSharePercent(layers: layers).first ?? 100) / 100
    }

    /// What the layers that make half the frame rate take, in kbit/s: with three layers the two
    /// lower ones, with two the base; with one, all of it.
    static func halfFrameRateKbps(encoderKbps: Int, layers: Int) -> Int {
        let shares = VP8FrameLayer.cumulativeSharePercent(layers: layers)
        return encoderKbps * shares[layers == 3 ? 1 : 0] / 100
    }

    /// What the next resume waits for: `resumeAfter`, doubled for each resume that failed in a row.
    var resumeWait: Duration { min(longestResumeWait, resumeAfter * (1 << min(failedResumes, 16))) }

    /// Takes the link's budget now; says when video pauses or resumes.
    mutating func update(budgetKbps: Int, encoderKbps: Int, layers: Int, now: Instant) -> Change? {
        let fitting = TemporalLayerSelector.highestLayer(fittingLinkKbps: budgetKbps, encoderKbps: encoderKbps, layers: layers)
        maximumLayer = min(maximumLayer, UInt8(max(0, layers - 1)))  // layers the encoder no longer makes go at once
        // Stepping goes on while paused; a resume starts from where the budget has brought it.
        if fitting >= maximumLayer || !judged {
            maximumLayer = fitting
            judged = true
        } else if steppedDownAt.map({ now.since($0) >= layerStepDownSpacing }) ?? true {
            maximumLayer -= 1
            steppedDownAt = now
        }
        let base = Double(Self.baseLayerKbps(encoderKbps: encoderKbps, layers: layers))
        let crossing = paused ? Double(budgetKbps) >= base * resumeMargin : Double(budgetKbps) < base
        guard crossing else {
            crossedAt = nil
            return nil
        }
        let since = crossedAt ?? now
        crossedAt = since
        guard now.since(since) >= (paused ? resumeWait : pauseAfter) else { return nil }
        paused.toggle()
        crossedAt = nil
        if paused {
            let failed = resumedAt.map { now.since($0) < failedResumeWithin } ?? false
            failedResumes = failed ? failedResumes + 1 : 0
        } else {
            resumedAt = now
        }
        return paused ? .paused : .resumed
    }
}

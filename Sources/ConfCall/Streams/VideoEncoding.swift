import ConfCore

/// Our two encodings of the one camera picture. `full` is the room's size, layered, at the best
/// link's budget; `small` (half the width and height, a quarter of the pixels), encoded only while
/// some link cannot carry half the full encoding's frame rate, or the full picture's floor
/// (`fullFloorKbps`), at the best such link's budget.
/// A link is sent one of them at a time and switches at a key frame of the other: the receiver
/// sees one stream whose picture changes size (VP8 key frames carry it), so no renegotiation and
/// no simulcast signalling (RFC 8853) are needed for conf or for a browser.
public enum VideoEncoding: String, Sendable, Equatable {
    case full
    case small

    /// The least a picture of this size is worth the full encoding at, kbit/s: `fullFloorBits`
    /// a second for each pixel. Under it a link gets the small one. A steady picture codes well
    /// under the floor, but one that changes at once (a cut, a head turned) costs several frame
    /// budgets in two or three frames, and libvpx then skips frames to pay for them: hundreds of
    /// ms without a frame on every link. Such a frame grows with the pixels, and the time to pay
    /// for it is its size over the rate, whatever the frame rate: so the floor is by pixels
    /// alone. libwebrtc keeps a table of the same kind (640x360 wants 300 kbit/s to start).
    public static func fullFloorKbps(width: Int, height: Int) -> Int {
        Int(Double(width * height) * fullFloorBits / 1000)
    }

    /// 230 kbit/s for 640x480 (480p), 691 for 1280x720.
    static let fullFloorBits = 0.75
}

/// Which encoding one link gets, from its video budget against what the full encoding's layers
/// for half its frame rate take (`LinkLayerPolicy.halfFrameRateKbps`) or the full picture's floor
/// (`VideoEncoding.fullFloorKbps`), whichever is more, with hysteresis. Below the first the full
/// encoding could give the link only a quarter of the frame rate, or nothing; below the second,
/// it skips frames after every sudden change of picture. The small one gives the link every frame
/// at half the size: for a face on a call, motion matters more than pixels (libwebrtc's default
/// for cameras, too, lowers the resolution before the frame rate). Pure; time is passed in.
///
///               budget < what full needs for `toSmallAfter`
///     +------+ --------------------------------------------> +-------+
///     | full |                                               | small |
///     +------+ <-------------------------------------------- +-------+
///          budget ≥ `fullMargin` × what full needs for `toFullAfter`
///
/// Each switch costs a key frame, so going back up waits longer than going down. While on
/// `small`, `LinkLayerPolicy` decides its layers and pauses against the small encoding's rate.
struct LinkEncodingChoice: Sendable {
    var toSmallAfter: Duration = .milliseconds(500)
    var fullMargin = 1.25
    /// How long the margin must hold before going back to full: `shortestWaitForFull`, doubled
    /// (up to `longestWaitForFull`) each time a return to full did not last `fullTrial`. An
    /// estimate grows past what a link on the small encoding sends, so a return is a trial, as a
    /// probe is; a link that flaps pays a key frame each way, and a key frame of the full picture
    /// is large enough to hold a shared uplink's links half a second without a frame. A probe's
    /// lift lasts about 2 s, hence 5.
    static let shortestWaitForFull: Duration = .seconds(5)
    static let longestWaitForFull: Duration = .seconds(32)
    static let fullTrial: Duration = .seconds(10)
    private(set) var encoding = VideoEncoding.full
    private(set) var waitForFull = Self.shortestWaitForFull
    private var crossedAt: Instant?
    private var fullSince: Instant?

    /// Takes the link's budget now; the new encoding when it changes.
    mutating func update(budgetKbps: Int, fullNeedsKbps: Int, now: Instant) -> VideoEncoding? {
        let budget = Double(budgetKbps), base = Double(fullNeedsKbps)
        if encoding == .full, let since = fullSince, now.since(since) >= Self.fullTrial {
            waitForFull = Self.shortestWaitForFull
            fullSince = nil
        }
        let crossing = encoding == .full ? budget < base : budget >= fullMargin * base
        guard crossing else {
            crossedAt = nil
            return nil
        }
        let since = crossedAt ?? now
        crossedAt = since
        guard now.since(since) >= (encoding == .full ? toSmallAfter : waitForFull) else { return nil }
        crossedAt = nil
        if encoding == .full {
            if fullSince != nil { waitForFull = min(Self.longestWaitForFull, waitForFull * 2) }  // the trial failed
            fullSince = nil
            encoding = .small
        } else {
            fullSince = now
            encoding = .full
        }
        return encoding
    }
}

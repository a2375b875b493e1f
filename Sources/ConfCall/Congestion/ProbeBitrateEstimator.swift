import ConfCore

/// What a probe found: a cluster of packets sent close together at a chosen rate, and the rate
/// the receiver got them at (libwebrtc's ProbeBitrateEstimator). If they arrived about as fast
/// as they left, the path carries at least the rate they were sent at; if slower, the arrival
/// rate is about what it carries. Pure.
///
/// A cluster whose size is known (`aim`) is judged once `judgedAtFraction` of its packets are in,
/// as libwebrtc does, not at its first `minimumPackets`: a shaper's token bucket lets the first
/// few kilobytes through at once, and a cluster judged on its head reads its send rate whatever
/// the path carries.
///
/// A result never exceeds the rate the cluster was aimed at (`aim`): a cluster that left faster
/// (a sender that fell behind and caught up in one burst) and got through faster (a receiver that
/// read a backlog at once, or a shaper's token bucket with tokens to spare) shows only that the
/// path carried the aim, not more. Seen on a loaded machine: a 400 kbit/s bucket read as 1.2 Mbit/s.
struct ProbeBitrateEstimator: Sendable {
    /// Received packets a cluster needs before it is judged.
    static let minimumPackets = 5
    /// The share of an aimed cluster's packets received before it is judged.
    static let judgedAtFraction = 0.8
    /// Below this fraction of the send rate the path is taken as saturated by the probe...
    static let unsaturatedRatio = 0.9
    /// ...and the result is this fraction of what arrived.
    static let saturatedUtilisation = 0.95
    static let maximumClusters = 8

    private struct Cluster: Sendable {
        var firstSent: Instant
        var lastSent: Instant
        var firstArrival: Instant
        var lastArrival: Instant
        /// Bytes of every packet, and the first arrival's and the last send's sizes.
        var bytes = 0
        var firstArrivalSize = 0
        var lastSentSize = 0
        var packets = 0
        var judged = false
    }

    private var clusters: [Int: Cluster] = [:]
    private var aims: [Int: (bitsPerSecond: Double, packets: Int)] = [:]

    /// Cluster `id` is sent at `bitsPerSecond`, in `packets` packets: its result is capped at that
    /// rate, and judged once `judgedAtFraction` of them are in.
    mutating func aim(cluster id: Int, bitsPerSecond: Double, packets: Int = 0) {
        guard bitsPerSecond.isFinite, bitsPerSecond > 0 else { return }
        aims[id] = (bitsPerSecond, packets)
        if aims.count > Self.maximumClusters, let oldest = aims.keys.min() { aims[oldest] = nil }
    }

    /// One received packet of cluster `id`; the cluster's result (bits per second) once it has
    /// enough packets, once per cluster.
    mutating func received(cluster id: Int, sentAt: Instant, arrival: Instant, size: Int) -> Double? {
        var cluster = clusters[id] ?? Cluster(firstSent: sentAt, lastSent: sentAt, firstArrival: arrival, lastArrival: arrival,
                                              firstArrivalSize: size, lastSentSize: size)
        if sentAt < cluster.firstSent { cluster.firstSent = sentAt }
        if sentAt >= cluster.lastSent { cluster.lastSent = sentAt; cluster.lastSentSize = size }
        if arrival < cluster.firstArrival { cluster.firstArrival = arrival; cluster.firstArrivalSize = size }
        if arrival > cluster.lastArrival { cluster.lastArrival = arrival }
        cluster.bytes += size
        cluster.packets += 1
        defer {
            clusters[id] = cluster
            if clusters.count > Self.maximumClusters, let oldest = clusters.keys.min() { clusters[oldest] = nil }
        }
        let needed = max(Self.minimumPackets, Int((Self.judgedAtFraction * Double(aims[id]?.packets ?? 0)).rounded(.up)))
        guard !cluster.judged, cluster.packets >= needed else { return nil }
        let sendSpan = cluster.lastSent.since(cluster.firstSent).milliseconds / 1000
        let receiveSpan = cluster.lastArrival.since(cluster.firstArrival).milliseconds / 1000
        guard sendSpan > 0.001, receiveSpan > 0.001, sendSpan < 1, receiveSpan < 1 else { return nil }
        cluster.judged = true
        // A span has one packet fewer than the cluster: the last send's and the first arrival's bytes are outside it.
        let sendRate = Double(cluster.bytes - cluster.lastSentSize) * 8 / sendSpan
        let receiveRate = Double(cluster.bytes - cluster.firstArrivalSize) * 8 / receiveSpan
        let result = receiveRate < Self.unsaturatedRatio * sendRate ? Self.saturatedUtilisation * receiveRate : min(sendRate, receiveRate)
        return aims[id].map { min($0.bitsPerSecond, result) } ?? result
    }
}

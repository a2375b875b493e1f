/// Where each participant's picture goes in a window: every picture keeps its aspect ratio, the
/// pictures are ordered widest first (ties keep the order given), and the order is cut into rows
/// so that together they cover as much of the window as they can (rows as tall as their pictures
/// let them be at the window's width, all scaled down together when they do not fit its height).
/// Pure geometry: the window (ConfIO) draws into the rectangles.
public enum TileLayout {
    public struct Rect: Equatable, Sendable {
        public var x: Int, y: Int, width: Int, height: Int
        public init(x: Int, y: Int, width: Int, height: Int) {
            (self.x, self.y, self.width, self.height) = (x, y, width, height)
        }
    }

    /// The rectangle of each of `aspects` (width / height, one per picture, in the order given)
    /// in a `width` x `height` window with `gap` pixels between pictures and around them.
    public static func arrange(_ aspects: [Double], width: Int, height: Int, gap: Int = 4) -> [Rect] {
        guard !aspects.isEmpty, width > 2 * gap, height > 2 * gap else {
            return aspects.map { _ in Rect(x: 0, y: 0, width: 0, height: 0) }
        }
        let ratios = aspects.map { $0.isFinite && $0 > 0.1 ? min($0, 10) : 4.0 / 3 }
        // Widest first; a stable sort, so equal shapes keep the caller's order.
        let order = ratios.indices.sorted { ratios[$0] != ratios[$1] ? ratios[$0] > ratios[$1] : $0 < $1 }
        let usableWidth = Double(width - 2 * gap), usableHeight = Double(height - 2 * gap)
        var best: (area: Double, rows: [[Int]], heights: [Double])?
        for rows in partitions(of: order) {
            // Each row at the full width; then everything scaled to fit the height.
            let fullWidth = rows.map { row in (usableWidth - Double(gap * (row.count - 1))) / row.map { ratios[$0] }.reduce(0, +) }
            let scale = min(1, usableHeight / (fullWidth.reduce(0, +) + Double(gap * (rows.count - 1))))
            let heights = fullWidth.map { $0 * scale }
            let area = zip(rows, heights).map { row, rowHeight in row.map { ratios[$0] * rowHeight * rowHeight }.reduce(0, +) }.reduce(0, +)
            if best == nil || area > best!.area + 0.5 { best = (area, rows, heights) }
        }
        guard let best else { return [] }
        var rects = [Rect](repeating: Rect(x: 0, y: 0, width: 0, height: 0), count: aspects.count)
        let heights = best.heights
        let blockHeight = heights.reduce(0, +) + Double(gap * (best.rows.count - 1))
        var top = Double(gap) + (usableHeight - blockHeight) / 2
        for (row, rowHeight) in zip(best.rows, heights) {
            let rowWidth = row.map { ratios[$0] * rowHeight }.reduce(0, +) + Double(gap * (row.count - 1))
            var left = Double(gap) + (usableWidth - rowWidth) / 2
            for index in row {
                let tileWidth = ratios[index] * rowHeight
                rects[index] = Rect(x: Int(left.rounded()), y: Int(top.rounded()), width: Int(tileWidth.rounded()), height: Int(rowHeight.rounded()))
                left += tileWidth + Double(gap)
            }
            top += rowHeight + Double(gap)
        }
        return rects
    }

    /// Every way to cut `items` into consecutive rows (2^(n-1) of them: a call has at most a few).
    static func partitions(of items: [Int]) -> [[[Int]]] {
        guard items.count > 1 else { return [[items]] }
        let cuts = items.count - 1
        return (0..<(1 << min(cuts, 12))).map { mask in
            var rows: [[Int]] = [[items[0]]]
            for i in 1..<items.count {
                if mask & (1 << (i - 1)) != 0 { rows.append([items[i]]) } else { rows[rows.count - 1].append(items[i]) }
            }
            return rows
        }
    }
}

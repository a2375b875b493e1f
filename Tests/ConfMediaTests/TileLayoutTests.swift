import ConfMedia
import Testing

@Suite struct TileLayoutTests {
    typealias Rect = TileLayout.Rect

    /// Within the window, not overlapping, each keeping its picture's shape (to a pixel's rounding).
    static func checkSane(_ rects: [Rect], aspects: [Double], width: Int, height: Int) {
        for (rect, aspect) in zip(rects, aspects) {
            #expect(rect.x >= 0 && rect.y >= 0 && rect.x + rect.width <= width && rect.y + rect.height <= height, "\(rect)")
            #expect(abs(Double(rect.width) - aspect * Double(rect.height)) <= 2, "\(rect) for \(aspect)")
        }
        for (i, a) in rects.enumerated() {
            for b in rects[(i + 1)...] {
                let apart = a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y
                #expect(apart, "\(a) overlaps \(b)")
            }
        }
    }

    @Test func onePictureFillsTheWindowAtItsShape() {
        let rects = TileLayout.arrange([4.0 / 3], width: 648, height: 488, gap: 4)
        #expect(rects == [Rect(x: 4, y: 4, width: 640, height: 480)])
        let wide = TileLayout.arrange([16.0 / 9], width: 648, height: 488, gap: 4)
        #expect(wide.first?.width == 640 && wide.first?.height == 360 && wide.first?.y == 64, "letterboxed, centred: \(wide)")
    }

    /// The widest picture comes first whatever order the participants are in.
    @Test func theWidestPictureComesFirst() {
        let aspects = [3.0 / 4, 16.0 / 9]
        let rects = TileLayout.arrange(aspects, width: 640, height: 480)
        Self.checkSane(rects, aspects: aspects, width: 640, height: 480)
        #expect(rects[1].x < rects[0].x && rects[1].y == rects[0].y, "one row, the 16:9 one left: \(rects)")
        #expect(rects[0].height > 200, "the row is as tall as the window's width allows: \(rects)")
    }

    /// Four 4:3 pictures in a 16:9 window make two rows of two (one row of four would be tiny).
    @Test func fourEqualPicturesMakeAGrid() {
        let aspects = [Double](repeating: 4.0 / 3, count: 4)
        let rects = TileLayout.arrange(aspects, width: 1280, height: 720)
        Self.checkSane(rects, aspects: aspects, width: 1280, height: 720)
        #expect(Set(rects.map(\.y)).count == 2 && Set(rects.map(\.x)).count == 2, "\(rects)")
        #expect(rects[0].x < rects[1].x && rects[0].y < rects[2].y, "equal shapes keep their order: \(rects)")
        let covered = rects.map { $0.width * $0.height }.reduce(0, +)
        #expect(Double(covered) > 0.6 * 1280 * 720, "covered \(covered)")
    }

    /// A tall window stacks the pictures instead.
    @Test func aTallWindowStacksThem() {
        let aspects = [16.0 / 9, 16.0 / 9, 4.0 / 3]
        let rects = TileLayout.arrange(aspects, width: 400, height: 900)
        Self.checkSane(rects, aspects: aspects, width: 400, height: 900)
        #expect(Set(rects.map(\.y)).count == 3 && rects[0].y < rects[1].y && rects[1].y < rects[2].y, "\(rects)")
    }

    @Test func nonsenseShapesAndTinyWindowsGiveNoCrash() {
        let aspects = [0, -1, .nan, .infinity, 1e9]
        let rects = TileLayout.arrange(aspects, width: 300, height: 200)
        #expect(rects.count == 5)
        Self.checkSane(rects, aspects: [4.0 / 3, 4.0 / 3, 4.0 / 3, 4.0 / 3, 10], width: 300, height: 200)
        #expect(TileLayout.arrange([1, 1], width: 3, height: 3).allSatisfy { $0.width == 0 })
        #expect(TileLayout.arrange([], width: 640, height: 480).isEmpty)
    }
}

import ConfCore

/// A min-heap of elements keyed by time; elements due at the same instant come out in the order they
/// were inserted, so a simulation's trace never depends on the heap's layout.
struct TimedQueue<Element> {
    private struct Entry {
        let at: Instant
        let order: UInt64
        let element: Element

        func precedes(_ other: Entry) -> Bool { (at, order) < (other.at, other.order) }
    }

    private var heap: [Entry] = []
    private var insertions: UInt64 = 0

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }
    var earliest: Instant? { heap.first?.at }

    mutating func insert(_ element: Element, at: Instant) {
        heap.append(Entry(at: at, order: insertions, element: element))
        insertions += 1
        siftUp(heap.count - 1)
    }

    /// Removes and returns the earliest element if it is due at or before `now` (its time was `earliest`).
    mutating func popDue(at now: Instant) -> Element? {
        guard let first = heap.first, first.at <= now else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
        return first.element
    }

    /// Takes out every element for which `isRemoved` is true and returns them, in no particular order.
    mutating func removeAll(where isRemoved: (Element) -> Bool) -> [Element] {
        let removed = heap.filter { isRemoved($0.element) }.map(\.element)
        guard !removed.isEmpty else { return [] }
        heap.removeAll { isRemoved($0.element) }
        // Heapify bottom-up; the (at, order) keys stay unique, so the pop order is unchanged.
        for index in stride(from: heap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
        return removed
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1, right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            if first == parent { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }
}

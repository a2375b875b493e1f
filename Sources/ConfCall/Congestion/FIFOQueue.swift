/// A first-in first-out queue with O(1) amortised push and pop: an array read from a moving
/// head, compacted once the consumed prefix is at least half of the storage.
struct FIFOQueue<Element>: Sendable where Element: Sendable {
    private var storage: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == storage.count }
    var count: Int { storage.count - head }
    var first: Element? { isEmpty ? nil : storage[head] }
    var last: Element? { isEmpty ? nil : storage[storage.count - 1] }
    /// The elements, oldest first.
    var elements: ArraySlice<Element> { storage[head...] }

    mutating func append(_ element: Element) { storage.append(element) }

    @discardableResult
    mutating func popFirst() -> Element? {
        guard !isEmpty else { return nil }
        let element = storage[head]
        head += 1
        if head >= 64 && head * 2 >= storage.count {
            storage.removeFirst(head)
            head = 0
        }
        return element
    }
}

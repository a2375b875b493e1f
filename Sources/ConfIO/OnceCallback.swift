/// Calls its body once, however many times it is asked.
final class OnceCallback {
    private var body: (() -> Void)?
    init(_ body: @escaping () -> Void) { self.body = body }
    func call() {
        let run = body
        body = nil
        run?()
    }
}

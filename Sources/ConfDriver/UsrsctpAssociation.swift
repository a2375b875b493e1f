import ConfCall
import ConfIO

/// usrsctp's data channels (ConfIO's `DataChannelTransport`) as the engine drives them: what
/// usrsctp calls back with is queued for `pollOutput`. usrsctp also sends on its own timers
/// (retransmissions): then `wake` tells the driver to drain the engine.
///
/// Threading: the event loop thread only.
final class UsrsctpAssociation: DataChannelAssociation {
    private let transport: DataChannelTransport
    private var outputs: [DataChannelOutput] = []
    private let wake: () -> Void

    init(loop: EventLoop, isDTLSClient: Bool, wake: @escaping () -> Void) {
        self.wake = wake
        var queue: (DataChannelOutput) -> Void = { _ in }
        transport = DataChannelTransport(loop: loop, isDTLSClient: isDTLSClient) { packet in queue(.packet(packet)) }
        queue = { [unowned self] output in
            self.outputs.append(output)
            self.wake()
        }
        transport.onOpen = { label in queue(.opened(label: label)) }
        transport.onMessage = { label, text in queue(.message(label: label, text: text)) }
        transport.onChannelClosed = { label in queue(.closed(label: label)) }
        transport.onAssociationClosed = { queue(.closed(label: nil)) }
    }

    func connect(remotePort: UInt16) { transport.connect(remotePort: remotePort) }
    func receive(_ packet: [UInt8]) { transport.receive(packet) }
    func open(label: String) { transport.open(label: label) }
    func send(text: String, label: String) -> Bool { transport.send(text: text, label: label) }
    func close() { transport.close() }
    func pollOutput() -> DataChannelOutput? { outputs.isEmpty ? nil : outputs.removeFirst() }
}

/// Makes a `UsrsctpAssociation` for each link whose DTLS is up.
struct UsrsctpFactory: DataChannelFactory {
    let loop: EventLoop
    let wake: () -> Void

    func makeAssociation(isDTLSClient: Bool) -> any DataChannelAssociation {
        UsrsctpAssociation(loop: loop, isDTLSClient: isDTLSClient, wake: wake)
    }
}

/// A Binding request a client sends to learn its server-reflexive address (RFC 8489 section 12),
/// and the reading of the answer to it. Pure: the caller sends `bytes`, and retransmits on its own
/// clock (section 6.2.1).
public struct STUNBindingRequest: Equatable, Sendable {
    public var transactionID: STUNTransactionID

    public init(transactionID: STUNTransactionID) {
        self.transactionID = transactionID
    }

    /// The request: a header and FINGERPRINT, no other attribute.
    public var bytes: [UInt8] { STUNMessage(.request, .binding, transactionID: transactionID).bytes }

    /// What a server answered.
    public enum Response: Equatable, Sendable {
        /// The address the request came from, as the server saw it.
        case mapped(STUNTransportAddress)
        case error(STUNErrorCode)
    }

    /// The answer in `datagram`; nil when it is not a well-formed Binding response to this
    /// transaction, or a success without a readable address. XOR-MAPPED-ADDRESS is read first,
    /// MAPPED-ADDRESS (which RFC 3489 servers send) when there is none.
    public func response(in datagram: [UInt8]) -> Response? {
        guard let message = try? STUNMessage.parse(datagram), message.method == .binding, message.transactionID == transactionID else {
            return nil
        }
        switch message.messageClass {
        case .successResponse:
            if let value = message.value(of: .xorMappedAddress) {
                return STUNTransportAddress(attributeValue: value, xorWith: transactionID).map(Response.mapped)
            }
            return message.value(of: .mappedAddress).flatMap { STUNTransportAddress(attributeValue: $0, xorWith: nil) }.map(Response.mapped)
        case .errorResponse:
            return message.value(of: .errorCode).flatMap(STUNErrorCode.init(attributeValue:)).map(Response.error)
        case .request, .indication:
            return nil
        }
    }
}

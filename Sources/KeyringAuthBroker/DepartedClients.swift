/// The last ``capacity`` unique names that left the bus, oldest first out: a call of one still in progress must not
/// register anything for it after its departure was handled. A bus never gives a unique name twice.
struct DepartedClients: Sendable {
    static let capacity = 4096
    private var names: Set<String> = []
    private var order: [String] = []

    mutating func insert(_ name: String) {
        guard names.insert(name).inserted else { return }
        order.append(name)
        if order.count > Self.capacity { names.remove(order.removeFirst()) }
    }

    func contains(_ name: String) -> Bool { names.contains(name) }
}

/// A libsecret or D-Bus call the store makes, named for messages and for telling errors apart.
enum SecretServiceCall: String, Sendable {
    case connectBus = "connecting to the session bus"
    case closeBus = "closing a bus connection"
    case openSession = "opening a Secret Service session"
    case readAlias = "resolving the collection alias"
    case search = "searching items"
    case getSecret = "reading a secret"
    case createItem = "storing an item"
    case updateItem = "updating an item in place"
    case identifyProvider = "asking the bus which program the provider is"
    case deleteItem = "deleting an item"
    case unlock = "unlocking the collection"
    case itemProperties = "reading item properties"
    case collectionLocked = "checking whether the collection is locked"

    /// Whether a "no such object" answer to this call means the collection itself is missing.
    var addressesCollection: Bool { self == .createItem || self == .collectionLocked }
}

import FoundationEssentials

/// A secret as the provider returned it.
struct StoredSecret {
    var data: Data
    var contentType: String
}

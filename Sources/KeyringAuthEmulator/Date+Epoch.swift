import Foundation

/// Times as the service writes them: whole seconds and milliseconds since 1970, rounded down.
extension Date {
    var seconds: Int64 { Int64(timeIntervalSince1970.rounded(.down)) }
    var milliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded(.down)) }
}

import SecretKeychain

#if canImport(Glibc)
import Glibc
#endif

// A program that uses the store alone: read one item with `SecretServiceStore` and print its size,
// as `secret-tool lookup` prints its secret. `Benchmarks/run` times it as a whole process against
// `secret-tool lookup` (the Swift runtime linked dynamically), to show what the store's own
// start-up costs: it imports FoundationEssentials, not Foundation.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: store-launch-bench SERVICE ACCOUNT ACCESS_GROUP")
    exit(2)
}
do {
    let key = KeychainKey(service: arguments[1], account: arguments[2], accessGroup: try AccessGroup(arguments[3]))
    guard let data = try SecretServiceStore().data(for: key) else {
        print("no item")
        exit(1)
    }
    print("\(data.count) bytes")
} catch {
    print("error: \(error)")
    exit(1)
}

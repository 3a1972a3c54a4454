import KeyringAuth

#if canImport(Glibc)
import Glibc
#endif

// An app's launch as a new user writes it: configure `Auth` with the defaults (the Secret Service,
// Firebase's REST API, live sync on), read `currentUser`, print its uid. `Benchmarks/run` times it
// as a whole process against `secret-tool lookup`, built as an app's binary is (the Swift runtime
// linked dynamically, and with --static-swift-stdlib). It sends no request: libcurl is not loaded.
let arguments = CommandLine.arguments
guard arguments.count == 4 else {
    print("usage: auth-launch-bench API_KEY APP_ID PROJECT_ID (an app whose saved group holds a user)")
    exit(2)
}
let options = AuthAppOptions(apiKey: arguments[1], appID: arguments[2], projectID: arguments[3])
let auth = Auth.configure(AuthConfiguration(options: options))
print(auth.currentUser?.uid ?? "nobody")

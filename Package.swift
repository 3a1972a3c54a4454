// swift-tools-version:6.2
import Foundation
import PackageDescription

/// Our own targets build with every warning as an error; dependencies are not affected.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

/// How SwiftPM finds libsecret. `libsecret-1.pc` pulls in gio-2.0's private requirement
/// gmodule-no-export-2.0, whose `-pthread` SwiftPM refuses with "warning: prohibited flag(s): -pthread"
/// in every build, ours and every dependent package's. Where libsecret is installed under /usr (every
/// Linux distribution's package), Sources/CSecret/pkgconfig/keyringauth-libsecret.pc names the same
/// headers and libraries without that flag; anywhere else (another prefix, a package path with a
/// space, which pkgConfig cannot take), libsecret-1.pc itself, warning included.
let libsecretPkgConfig: String = {
    let shim = Context.packageDirectory + "/Sources/CSecret/pkgconfig/keyringauth-libsecret.pc"
    let usable = !shim.contains(" ") && FileManager.default.fileExists(atPath: shim)
        && FileManager.default.fileExists(atPath: "/usr/include/libsecret-1/libsecret/secret.h")
    return usable ? shim : "libsecret-1"
}()

/// How SwiftPM finds GLib and GIO without libsecret, as `libsecretPkgConfig` finds libsecret (see
/// Sources/CGLib/pkgconfig/keyringauth-gio.pc).
let gioPkgConfig: String = {
    let shim = Context.packageDirectory + "/Sources/CGLib/pkgconfig/keyringauth-gio.pc"
    let usable = !shim.contains(" ") && FileManager.default.fileExists(atPath: shim)
        && FileManager.default.fileExists(atPath: "/usr/include/glib-2.0/gio/gio.h")
    return usable ? shim : "gio-2.0"
}()

/// How SwiftPM finds GTK 4 for the desktop example, as `libsecretPkgConfig` finds libsecret (see
/// Sources/CGtk/pkgconfig/keyringauth-gtk4.pc).
let gtkPkgConfig: String = {
    let shim = Context.packageDirectory + "/Sources/CGtk/pkgconfig/keyringauth-gtk4.pc"
    let usable = !shim.contains(" ") && FileManager.default.fileExists(atPath: shim)
        && FileManager.default.fileExists(atPath: "/usr/include/gtk-4.0/gtk/gtk.h")
        && ["x86_64", "aarch64"].contains { FileManager.default.fileExists(atPath: "/usr/lib/\($0)-linux-gnu/graphene-1.0/include/graphene-config.h") }
    return usable ? shim : "gtk4"
}()

let package = Package(
    name: "KeyringAuth",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "SecretKeychain", targets: ["SecretKeychain"]),
        .library(name: "KeyringAuth", targets: ["KeyringAuth"]),
        .library(name: "KeyringAuthEmulator", targets: ["KeyringAuthEmulator"]),
        .executable(name: "keyring-auth", targets: ["keyring-auth"]),
        .executable(name: "keyring-auth-emulator", targets: ["keyring-auth-emulator"]),
        .executable(name: "keyring-auth-broker", targets: ["keyring-auth-broker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        // The emulator's HTTP server; the client side is libcurl, loaded at the first request (CCurlLoader).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.80.0"),
        // `swift package generate-documentation` for the DocC catalogs (a plugin: nothing of it is linked).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.5.0"),
    ],
    targets: [
        // libsecret, found through pkg-config (see libsecretPkgConfig). The shim includes <libsecret/secret.h> only.
        .systemLibrary(
            name: "CSecret",
            pkgConfig: libsecretPkgConfig,
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // The dispatch main queue run from another main loop: libdispatch's run-loop calls, which Swift cannot declare.
        .target(name: "CMainQueue"),
        // GLib, GObject and GIO without libsecret (the shim includes <gio/gio.h>), for SystemSupport.
        .systemLibrary(name: "CGLib", pkgConfig: gioPkgConfig, providers: [.apt(["libglib2.0-dev"])]),
        // What the package's modules share where they touch the system, for the package only: threads off the
        // cooperative pool, the deadline timer, spawning, GLib's digests, base64url, the desktop portal's OpenURI,
        // the dispatch main queue run from GLib's main loop, escaping for a terminal. FoundationEssentials only.
        .target(name: "SystemSupport", dependencies: ["CGLib", "CMainQueue"], swiftSettings: strict),
        // The keychain adapter: the KeychainStore protocol, the Secret Service store, the in-memory store; and
        // GLibMainQueue, which runs the dispatch main queue from GLib's main loop.
        .target(
            name: "SecretKeychain",
            dependencies: [
                "CSecret", "SystemSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // libcurl, loaded with dlopen() at the first HTTP request, behind non-variadic C functions: a
        // process that never sends one does not load it, and no binary links -lcurl (so apps build with
        // --static-swift-stdlib). No curl header is needed to build it.
        .target(
            name: "CCurlLoader",
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // The Auth facade with Firebase's API and shared-access-group semantics.
        .target(
            name: "KeyringAuth",
            dependencies: [
                "SecretKeychain", "SystemSupport", "CCurlLoader",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // A local emulator of Identity Toolkit's REST API on loopback, for development, tests and the demo.
        .target(
            name: "KeyringAuthEmulator",
            dependencies: [
                "SystemSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // prctl(2)'s dumpable flag for the CLI while it holds a secret (prctl is variadic: Swift cannot call it); glibc's
        // malloc_trim(3) for the broker once a burst of calls is over (Swift's Glibc module does not declare it).
        .target(name: "CProcessControl"),
        // Child processes started as a shell starts them (posix_spawn), for the CLI's demo and the tests.
        .target(name: "Subprocesses", dependencies: ["SystemSupport"], swiftSettings: strict),
        // What the programs share: running a command line with keyring-auth's exit codes, the emulator's options.
        .target(
            name: "CommandLineSupport",
            dependencies: ["SystemSupport", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            swiftSettings: strict
        ),
        // The programs' code is in libraries of the package, so that each program's own executable (below) and
        // keyring-auth-multicall, the one executable installed for all three, are built from the same modules.
        //
        // The keyring-auth CLI's commands: inspection, sign-in and sign-out, doctor, emulator (run as
        // keyring-auth-emulator), demo. libqrencode, the field's own QR code library (Debian's libqrencode-dev):
        // `keyring-auth mfa enroll-totp`.
        .systemLibrary(name: "CQRCode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .target(
            name: "KeyringAuthCommands",
            dependencies: [
                "KeyringAuth", "SecretKeychain", "SystemSupport", "Subprocesses", "CProcessControl", "CommandLineSupport", "CQRCode",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The bundled emulator as a server, which `keyring-auth emulator` and `keyring-auth demo` run: SwiftNIO lives here,
        // not in the CLI's commands.
        .target(
            name: "KeyringAuthEmulatorServer",
            dependencies: [
                "KeyringAuthEmulator", "SystemSupport", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The Public Suffix List (libpsl's built-in copy), for the broker's group rule: a public suffix is no app's domain.
        .systemLibrary(name: "CPsl", pkgConfig: "libpsl", providers: [.apt(["libpsl-dev"])]),
        // The sign-in broker: the same Auth on the session bus (io.github.keyringauth.Broker1), for apps in any
        // language and sandboxed apps, with the access group enforced by who is calling. GDBus comes with libsecret.
        .target(
            name: "KeyringAuthBroker",
            dependencies: [
                "KeyringAuth", "SecretKeychain", "SystemSupport", "CSecret", "CPsl", "CProcessControl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // Each program as an executable of its own, for development (`swift run`), the tests and the benchmarks.
        .executableTarget(name: "keyring-auth", dependencies: ["KeyringAuthCommands"], swiftSettings: strict),
        // Without libsecret, which the emulator does not need (scripts/check-lean-start checks it).
        .executableTarget(name: "keyring-auth-emulator", dependencies: ["KeyringAuthEmulatorServer"], swiftSettings: strict),
        .executableTarget(name: "keyring-auth-broker", dependencies: ["KeyringAuthBroker"], swiftSettings: strict),
        // The three programs in one executable, which scripts/install and the Debian package install as bin/keyring-auth,
        // with bin/keyring-auth-broker and bin/keyring-auth-emulator linked to it: it is the one its name says, and
        // the package carries one copy of the Swift runtime, not three. Not a product: `swift build --product
        // keyring-auth-multicall` builds it in this package only.
        .executableTarget(
            name: "keyring-auth-multicall",
            dependencies: ["KeyringAuthCommands", "KeyringAuthBroker", "KeyringAuthEmulatorServer"],
            swiftSettings: strict
        ),
        // Drives an Auth in a process of its own, for the cross-process tests.
        .executableTarget(
            name: "auth-probe",
            dependencies: [
                "KeyringAuth", "SecretKeychain", "SystemSupport", "KeyringTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/auth-probe",
            swiftSettings: strict
        ),
        // A program shaped as a GTK app (GLib's main loop on the main thread) with GLibMainQueue attached, for its tests.
        .executableTarget(
            name: "main-queue-probe",
            dependencies: ["KeyringAuth", "SecretKeychain", "SystemSupport", "KeyringTestSupport", "CSecret"],
            path: "Tests/main-queue-probe",
            swiftSettings: strict
        ),
        // Runs SystemSupport's ways to start a thread in a process that has reached its task limit, for the integration tests.
        .executableTarget(
            name: "thread-limit-probe",
            dependencies: ["SystemSupport", "CGLib"],
            path: "Tests/thread-limit-probe",
            swiftSettings: strict
        ),
        // Writes and lists raw items as another client of the Secret Service would, for the integration tests.
        .executableTarget(
            name: "keychain-probe",
            dependencies: ["SecretKeychain", "SystemSupport", "KeyringTestSupport", .product(name: "Logging", package: "swift-log")],
            path: "Tests/keychain-probe",
            swiftSettings: strict
        ),
        // Measurements reported as figures (`swift run -c release keyring-auth-bench …` under dbus/with-keyring).
        .executableTarget(
            name: "keyring-auth-bench",
            dependencies: [
                "KeyringAuth", "KeyringAuthEmulator", "SecretKeychain", "SystemSupport", "Subprocesses",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/keyring-auth-bench",
            swiftSettings: strict
        ),
        // An app that links KeyringAuth, configures its Auth and reads currentUser: timed as a whole
        // process by keyring-auth-bench (Benchmarks/run builds it, also with --static-swift-stdlib).
        .executableTarget(
            name: "auth-launch-bench",
            dependencies: ["KeyringAuth"],
            path: "Benchmarks/auth-launch-bench",
            swiftSettings: strict
        ),
        // App Check's figures (Benchmarks/app-check): a kept token's cost per request, and the exchanges of 16
        // processes of one app launching together against the bundled emulator enforcing App Check.
        .executableTarget(
            name: "app-check-bench",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain", "Subprocesses"],
            path: "Benchmarks/app-check-bench",
            swiftSettings: strict
        ),
        // A program that uses SecretKeychain alone and reads one item: timed like auth-launch-bench.
        .executableTarget(
            name: "store-launch-bench",
            dependencies: ["SecretKeychain"],
            path: "Benchmarks/store-launch-bench",
            swiftSettings: strict
        ),
        // The documents' code, run as written there (Tests/IntegrationTests/ExamplesTests runs them). Not products.
        // The walkthrough of "Using KeyringAuth": `dbus/with-keyring swift run shared-sign-in-example`.
        .executableTarget(
            name: "shared-sign-in-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", .product(name: "Logging", package: "swift-log")],
            path: "Examples/SharedSignIn",
            swiftSettings: strict
        ),
        // Two apps, two processes, one sign-in, with the bundled emulator: `dbus/with-keyring swift run two-apps-example`.
        .executableTarget(
            name: "two-apps-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", .product(name: "Logging", package: "swift-log")],
            path: "Examples/TwoApps",
            swiftSettings: strict
        ),
        // "Using SecretKeychain" and "Observing changes": `dbus/with-keyring swift run secret-keychain-example`.
        .executableTarget(
            name: "secret-keychain-example",
            dependencies: ["SecretKeychain"],
            path: "Examples/SecretKeychain",
            swiftSettings: strict
        ),
        // "Using the emulator", with users in memory: `swift run emulator-example`.
        .executableTarget(
            name: "emulator-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain"],
            path: "Examples/Emulator",
            swiftSettings: strict
        ),
        // "Sign in with any method": Firebase's calls for credentials, custom tokens, linking and claims, on the
        // emulator with users in memory: `swift run sign-in-methods-example`.
        .executableTarget(
            name: "sign-in-methods-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain"],
            path: "Examples/SignInMethods",
            swiftSettings: strict
        ),
        // "Email actions": password reset, email verification and email-link sign-in with Firebase's calls, on the
        // emulator with users in memory: `swift run email-actions-example`.
        .executableTarget(
            name: "email-actions-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain"],
            path: "Examples/EmailActions",
            swiftSettings: strict
        ),
        // "Phone numbers": phone sign-in and an SMS second factor with Firebase's calls, on the emulator with users in
        // memory: `swift run phone-numbers-example`.
        .executableTarget(
            name: "phone-numbers-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain"],
            path: "Examples/PhoneNumbers",
            swiftSettings: strict
        ),
        // "App Check": Auth's requests with App Check tokens of the debug provider and of a custom provider, on the
        // emulator enforcing App Check and the session's keyring: `dbus/with-keyring swift run app-check-example`.
        .executableTarget(
            name: "app-check-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator"],
            path: "Examples/AppCheck",
            swiftSettings: strict
        ),
        // "Desktop sign-in with Google": the desktop OAuth flow, then signIn(with:) on the emulator with users in memory;
        // with a stand-in for Google from the tests unless GOOGLE_CLIENT_ID is set: `swift run desktop-sign-in-example`.
        .executableTarget(
            name: "desktop-sign-in-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain", "KeyringTestSupport"],
            path: "Examples/DesktopSignIn",
            swiftSettings: strict
        ),
        // "Handling errors": Swift's typed error and ported Firebase NSError code: `swift run error-handling-example`.
        .executableTarget(
            name: "error-handling-example",
            dependencies: ["KeyringAuth", "SecretKeychain"],
            path: "Examples/ErrorHandling",
            swiftSettings: strict
        ),
        // Code written for Firebase's Apple SDK, only the import changed; two apps of one group run it against the
        // emulator: `dbus/with-keyring Examples/FirebasePort/run`.
        .executableTarget(
            name: "firebase-port-example",
            dependencies: ["KeyringAuth"],
            path: "Examples/FirebasePort",
            exclude: ["GoogleService-Info.plist", "SecondApp", "run"],
            swiftSettings: strict
        ),
        // Firebase's own idioms around Auth calls, as its samples write them, only the import switched: run by the tests
        // against the emulator (`FIREBASE_AUTH_EMULATOR_HOST`).
        .executableTarget(
            name: "firebase-idioms-example",
            dependencies: ["KeyringAuth"],
            path: "Examples/FirebaseIdioms",
            exclude: ["GoogleService-Info.plist"],
            swiftSettings: strict
        ),
        // GTK 4, for the desktop example (not a dependency of any product).
        .systemLibrary(name: "CGtk", pkgConfig: gtkPkgConfig, providers: [.apt(["libgtk-4-dev"])]),
        // A GTK 4 app: two windows, two apps of one group, one sign-in, live: `dbus/with-keyring swift run desktop-app-example`.
        .executableTarget(
            name: "desktop-app-example",
            dependencies: ["KeyringAuth", "KeyringAuthEmulator", "SecretKeychain", "CGtk"],
            path: "Examples/DesktopApp",
            swiftSettings: strict
        ),
        .testTarget(
            name: "KeyringAuthTests",
            dependencies: [
                "KeyringAuth", "SecretKeychain", "SystemSupport", "KeyringTestSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The REST client against the bundled emulator over loopback HTTP, and the emulator itself.
        .testTarget(
            name: "EmulatorTests",
            dependencies: [
                "KeyringAuth", "KeyringAuthEmulator", "SecretKeychain", "SystemSupport", "KeyringTestSupport", "CommandLineSupport",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // The broker's rules, unit by unit (its behaviour on a bus: IntegrationTests' KeyringTests.Broker).
        .testTarget(
            name: "KeyringAuthBrokerTests",
            dependencies: [
                "KeyringAuthBroker", "KeyringAuth", "SecretKeychain", "SystemSupport", .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SecretKeychainTests",
            dependencies: ["SecretKeychain", "SystemSupport", "Subprocesses"],
            swiftSettings: strict
        ),
        // The system layer: threads, the deadline timer, spawning, digests, base64url, escaping for a terminal.
        .testTarget(
            name: "SystemSupportTests",
            dependencies: ["SystemSupport"],
            swiftSettings: strict
        ),
        // Test-only helpers that talk to the keyring as another client would (raw libsecret and GDBus).
        .target(
            name: "KeyringTestSupport",
            dependencies: [
                "CSecret", "SecretKeychain", "SystemSupport", "KeyringAuth", "Subprocesses", .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/KeyringTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "SecretKeychain", "SystemSupport", "KeyringAuth", "KeyringAuthEmulator", "KeyringTestSupport", "keychain-probe", "auth-probe",
                "main-queue-probe", "thread-limit-probe", "desktop-app-example",
                "keyring-auth", "keyring-auth-emulator", "keyring-auth-broker", "shared-sign-in-example", "two-apps-example", "secret-keychain-example", "emulator-example",
                "error-handling-example", "sign-in-methods-example", "email-actions-example", "desktop-sign-in-example",
                "firebase-port-example", "firebase-idioms-example",
            ],
            swiftSettings: strict
        ),
    ],
    swiftLanguageModes: [.v6]
)

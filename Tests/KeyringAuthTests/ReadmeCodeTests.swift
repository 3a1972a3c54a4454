import Foundation
import KeyringAuth
import Testing

/// Every code block of the README and of the DocC articles is code that CI builds and runs: each Swift block is in a file under
/// `Examples/` (which `ExamplesTests` runs), the package manifest block names what `Package.swift`
/// declares, and the app options block loads.
@Suite struct ReadmeCodeTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The documents whose code blocks are checked: the README and the DocC catalogs' articles.
    static func documents() throws -> [URL] {
        var documents = [root.appendingPathComponent("README.md")]
        for catalog in ["Sources/KeyringAuth/KeyringAuth.docc", "Sources/SecretKeychain/SecretKeychain.docc"] {
            let folder = root.appendingPathComponent(catalog)
            documents += try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }.sorted { $0.path < $1.path }
        }
        return documents
    }

    /// The fenced blocks with the given info string in the README and the articles, in order.
    static func blocks(_ language: String) throws -> [String] {
        try documents().flatMap { try blocks(language, in: $0) }
    }

    static func blocks(_ language: String, in document: URL) throws -> [String] {
        let text = try String(contentsOf: document, encoding: .utf8)
        var blocks: [String] = [], current: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if current == nil, line == "```" + language {
                current = []
            } else if current != nil, line == "```" {
                blocks.append(current!.joined(separator: "\n"))
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }

    /// Swift files under `Examples/`, by path.
    static func exampleSources() throws -> [String: String] {
        let examples = root.appendingPathComponent("Examples")
        var sources: [String: String] = [:]
        let files = FileManager.default.enumerator(at: examples, includingPropertiesForKeys: nil)
        while let file = files?.nextObject() as? URL {
            if file.pathExtension == "swift" { sources[file.path] = try String(contentsOf: file, encoding: .utf8) }
        }
        return sources
    }

    /// Whether `source` holds `block`: its `import` lines anywhere, the rest verbatim at one indentation
    /// (a block may sit in a function, since top-level code picks a store's blocking calls over the `async` ones).
    static func contains(_ source: String, _ block: String) -> Bool {
        var lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let imports = lines.prefix { $0.hasPrefix("import ") || $0.isEmpty }
        lines.removeFirst(imports.count)
        let sourceLines = Set(source.split(separator: "\n").map(String.init))
        guard imports.filter({ !$0.isEmpty }).allSatisfy(sourceLines.contains) else { return false }
        return [0, 4, 8].contains { indent in
            let indented = lines.map { $0.isEmpty ? $0 : String(repeating: " ", count: indent) + $0 }
            return source.contains(indented.joined(separator: "\n"))
        }
    }

    @Test func everySwiftBlockIsInAnExample() throws {
        let sources = try Self.exampleSources()
        let blocks = try Self.blocks("swift").filter { !$0.contains(".package(url:") }
        #expect(blocks.count >= 5, "the README's Swift blocks were found")
        for block in blocks {
            #expect(sources.values.contains { Self.contains($0, block) }, "not in any file under Examples/:\n\(block)")
        }
    }

    @Test func thePackageBlockNamesTheDeclaredProducts() throws {
        let manifest = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let block = try #require(try Self.blocks("swift").first { $0.contains(".package(url:") })
        let url = try #require(block.firstMatch(of: /\.package\(url: "([^"]+)", from: "[0-9.]+"\)/)?.1)
        let identity = String(url.split(separator: "/").last ?? "").replacingOccurrences(of: ".git", with: "")
        let products = block.matches(of: /\.product\(name: "([^"]+)", package: "([^"]+)"\)/)
        #expect(!products.isEmpty)
        for product in products {
            #expect(String(product.2) == identity, "package: names the URL's identity")
            #expect(manifest.contains(#".library(name: "\#(product.1)""#), "\(product.1) is a product of Package.swift")
        }
    }

    @Test func theOptionsFileBlockLoads() throws {
        let block = try #require(try Self.blocks("json").first { $0.contains("\"appID\"") })
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("readme-options-\(UUID().uuidString).json")
        try Data(block.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let options = try AuthAppOptions.load(from: file)
        #expect(options.appName == AuthAppOptions.defaultAppName && options.tenantID == nil)
    }
}

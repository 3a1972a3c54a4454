import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SMS codes the emulator "sent" (it prints them and lists them at `GET /emulator/v1/projects/{p}/verificationCodes`),
/// read as a person reads their phone.
package enum EmulatorSMS {
    /// The emulator's list: `(phoneNumber, code, sessionInfo)` in the order sent.
    package static func sent(emulator address: String, project: String = "demo-keyring-auth") async throws -> [(phoneNumber: String, code: String, sessionInfo: String)] {
        let url = URL(string: "http://\(address)/emulator/v1/projects/\(project)/verificationCodes")!
        let (data, _) = try await URLSession.shared.data(from: url)
        let list = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        return (list?["verificationCodes"] as? [[String: Any]] ?? []).compactMap { entry in
            guard let phone = entry["phoneNumber"] as? String, let code = entry["code"] as? String, let session = entry["sessionInfo"] as? String else {
                return nil
            }
            return (phone, code, session)
        }
    }

    /// The code of the next SMS sent to `phoneNumber` after the `already` ones were: waits for it (polling the list, up to
    /// `deadline`), as the person waits for the message.
    package static func next(
        to phoneNumber: String, emulator address: String, after already: Int = 0, within deadline: Duration = .seconds(60)
    ) async throws -> String {
        let end = ContinuousClock.now + deadline
        while ContinuousClock.now < end {
            let codes = try await sent(emulator: address).filter { $0.phoneNumber == phoneNumber }
            if codes.count > already { return codes[already].code }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw NoSMS(phoneNumber: phoneNumber)
    }

    /// How many codes were sent to `phoneNumber` so far.
    package static func count(to phoneNumber: String, emulator address: String) async throws -> Int {
        try await sent(emulator: address).filter { $0.phoneNumber == phoneNumber }.count
    }

    package struct NoSMS: Error, CustomStringConvertible {
        let phoneNumber: String
        package var description: String { "the emulator sent no code to \(phoneNumber) in time" }
    }
}

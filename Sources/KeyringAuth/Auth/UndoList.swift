import Logging

/// The steps that put back what a multi-step change has done so far, run newest first when a
/// later step fails. A step that cannot be undone is logged as an error naming what was left changed.
struct UndoList {
    private var steps: [(what: String, undo: () throws(AuthError) -> Void)] = []
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// Adds the step that puts back `what`.
    mutating func add(_ what: String, _ undo: @escaping () throws(AuthError) -> Void) {
        steps.append((what, undo))
    }

    /// Undoes every step added, newest first.
    func run() {
        for step in steps.reversed() {
            do throws(AuthError) {
                try step.undo()
            } catch {
                logger.error(
                    "Could not put back \(step.what) after a failed change; it was left changed",
                    metadata: ["error": "\(error)"])
            }
        }
    }
}

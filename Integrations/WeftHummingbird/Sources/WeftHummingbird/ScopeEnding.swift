import Foundation
import Hummingbird
import Logging
import Weft

/// Ends one request's scope exactly once, whichever comes first: the response body written, the handler failed,
/// or the response dropped unwritten (the client went away), which this object notices when it is released.
final class ScopeEnding: @unchecked Sendable {
    let scope: Container
    private let logger: Logger
    private let lock = NSLock()
    /// Guarded by `lock`.
    private var ended = false

    init(scope: Container, logger: Logger) {
        self.scope = scope
        self.logger = logger
    }

    /// Ends the scope unless it has ended already; returns false when a teardown failed (it is logged).
    @discardableResult
    func end() async -> Bool {
        guard claimEnd() else { return true }
        return await Self.end(scope, logger: logger)
    }

    /// `body`, which ends the scope once it has been written, or failed to be.
    func endAfterWriting(_ body: ResponseBody) -> ResponseBody {
        ResponseBody(contentLength: body.contentLength) { writer in
            do {
                try await body.write(writer)
            } catch {
                await self.end()
                throw error
            }
            await self.end()
        }
    }

    deinit {
        // The response was dropped before its body was written: end the scope all the same.
        guard claimEnd() else { return }
        let (scope, logger) = (scope, logger)
        Task { await Self.end(scope, logger: logger) }
    }

    /// Whether this call is the one that ends the scope.
    private func claimEnd() -> Bool {
        lock.withLock {
            defer { ended = true }
            return !ended
        }
    }

    /// Ends `scope` in a task of its own, which the request's cancellation does not reach (a cancelled `end`
    /// would report its teardowns as interrupted instead of waiting for them), and logs a failure.
    private static func end(_ scope: Container, logger: Logger) async -> Bool {
        do {
            try await Task { try await scope.end() }.value
            return true
        } catch {
            var metadata: Logger.Metadata = ["error": "\(error)"]
            if let teardown = error as? TeardownError {
                metadata["weft.service"] = "\(teardown.failures.map(\.service).joined(separator: ", "))"
            }
            logger.error("Ending the request's scope failed", metadata: metadata)
            return false
        }
    }
}

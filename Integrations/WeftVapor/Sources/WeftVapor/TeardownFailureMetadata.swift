import Logging
import Weft

/// The metadata logged with a failed teardown: the error and, for a ``Weft/TeardownError``, the services whose
/// teardown failed, under the keys WeftLogging uses.
enum TeardownFailureMetadata {
    static func of(_ error: any Error) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["error": "\(error)"]
        if let teardown = error as? TeardownError {
            metadata["weft.service"] = "\(teardown.failures.map(\.service).joined(separator: ", "))"
        }
        return metadata
    }
}

/// The words of teardown failures, beside Weft's other user-facing texts (``ResolutionError``'s are in
/// `ResolutionError+Messages.swift`, the log's in `LogRecord.swift`): the types and how they are made stay in
/// `Scopes/Teardown.swift`.
extension TeardownError {
    /// The full message, starting with the stable identifier `[Weft.teardownFailed]`.
    public var description: String {
        let count = failures.count == 1 ? "1 teardown" : "\(failures.count) teardowns"
        return "[Weft.teardownFailed] \(count) threw: " + failures.map(\.description).joined(separator: "; ")
    }
}

extension TeardownError.Failure {
    /// `Service: error`.
    public var description: String { "\(service): \(error)" }
}

extension TeardownInterruption {
    /// What happened, e.g. `did not finish within 5.0 seconds (still running, not awaited)`.
    public var description: String {
        switch self {
        case .timedOut(let seconds): return "did not finish within \(seconds) seconds (still running, not awaited)"
        case .cancelled: return "not awaited: the task ending the scope was cancelled (still running)"
        }
    }
}

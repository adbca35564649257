/// One message Weft logs, with its parts, for a structured logger: what happened, the service it is about,
/// the resolution path and the reason, besides the text ``Container/loggingFunction`` receives.
///
/// Install a handler with ``Container/logHandler``; the WeftLogging integration routes records to a
/// swift-log `Logger` in one call.
///
/// ```swift
/// Container.logHandler = { record in
///     print(record.event, record.service ?? "-", record.path.joined(separator: " -> "))
/// }
/// ```
public struct LogRecord: CustomStringConvertible, @unchecked Sendable {
    /// What happened.
    public enum Event: String, Sendable, CaseIterable {
        /// A `resolve` failed (a `require` throws instead of logging).
        case resolutionFailed
        /// A ``Teardown`` or ``AsyncTeardown`` threw or did not finish in time, where no caller could be told.
        case teardownFailed
        /// A container or scope that kept instances to tear down was released without ``Container/end(timeout:)``.
        case notTornDown
    }

    /// What happened.
    public let event: Event
    /// The whole message, as ``Container/loggingFunction`` receives it.
    public let message: String
    /// The service the record is about (for a teardown, each failed service, comma-separated).
    public let service: String?
    /// The registration name, for a failed resolve of a named registration.
    public let name: String?
    /// The resolution path of a failed resolve, from the first service asked for to the one that failed.
    public let path: [String]
    /// A stable identifier of the reason: a ``ResolutionError``'s ``ResolutionError/identifier``,
    /// `Weft.teardownFailed` or `Weft.notTornDown`.
    public let reason: String
    /// The error behind the record: a ``ResolutionError``, a ``TeardownError``, or what a resolve threw.
    public let error: (any Error)?

    /// The message's first line, a summary without the path, suggestions and hints that follow it.
    public var headline: String {
        message.split(separator: "\n", maxSplits: 1).first.map(String.init) ?? message
    }

    /// The whole message, as ``message``: printing a record shows what Weft would log.
    public var description: String { message }

    /// The record of a failed resolve.
    static func resolutionFailed(_ error: ResolutionError) -> LogRecord {
        LogRecord(
            event: .resolutionFailed, message: error.description, service: error.serviceType, name: error.name,
            path: error.path, reason: error.identifier, error: error)
    }

    /// The record of a resolve that failed with an error other than a ``ResolutionError``.
    static func resolutionFailed(_ error: any Error, resolving serviceType: Any.Type) -> LogRecord {
        LogRecord(
            event: .resolutionFailed, message: String(describing: error), service: String(describing: serviceType),
            name: nil, path: [], reason: "Weft.\(Event.resolutionFailed.rawValue)", error: error)
    }

    /// The record of teardowns that failed where no caller could be told.
    static func teardownFailed(_ error: TeardownError) -> LogRecord {
        LogRecord(
            event: .teardownFailed, message: error.description,
            service: error.failures.map(\.service).joined(separator: ", "), name: nil, path: [],
            reason: "Weft.\(Event.teardownFailed.rawValue)", error: error)
    }

    /// The record of a container or scope released without `end()` while it kept `labels` to tear down.
    static func notTornDown(_ labels: [String], scope: Bool) -> LogRecord {
        let services = labels.joined(separator: ", ")
        return LogRecord(
            event: .notTornDown,
            message: "[Weft.notTornDown] A \(scope ? "scope" : "container") was released without end(): "
                + "\(services) not torn down.",
            service: services, name: nil, path: [], reason: "Weft.\(Event.notTornDown.rawValue)", error: nil)
    }
}

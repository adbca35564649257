import Logging
import Weft

extension Container {
    /// Sends everything Weft logs to `logger`, as structured log entries: the message is the record's
    /// headline, and its parts go into the entry's metadata under `weft.event`, `weft.service`, `weft.name`,
    /// `weft.path`, `weft.reason` and `weft.details` (what the message says after its headline: the path,
    /// the registrations that might have been meant, the fix).
    ///
    /// ```swift
    /// import Logging
    /// import WeftLogging
    ///
    /// Container.routeLogging(to: Logger(label: "weft"))
    /// ```
    ///
    /// It replaces ``Weft/Container/logHandler``; ``Weft/Container/loggingFunction`` is then no longer
    /// called. Put the default back with `Container.logHandler = Container.defaultLogHandler`.
    ///
    /// - Parameters:
    ///   - logger: Where the entries go; its own log level filters them.
    ///   - level: The level of each kind of record: by default a failed resolve and a container released
    ///     without `end()` are warnings, a failed teardown an error.
    public static func routeLogging(
        to logger: Logger,
        level: @escaping @Sendable (LogRecord.Event) -> Logger.Level = WeftLogLevels.standard
    ) {
        logHandler = { record in
            logger.log(level: level(record.event), "\(record.headline)", metadata: record.swiftLogMetadata)
        }
    }
}

/// The log levels ``Weft/Container/routeLogging(to:level:)`` gives Weft's records.
public enum WeftLogLevels {
    /// A failed resolve and a container released without `end()`: `.warning`; a failed teardown: `.error`.
    @Sendable public static func standard(_ event: LogRecord.Event) -> Logger.Level {
        switch event {
        case .resolutionFailed, .notTornDown: .warning
        case .teardownFailed: .error
        }
    }
}

extension LogRecord {
    /// The record's parts as swift-log metadata; absent parts are left out.
    public var swiftLogMetadata: Logger.Metadata {
        var metadata: Logger.Metadata = [
            "weft.event": "\(event.rawValue)",
            "weft.reason": "\(reason)",
        ]
        if let service { metadata["weft.service"] = "\(service)" }
        if let name { metadata["weft.name"] = "\(name)" }
        if !path.isEmpty { metadata["weft.path"] = "\(path.joined(separator: " -> "))" }
        let details = message.split(separator: "\n", maxSplits: 1).dropFirst().first
        if let details { metadata["weft.details"] = "\(details)" }
        return metadata
    }
}

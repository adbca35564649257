#if canImport(Darwin)
    import Darwin
#elseif canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension Container {
    private static let loggingLock = Lock()
    nonisolated(unsafe) private static var installedLoggingFunction: (@Sendable (String) -> Void)? =
        defaultLoggingFunction

    /// Receives the message of every failed `resolve` (the text of its ``ResolutionError``).
    ///
    /// By default messages are printed when the environment variable `WEFT_LOGGING_ENABLED`
    /// (or Swinject's `SWINJECT_LOGGING_ENABLED`) is `1`. Set your own function to route them to your
    /// logger, or `nil` to silence them.
    ///
    /// ```swift
    /// Container.loggingFunction = { message in logger.warning("\(message)") }
    /// ```
    public static var loggingFunction: (@Sendable (String) -> Void)? {
        get { loggingLock.withLock { installedLoggingFunction } }
        set { loggingLock.withLock { installedLoggingFunction = newValue } }
    }

    nonisolated(unsafe) private static var installedLogHandler: (@Sendable (LogRecord) -> Void)? =
        defaultLogHandler

    /// Receives everything Weft logs as a ``LogRecord``: the message with its parts (event, service, name,
    /// path, reason), for a structured logger.
    ///
    /// By default it hands each record's message to ``loggingFunction``. A handler set here replaces that
    /// route: ``loggingFunction`` is then not called. `nil` silences Weft.
    ///
    /// ```swift
    /// Container.logHandler = { record in
    ///     logger.warning("\(record.headline)", metadata: ["service": "\(record.service ?? "")"])
    /// }
    /// ```
    public static var logHandler: (@Sendable (LogRecord) -> Void)? {
        get { loggingLock.withLock { installedLogHandler } }
        set { loggingLock.withLock { installedLogHandler = newValue } }
    }

    /// The log handler a container starts with: passes each record's message to ``loggingFunction``.
    /// Assign it to put the default back.
    public static let defaultLogHandler: @Sendable (LogRecord) -> Void = { record in
        loggingFunction?(record.message)
    }

    /// Sends `record` to the log handler.
    static func log(_ record: LogRecord) {
        logHandler?(record)
    }

    /// The logging function a container starts with: prints each message when the environment variable
    /// `WEFT_LOGGING_ENABLED` or `SWINJECT_LOGGING_ENABLED` is `1`. Assign it to put the default back.
    public static let defaultLoggingFunction: @Sendable (String) -> Void = { message in
        if environmentFlag("WEFT_LOGGING_ENABLED") || environmentFlag("SWINJECT_LOGGING_ENABLED") {
            print(message)
        }
    }

    private static func environmentFlag(_ name: String) -> Bool {
        guard let value = getenv(name) else { return false }
        return String(cString: value) == "1"
    }
}

/// Where the container reports failed resolutions; tests replace it with a spy. A class, so that a container
/// keeps it as one reference (a scope keeps none).
protocol DebugHelper: AnyObject, Sendable {
    /// A registration was missing: what was asked for and every registration visible from the container.
    func resolutionFailed<Service>(
        serviceType: Service.Type,
        key: ServiceKey,
        availableRegistrations: [ServiceKey: any ServiceEntryProtocol]
    )
    /// A `resolve` failed with `error`.
    func log(_ error: ResolutionError)
}

extension DebugHelper {
    func log(_ error: ResolutionError) {
        Container.log(.resolutionFailed(error))
    }
}

/// The debug helper of every container: failures go to ``Container/loggingFunction``.
final class LoggingDebugHelper: DebugHelper {
    func resolutionFailed<Service>(
        serviceType _: Service.Type,
        key _: ServiceKey,
        availableRegistrations _: [ServiceKey: any ServiceEntryProtocol]
    ) {}
}

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

    /// Sends `message` to the logging function.
    static func log(_ message: String) {
        loggingFunction?(message)
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

/// Where the container reports failed resolutions; tests replace it with a spy.
protocol DebugHelper: Sendable {
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
        Container.log(error.description)
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

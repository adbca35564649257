import Logging
import ServiceLifecycle
import Weft

/// A Weft container as a `Service` of a swift-service-lifecycle `ServiceGroup`: it runs until the group
/// shuts down gracefully, then ends the container, tearing down its `.container` singletons that adopt
/// ``Weft/Teardown`` or ``Weft/AsyncTeardown``, newest first, each async one within `teardownTimeout`.
///
/// A group shuts its services down in the reverse of their order, so list the container first: every other
/// service (an HTTP server, a queue consumer) stops before the singletons it uses are torn down.
///
/// ```swift
/// let group = ServiceGroup(
///     services: [ContainerService(container, logger: logger), server],
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()
/// ```
///
/// A teardown that throws or overruns its bound is logged at `.error` with the service's name
/// (`weft.service`) and its error (`weft.error`), and ``run()`` throws the container's ``Weft/TeardownError``
/// once every teardown ran, so the group reports it. When the group is cancelled instead of shut down
/// gracefully, the container is still torn down before ``run()`` returns.
public struct ContainerService: Service {
    /// The container this service ends.
    public let container: Container
    /// The longest one teardown may take, in seconds; a teardown that takes longer is reported as failed
    /// and left running.
    public let teardownTimeout: Double
    /// Where teardown failures and the end of the container are logged.
    public let logger: Logger

    /// Makes a service that ends `container` when its group shuts down.
    ///
    /// - Parameters:
    ///   - container: The application's container (or any container whose singletons need tearing down).
    ///   - teardownTimeout: The longest one teardown may take, in seconds.
    ///   - logger: Where teardown failures are logged.
    public init(
        _ container: Container,
        teardownTimeout: Double = Container.defaultTeardownTimeout,
        logger: Logger = Logger(label: "weft.container")
    ) {
        self.container = container
        self.teardownTimeout = teardownTimeout
        self.logger = logger
    }

    /// Waits for the group's graceful shutdown (or its cancellation), then ends the container.
    ///
    /// - Throws: ``Weft/TeardownError`` when a teardown threw or did not finish within `teardownTimeout`.
    public func run() async throws {
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: the singletons are torn down all the same.
        }
        let container = container
        let timeout = teardownTimeout
        // In a task of its own, which the group's cancellation does not reach: a cancelled `end` would report
        // every teardown as interrupted instead of waiting for it within its bound.
        let outcome = await Task { () -> (any Error)? in
            do {
                try await container.end(timeout: timeout)
                return nil
            } catch {
                return error
            }
        }.value
        guard let outcome else {
            logger.debug("Weft container ended")
            return
        }
        for failure in (outcome as? TeardownError)?.failures ?? [] {
            logger.error(
                "Teardown failed",
                metadata: ["weft.service": "\(failure.service)", "weft.error": "\(failure.error)"]
            )
        }
        throw outcome
    }
}

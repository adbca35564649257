import Vapor
import Weft

extension Application {
    /// The application's Weft container: what ``WeftScopeMiddleware`` makes each request's scope from, and what
    /// the application ends when it shuts down.
    ///
    /// Set it while configuring the application, before it boots:
    ///
    /// ```swift
    /// app.container = container
    /// app.middleware.use(WeftScopeMiddleware())
    /// ```
    ///
    /// Read before it was set, it is a new, empty container, kept from then on. Either way the application ends
    /// the container it holds at shutdown (``Weft/Container/end(timeout:)``): its singletons that adopt `Teardown`
    /// or `AsyncTeardown` are torn down newest first, each async one within ``containerTeardownTimeout``, and
    /// failures are logged through the application's logger.
    public var container: Container {
        get {
            locks.lock(for: ContainerKey.self).withLock {
                if let container = storage[ContainerKey.self] { return container }
                let container = Container()
                storage[ContainerKey.self] = container
                endsContainerAtShutdown()
                return container
            }
        }
        set {
            locks.lock(for: ContainerKey.self).withLock {
                if storage[ContainerKey.self] == nil { endsContainerAtShutdown() }
                storage[ContainerKey.self] = newValue
            }
        }
    }

    /// The longest each teardown of the application's container may take at shutdown, in seconds:
    /// ``Weft/Container/defaultTeardownTimeout`` unless set.
    public var containerTeardownTimeout: Double {
        get { storage[TeardownTimeoutKey.self] ?? Container.defaultTeardownTimeout }
        set { storage[TeardownTimeoutKey.self] = newValue }
    }

    /// Adds the lifecycle handler that ends the container at shutdown; called once, with the first container.
    private func endsContainerAtShutdown() {
        lifecycle.use(ContainerShutdown())
    }
}

private enum ContainerKey: StorageKey, LockKey {
    typealias Value = Container
}

private enum TeardownTimeoutKey: StorageKey {
    typealias Value = Double
}

/// Ends the application's container when the application shuts down.
struct ContainerShutdown: LifecycleHandler {
    func shutdownAsync(_ application: Application) async {
        guard let container = application.storage[ContainerKey.self] else { return }
        await Self.end(container, timeout: application.containerTeardownTimeout, logger: application.logger)
    }

    /// A synchronous shutdown (`app.shutdown()`, outside async code) waits here for the container's teardowns.
    func shutdown(_ application: Application) {
        guard let container = application.storage[ContainerKey.self] else { return }
        let (timeout, logger) = (application.containerTeardownTimeout, application.logger)
        let done = DispatchSemaphore(value: 0)
        Task {
            await Self.end(container, timeout: timeout, logger: logger)
            done.signal()
        }
        done.wait()
    }

    /// Ends `container`, logging what failed to tear down.
    static func end(_ container: Container, timeout: Double, logger: Logger) async {
        do {
            try await container.end(timeout: timeout)
        } catch {
            logger.error(
                "Ending the application's container at shutdown failed",
                metadata: TeardownFailureMetadata.of(error)
            )
        }
    }
}

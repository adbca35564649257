/// A service that releases what it holds (a connection, a file, a transaction) when the container or scope
/// that made it ends, synchronously.
///
/// ```swift
/// final class Journal: Teardown {
///     func tearDown() throws { try file.close() }
/// }
/// container.register(Journal.self) { _ in try Journal(path: path) }.inObjectScope(.container)
/// ...
/// try await container.end()   // calls journal.tearDown()
/// ```
///
/// Weft tears down the instances a container keeps — `.container` singletons in the container that
/// registered them, `.scoped` instances in their scope — once, in reverse creation order, when
/// ``Container/end(timeout:)`` is called. Transient, graph-scoped and `.weak` instances are not kept by the
/// container, so they are not torn down.
public protocol Teardown: AnyObject {
    /// Releases what the instance holds; called once, when its container or scope ends.
    func tearDown() throws
}

/// A service that releases what it holds asynchronously (closing a database pool, committing a
/// transaction) when the container or scope that made it ends. Actors can adopt it.
///
/// ```swift
/// actor UnitOfWork: AsyncTeardown {
///     func tearDown() async throws { try await transaction.commit() }
/// }
/// ```
///
/// When a type adopts both ``Teardown`` and `AsyncTeardown`, only this one is called.
public protocol AsyncTeardown: AnyObject {
    /// Releases what the instance holds; called once, when its container or scope ends.
    func tearDown() async throws
}

/// The teardowns that threw when a container or scope ended; every teardown still ran.
///
/// ```swift
/// do {
///     try await scope.end()
/// } catch let error as TeardownError {
///     for failure in error.failures { logger.error("\(failure)") }
/// }
/// ```
public struct TeardownError: Error, CustomStringConvertible, @unchecked Sendable {
    /// One teardown that threw.
    public struct Failure: CustomStringConvertible, @unchecked Sendable {
        /// The registered type of the instance, as written in Swift.
        public let service: String
        /// What its `tearDown()` threw.
        public let error: any Error
    }

    /// The teardowns that threw, in the order they ran (reverse creation order).
    public let failures: [Failure]
}

/// Why a teardown counts as failed although it did not throw: it was still running when ``Container/end(timeout:)``
/// stopped waiting for it. It keeps running; what it throws later goes to ``Container/loggingFunction``.
public enum TeardownInterruption: Error, CustomStringConvertible, Sendable {
    /// It took longer than the bound, in seconds.
    case timedOut(seconds: Double)
    /// The task that was ending the container or scope was cancelled.
    case cancelled
}

/// The process-wide default container and its task-local override.
///
/// Property wrappers such as ``Injected`` resolve from ``Container/shared`` unless they are given a
/// container. An app registers its services there once at start-up; a test runs with a fresh container of
/// its own through ``Container/withShared(_:operation:)``, so that tests running in
/// parallel never see each other's registrations or singletons.
extension Container {
    /// The container that property wrappers and other code resolve from when no container is given.
    ///
    /// Outside ``withShared(_:operation:)`` this is one process-wide container, made on
    /// first use, that lives as long as the process. Inside it, it is the container given there, for the
    /// duration of the operation and in every child task (`async let`, task groups) and every `Task { }`
    /// created during it.
    ///
    /// ```swift
    /// // At start-up:
    /// Container.shared.register(Clock.self) { _ in SystemClock() }.inObjectScope(.container)
    ///
    /// final class Alarm {
    ///     @Injected var clock: Clock   // resolved from Container.shared
    /// }
    /// ```
    ///
    /// The override is a task-local value: it does not reach code that runs outside the task that set
    /// it, such as a `Task.detached`, a `DispatchQueue` block or a `Thread`. Code there sees the
    /// process-wide container. Reading this property is thread-safe.
    public static var shared: Container {
        sharedOverride ?? processShared
    }

    /// Runs `operation` with `container` as ``shared``, then restores the previous one.
    ///
    /// ```swift
    /// let container = Container()
    /// container.register(Clock.self) { _ in FakeClock() }
    /// Container.withShared(container) {
    ///     let alarm = Alarm()   // its @Injected clock is a FakeClock
    /// }
    /// ```
    ///
    /// Calls nest: the innermost container wins. The override reaches only code that runs synchronously
    /// inside `operation` on the same task (or, outside any task, the same thread); see ``shared``.
    ///
    /// - Parameters:
    ///   - container: The container ``shared`` returns during `operation`.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    public static func withShared<Result>(
        _ container: Container,
        operation: () throws -> Result
    ) rethrows -> Result {
        try $sharedOverride.withValue(container, operation: operation)
    }

    /// Runs the asynchronous `operation` with `container` as ``shared``, then restores the previous one.
    ///
    /// ```swift
    /// try await Container.withShared(testContainer) {
    ///     try await model.refresh()   // child tasks created here see testContainer too
    /// }
    /// ```
    ///
    /// The override reaches child tasks (`async let`, task groups) and `Task { }`s created during
    /// `operation`, but not `Task.detached`, `DispatchQueue` blocks or threads: they see the process-wide
    /// container.
    ///
    /// - Parameters:
    ///   - container: The container ``shared`` returns during `operation`.
    ///   - isolation: The actor `operation` runs on; the caller's, unless given.
    ///   - operation: The code to run.
    /// - Returns: What `operation` returns.
    public static func withShared<Result>(
        _ container: Container,
        isolation: isolated (any Actor)? = #isolation,
        operation: () async throws -> Result
    ) async rethrows -> Result {
        try await $sharedOverride.withValue(container, operation: operation, isolation: isolation)
    }

    /// The container set by the innermost ``withShared(_:operation:)`` of the current
    /// task, if any.
    @TaskLocal static var sharedOverride: Container?

    /// The process-wide default; a `static let`, so made once, on first use, without a race.
    private static let processShared = Container()
}

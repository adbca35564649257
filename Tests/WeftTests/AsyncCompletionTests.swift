import Foundation
import Testing
import Weft

/// A shared instance made by an async factory is visible to no other resolve, synchronous or async, until its
/// `initCompleted` callbacks have all run; one whose callbacks threw is never handed out.
// Serialized: each test blocks a thread of the cooperative pool in an initCompleted callback.
@Suite(.serialized) struct AsyncCompletionTests {
    final class Settings: @unchecked Sendable {
        private let lock = NSLock()
        private var isConfigured = false
        let serial: Int
        init(serial: Int) { self.serial = serial }

        var configured: Bool {
            get { lock.withLock { isConfigured } }
            set { lock.withLock { isConfigured = newValue } }
        }
    }

    struct Refused: Error {}

    /// An async `.container` Settings whose first `initCompleted` run signals `started` and waits for
    /// `proceed`, then throws when `failFirst`.
    static func container(
        started: DispatchSemaphore,
        proceed: DispatchSemaphore,
        failFirst: Bool = false
    ) -> (Container, Counter) {
        let container = Container()
        let made = Counter()
        let runs = Counter()
        container.register(Settings.self) { (_: AsyncResolver) async in Settings(serial: made.increment()) }
            .inObjectScope(.container)
            .initCompleted { _, settings in
                if runs.increment() == 1 {
                    started.signal()
                    proceed.wait()
                    if failFirst { throw Refused() }
                }
                settings.configured = true
            }
        return (container, made)
    }

    /// Waits for `semaphore` without blocking a thread of the cooperative pool.
    static func signalled(_ semaphore: DispatchSemaphore) async throws {
        while semaphore.wait(timeout: .now()) != .success {
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    /// What a synchronous resolve on another thread gets: the instance's `configured` flag, or the error text.
    static func readOnAThread(_ container: Container) -> String {
        let seen = Collected<String>()
        let thread = runOnThread {
            do {
                let settings = try container.require(Settings.self)
                seen.append(settings.configured ? "configured \(settings.serial)" : "HALF-BUILT \(settings.serial)")
            } catch {
                seen.append("\(error)")
            }
        }
        guard thread.wait(seconds: 20) else { return "hung" }
        return seen.values.first ?? "nothing"
    }

    @Test func synchronousResolveNeverSeesAnAsyncSingletonWhoseCallbacksAreRunning() async throws {
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, _) = Self.container(started: started, proceed: proceed)
        let resolving = Task { try await container.async.require(Settings.self) }
        try await Self.signalled(started)

        let during = Self.readOnAThread(container)
        #expect(
            during == """
                [Weft.requiresAsync] The factory of Settings is async, and a synchronous resolve asked for it while an \
                async resolve is still completing it (running its initCompleted callbacks).
                Resolve it from async code: `try await container.async.require(Settings.self)` waits for it; \
                synchronous code can use it once the async resolve has finished.
                """
        )
        proceed.signal()
        let settings = try await resolving.value
        #expect(settings.configured)
        #expect(Self.readOnAThread(container) == "configured 1")
    }

    @Test func otherTasksWaitForTheCallbacksOfAnAsyncSingleton() async throws {
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, made) = Self.container(started: started, proceed: proceed)
        let first = Task { try await container.async.require(Settings.self) }
        try await Self.signalled(started)
        let second = Task {
            let settings = try await container.async.require(Settings.self)
            return (settings, configuredWhenReceived: settings.configured)
        }
        // Give the second task time to find the instance stored and its build still in flight.
        try await Task.sleep(nanoseconds: 100_000_000)
        proceed.signal()
        let (one, two) = (try await first.value, try await second.value)
        #expect(one === two.0)
        #expect(two.configuredWhenReceived)
        #expect(made.value == 1)
    }

    @Test func anAsyncSingletonWhoseCallbacksThrewIsNeverHandedOut() async throws {
        let started = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let (container, made) = Self.container(started: started, proceed: proceed, failFirst: true)
        let failing = Task { try await container.async.require(Settings.self) }
        try await Self.signalled(started)
        let during = Self.readOnAThread(container)
        #expect(during.hasPrefix("[Weft.requiresAsync]"))
        proceed.signal()
        await #expect(throws: ResolutionError.self) { try await failing.value }

        // Nothing of the failed build was kept: synchronous code finds no instance, the next async resolve makes
        // a new, configured one, and from then on everyone shares it.
        #expect(
            Self.readOnAThread(container).hasPrefix(
                "[Weft.requiresAsync] The factory of Settings is async, and a synchronous resolve needed"))
        let fresh = try await container.async.require(Settings.self)
        #expect(fresh.serial == 2 && fresh.configured)
        #expect(Self.readOnAThread(container) == "configured 2")
        #expect(made.value == 2)
    }
}

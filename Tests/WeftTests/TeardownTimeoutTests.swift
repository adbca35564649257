import Foundation
import Testing
import Weft

/// A teardown that never returns does not hang `end()`: it is bounded by a time-out, and by the cancellation of
/// the task ending the scope; it is reported as a failure and the other teardowns still run.
@Suite struct TeardownTimeoutTests {
    /// A teardown that waits until it is released: after `end` has returned, when the test is over (a teardown
    /// left waiting for good would leak its task, which the leak checker reports).
    actor Stuck: AsyncTeardown {
        let started: Counter
        let release: AsyncWaitingTests.Gate
        init(started: Counter, release: AsyncWaitingTests.Gate) {
            self.started = started
            self.release = release
        }
        func tearDown() async throws {
            started.increment()
            await release.wait()
        }
    }

    final class Quick: Teardown, @unchecked Sendable {
        let teardowns: Counter
        init(teardowns: Counter) { self.teardowns = teardowns }
        func tearDown() throws { teardowns.increment() }
    }

    static func scope(
        started: Counter,
        quick: Counter,
        release: AsyncWaitingTests.Gate
    ) throws -> Container {
        let container = Container()
        container.register(Quick.self) { _ in Quick(teardowns: quick) }.inObjectScope(.scoped)
        container.register(Stuck.self) { _ in Stuck(started: started, release: release) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(Quick.self)
        _ = try scope.require(Stuck.self)
        return scope
    }

    @Test(hangLimit)
    func aTeardownPastItsTimeoutIsReportedAndEndReturns() async throws {
        let (started, quick, release) = (Counter(), Counter(), AsyncWaitingTests.Gate())
        defer { release.openGate() }
        let scope = try Self.scope(started: started, quick: quick, release: release)
        let error = try await #require(throws: TeardownError.self) { try await scope.end(timeout: 0.2) }
        #expect(
            error.description
                == "[Weft.teardownFailed] 1 teardown threw: Stuck: did not finish within 0.2 seconds (still running, "
                + "not awaited)"
        )
        #expect(started.value == 1)
        // Torn down newest first: the quick one after the stuck one.
        #expect(quick.value == 1)
    }

    @Test(hangLimit)
    func cancellingTheTaskThatEndsAScopeMakesEndReturn() async throws {
        let (started, quick, release) = (Counter(), Counter(), AsyncWaitingTests.Gate())
        defer { release.openGate() }
        let scope = try Self.scope(started: started, quick: quick, release: release)
        let ending = Task { try await scope.end(timeout: 3_600) }
        while started.value == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        ending.cancel()
        let result = await ending.result
        let error = try #require(throws: TeardownError.self) { try result.get() }
        #expect(error.failures.map(\.service).first == "Stuck")
        #expect(
            error.failures.first?.description
                == "Stuck: not awaited: the task ending the scope was cancelled (still running)"
        )
    }

    @Test func aSynchronousTeardownRunsToItsEndWhenTheEndingTaskIsCancelled() async throws {
        let container = Container()
        let quick = Counter()
        container.register(Quick.self) { _ in Quick(teardowns: quick) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(Quick.self)
        let ending = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            try await scope.end(timeout: 3_600)
        }
        // Synchronous code cannot be left behind: it ran on the ending task, so nothing is reported.
        try await ending.value
        #expect(quick.value == 1)
    }

    @Test func teardownsThatFinishInTimeAreNotReported() async throws {
        let container = Container()
        let quick = Counter()
        container.register(Quick.self) { _ in Quick(teardowns: quick) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(Quick.self)
        try await scope.end(timeout: 5)
        #expect(quick.value == 1)
    }
}

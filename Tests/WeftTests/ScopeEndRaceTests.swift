import Foundation
import Testing
import Weft

/// `end()` while a `.scoped` instance is still being made: the instance is never handed out after the end,
/// and it is torn down exactly once.
@Suite struct ScopeEndRaceTests {
    final class Session: Teardown, @unchecked Sendable {
        let teardowns: Counter
        init(teardowns: Counter) { self.teardowns = teardowns }
        func tearDown() throws { teardowns.increment() }
    }

    actor Ledger: AsyncTeardown {
        let teardowns: Counter
        init(teardowns: Counter) { self.teardowns = teardowns }
        func tearDown() async throws { teardowns.increment() }
    }

    final class Plain: Sendable {}

    static let scopeEndedText = """
        [Weft.scopeEnded] Session is .scoped, and the scope it was resolved from has ended (its instances are torn \
        down). Make a new scope for new work.
        """

    @Test func scopeEndedWhileASynchronousFactoryRunsTearsTheInstanceDownAndFailsTheResolve() async throws {
        let container = Container()
        let teardowns = Counter()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        container.register(Session.self) { _ in
            entered.signal()
            proceed.wait()
            return Session(teardowns: teardowns)
        }
        .inObjectScope(.scoped)
        let scope = container.makeScope()

        let outcomes = Collected<String>()
        let resolver = runOnThread {
            do {
                _ = try scope.require(Session.self)
                outcomes.append("handed out")
            } catch {
                outcomes.append("\(error)")
            }
        }
        while entered.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 1_000_000) }
        try await scope.endPatiently()
        proceed.signal()
        #expect(resolver.wait(seconds: 20))

        #expect(outcomes.values == [Self.scopeEndedText])
        #expect(teardowns.value == 1)
        // Nothing is left for a second end to tear down.
        try await scope.endPatiently()
        #expect(teardowns.value == 1)
    }

    @Test func scopeEndedWhileAPlainServiceIsMadeFailsTheResolve() async throws {
        let container = Container()
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        container.register(Plain.self) { _ in
            entered.signal()
            proceed.wait()
            return Plain()
        }
        .inObjectScope(.scoped)
        let scope = container.makeScope()
        let handedOut = Counter()
        let resolver = runOnThread { if (try? scope.require(Plain.self)) != nil { handedOut.increment() } }
        while entered.wait(timeout: .now()) != .success { try await Task.sleep(nanoseconds: 1_000_000) }
        try await scope.endPatiently()
        proceed.signal()
        #expect(resolver.wait(seconds: 20))
        #expect(handedOut.value == 0)
    }

    @Test func scopeEndedWhileAnAsyncFactoryRunsTearsTheInstanceDownAndFailsTheResolve() async throws {
        let container = Container()
        let teardowns = Counter()
        let entered = AsyncWaitingTests.Gate()
        let proceed = AsyncWaitingTests.Gate()
        container.register(Ledger.self) { (_: AsyncResolver) async in
            entered.openGate()
            await proceed.wait()
            return Ledger(teardowns: teardowns)
        }
        .inObjectScope(.scoped)
        let scope = container.makeScope()

        let resolving = Task { try await scope.async.require(Ledger.self) }
        await entered.wait()
        try await scope.endPatiently()
        proceed.openGate()
        let error = try await #require(throws: ResolutionError.self) { try await resolving.value }
        #expect(error.reason == .scopeEnded)
        #expect(teardowns.value == 1)
    }

    /// A `.scoped` instance whose deinit resolves from the scope that is releasing it.
    final class Receipt: @unchecked Sendable {
        let scope: Container
        let printed: Collected<String>
        init(scope: Container, printed: Collected<String>) {
            self.scope = scope
            self.printed = printed
        }
        deinit {
            printed.append(scope.resolve(Plain.self) == nil ? "no plain" : "plain")
            let error = #expect(throws: ResolutionError.self) { try scope.require(Receipt.self) }
            printed.append("\(error?.reason == .scopeEnded)")
        }
    }

    @Test func aDeinitRunWhenItsScopeEndsCanResolveFromTheScope() async throws {
        let container = Container()
        let printed = Collected<String>()
        container.register(Plain.self) { _ in Plain() }
        container.register(Receipt.self) { r in Receipt(scope: r as! Container, printed: printed) }
            .inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(Receipt.self)
        #expect(printed.values.isEmpty)
        try await scope.endPatiently()
        #expect(printed.values == ["plain", "true"])
    }
}

import Foundation
import Testing
import Weft

/// A per-request service that records its teardown in a shared log.
final class RequestWork: Teardown, @unchecked Sendable {
    let id: Int
    let log: Collected<String>
    init(id: Int, log: Collected<String>) {
        self.id = id
        self.log = log
    }
    func tearDown() throws { log.append("work \(id)") }
}

/// A per-request service torn down asynchronously.
actor RequestAudit: AsyncTeardown {
    let log: Collected<String>
    init(log: Collected<String>) { self.log = log }
    func tearDown() async throws {
        await Task.yield()
        log.append("audit")
    }
}

/// A teardown that fails.
final class FlakyConnection: Teardown, Sendable {
    let code: Int
    init(code: Int) { self.code = code }
    func tearDown() throws { throw Failure(code: code) }
}

/// A singleton that keeps what it was made with.
final class RequestCache: Sendable {
    let work: RequestWork
    init(work: RequestWork) { self.work = work }
}

@Suite struct ScopeTests {
    private func container(log: Collected<String>, made: Counter) -> Container {
        let container = Container()
        container.register(RequestWork.self) { _ in
            RequestWork(id: made.increment(), log: log)
        }.inObjectScope(.scoped)
        container.register(RequestAudit.self) { _ in RequestAudit(log: log) }.inObjectScope(.scoped)
        return container
    }

    @Test func aScopedServiceHasOneInstancePerScope() throws {
        let made = Counter()
        let container = container(log: Collected(), made: made)
        let first = container.makeScope()
        let second = container.makeScope()
        let a = try first.require(RequestWork.self)
        #expect(try first.require(RequestWork.self) === a)
        let b = try second.require(RequestWork.self)
        #expect(a !== b)
        #expect(made.value == 2)
    }

    @Test func aScopedServiceResolvedOutsideAnyScopeFails() throws {
        let container = container(log: Collected(), made: Counter())
        let error = try #require(throws: ResolutionError.self) { try container.require(RequestWork.self) }
        #expect(error.reason == .outsideScope)
        #expect(error.description.contains("makeScope()"))
    }

    @Test func endingAScopeTearsDownItsInstancesNewestFirst() async throws {
        let log = Collected<String>()
        let container = container(log: log, made: Counter())
        let scope = container.makeScope()
        _ = try scope.require(RequestWork.self)
        _ = try await scope.async.require(RequestAudit.self)
        #expect(log.values.isEmpty)
        try await scope.endPatiently()
        #expect(log.values == ["audit", "work 1"])
    }

    /// A connection whose subclass for one kind of request adopts ``Teardown``.
    class Connection: @unchecked Sendable {}
    final class PooledConnection: Connection, Teardown, @unchecked Sendable {
        let log: Collected<String>
        init(log: Collected<String>) { self.log = log }
        func tearDown() throws { log.append("returned to pool") }
    }

    @Test func eachScopedInstanceIsTornDownByItsOwnTypeWhenTheFactoryReturnsSeveral() async throws {
        let log = Collected<String>()
        let made = Counter()
        let container = Container()
        container.register(Connection.self) { _ in
            made.increment() % 2 == 0 ? PooledConnection(log: log) : Connection()
        }.inObjectScope(.scoped)
        for round in 1...6 {
            let scope = container.makeScope()
            _ = try scope.require(Connection.self)
            try await scope.endPatiently()
            #expect(log.values.count == round / 2, "after scope \(round)")
        }
    }

    @Test func endingAScopeReleasesItsInstances() async throws {
        let container = container(log: Collected(), made: Counter())
        let scope = container.makeScope()
        weak let work = try scope.require(RequestWork.self)
        #expect(work != nil)
        try await scope.endPatiently()
        #expect(work == nil)
    }

    @Test func aScopeThatEndedNoLongerMakesScopedServices() async throws {
        let container = container(log: Collected(), made: Counter())
        let scope = container.makeScope()
        _ = try scope.require(RequestWork.self)
        try await scope.endPatiently()
        let error = try #require(throws: ResolutionError.self) { try scope.require(RequestWork.self) }
        #expect(error.reason == .scopeEnded)
        let asyncError = try await #require(throws: ResolutionError.self) {
            try await scope.async.require(RequestWork.self)
        }
        #expect(asyncError.reason == .scopeEnded)
    }

    @Test func teardownFailuresAreReportedAfterEveryTeardownRan() async throws {
        let log = Collected<String>()
        let container = Container()
        container.register(FlakyConnection.self, name: "a") { _ in FlakyConnection(code: 1) }.inObjectScope(.scoped)
        container.register(RequestWork.self) { _ in RequestWork(id: 9, log: log) }.inObjectScope(.scoped)
        container.register(FlakyConnection.self, name: "b") { _ in FlakyConnection(code: 2) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        _ = try scope.require(FlakyConnection.self, name: "a")
        _ = try scope.require(RequestWork.self)
        _ = try scope.require(FlakyConnection.self, name: "b")
        let error = try await #require(throws: TeardownError.self) { try await scope.endPatiently() }
        #expect(error.failures.map { $0.error as? Failure } == [Failure(code: 2), Failure(code: 1)])
        #expect(error.failures.map(\.service) == ["FlakyConnection", "FlakyConnection"])
        #expect(log.values == ["work 9"])
        #expect(error.description.hasPrefix("[Weft.teardownFailed] 2 teardowns threw"))
    }

    @Test func endingTheContainerTearsDownItsSingletonsNewestFirst() async throws {
        let log = Collected<String>()
        let container = Container()
        container.register(RequestWork.self, name: "first") { _ in RequestWork(id: 1, log: log) }
            .inObjectScope(.container)
        container.register(RequestWork.self, name: "second") { r in
            _ = try r.require(RequestWork.self, name: "first")
            return RequestWork(id: 2, log: log)
        }.inObjectScope(.container)
        container.register(RequestWork.self, name: "transient") { _ in RequestWork(id: 3, log: log) }
            .inObjectScope(.transient)
        _ = try container.require(RequestWork.self, name: "second")
        _ = try container.require(RequestWork.self, name: "transient")
        try await container.endPatiently()
        #expect(log.values == ["work 2", "work 1"])
        // Made anew afterwards, and torn down at the next end.
        let again = try container.require(RequestWork.self, name: "first")
        #expect(again.id == 1)
        try await container.endPatiently()
        #expect(log.values == ["work 2", "work 1", "work 1"])
    }

    @Test func endingTheContainerLeavesACustomScopesInstancesToThatScope() async throws {
        let log = Collected<String>()
        let container = Container()
        let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")
        container.register(RequestWork.self) { _ in RequestWork(id: 1, log: log) }.inObjectScope(session)
        let work = try container.require(RequestWork.self)
        try await container.endPatiently()
        #expect(log.values.isEmpty)
        #expect(try container.require(RequestWork.self) === work)
        container.resetObjectScope(session)
        #expect(try container.require(RequestWork.self) !== work)
    }

    @Test func endingAScopeReleasesSingletonsRegisteredInTheScopeItself() async throws {
        let log = Collected<String>()
        let container = Container()
        let scope = container.makeScope()
        scope.register(RequestWork.self) { _ in RequestWork(id: 5, log: log) }.inObjectScope(.container)
        let first = try scope.require(RequestWork.self)
        try await scope.endPatiently()
        #expect(log.values == ["work 5"])
        #expect(try scope.require(RequestWork.self) !== first)
    }

    @Test func withScopeEndsTheScopeAlsoWhenTheBodyThrows() async throws {
        let log = Collected<String>()
        let container = container(log: log, made: Counter())
        await #expect(throws: Failure.self) {
            try await container.withScope { scope in
                _ = try scope.require(RequestWork.self)
                throw Failure(code: 3)
            }
        }
        #expect(log.values == ["work 1"])
        let id = try await container.withScope { scope in try scope.require(RequestWork.self).id }
        #expect(id == 2)
        #expect(log.values == ["work 1", "work 2"])
    }

    @Test func aSingletonThatWouldKeepAScopedServiceFailsAtResolution() async throws {
        let container = container(log: Collected(), made: Counter())
        container.register(RequestCache.self) { r in RequestCache(work: try r.require(RequestWork.self)) }
            .inObjectScope(.container)
        let scope = container.makeScope()
        let error = try #require(throws: ResolutionError.self) { try scope.require(RequestCache.self) }
        #expect(error.reason == .captiveDependency)
        #expect(error.path == ["RequestCache", "RequestWork"])

        container.register(RequestCache.self, name: "async") { r in
            await Task.yield()
            return RequestCache(work: try await r.require(RequestWork.self))
        }.inObjectScope(.container)
        let asyncError = try await #require(throws: ResolutionError.self) {
            try await scope.async.require(RequestCache.self, name: "async")
        }
        #expect(asyncError.reason == .captiveDependency)
    }

    @Test func aSingletonReachingAScopedServiceThroughATransientOneFailsToo() async throws {
        let container = container(log: Collected(), made: Counter())
        container.register(String.self) { r in "work \(try r.require(RequestWork.self).id)" }
        container.register(Int.self) { r in
            await Task.yield()
            return try await r.require(String.self).count
        }.inObjectScope(.container)
        let scope = container.makeScope()
        let error = try await #require(throws: ResolutionError.self) { try await scope.async.require(Int.self) }
        #expect(error.reason == .captiveDependency)
        #expect(error.path == ["Int", "String", "RequestWork"])
    }

    @Test func verifyReportsASingletonThatCapturesAScopedService() throws {
        let container = container(log: Collected(), made: Counter())
        container.register(RequestCache.self) { r in RequestCache(work: try r.require(RequestWork.self)) }
            .inObjectScope(.container)
        let report = container.verificationReport()
        let captive = report.problems.filter { $0.kind == .captiveDependency }
        #expect(captive.map(\.path) == [["RequestCache", "RequestWork"]])
        #expect(captive.first?.message.contains(".scoped") == true)
    }

    @Test func verifyAcceptsScopedServicesUsedByScopedAndTransientOnes() throws {
        let container = container(log: Collected(), made: Counter())
        container.register(String.self) { r in "work \(try r.require(RequestWork.self).id)" }
        container.register(RequestCache.self) { r in RequestCache(work: try r.require(RequestWork.self)) }
            .inObjectScope(.scoped)
        #expect(container.verificationReport().problems.isEmpty)
    }

    @Test func concurrentTasksInOneScopeShareItsInstance() async throws {
        let made = Counter()
        let container = Container()
        container.register(RequestAudit.self) { _ in
            made.increment()
            try await Task.sleep(nanoseconds: 20_000_000)
            return RequestAudit(log: Collected())
        }.inObjectScope(.scoped)
        let scopes = [container.makeScope(), container.makeScope()]
        let ids = try await withThrowingTaskGroup(of: (Int, ObjectIdentifier).self) { group in
            for index in 0..<20 {
                group.addTask {
                    (index % 2, ObjectIdentifier(try await scopes[index % 2].async.require(RequestAudit.self)))
                }
            }
            var seen: [Int: Set<ObjectIdentifier>] = [:]
            for try await (scope, id) in group { seen[scope, default: []].insert(id) }
            return seen
        }
        #expect(made.value == 2)
        #expect(ids[0]?.count == 1)
        #expect(ids[1]?.count == 1)
        #expect(ids[0] != ids[1])
    }

    @Test func threadsResolvingOneScopesServiceAtOnceShareOneInstance() {
        let made = Counter()
        let container = Container()
        container.register(RequestWork.self) { _ in
            Thread.sleep(forTimeInterval: 0.02)
            return RequestWork(id: made.increment(), log: Collected())
        }.inObjectScope(.scoped)
        let scope = container.makeScope()
        let ids = Collected<Int>()
        runOnThreads(4) { _ in
            if let work = scope.resolve(RequestWork.self) { ids.append(work.id) }
        }
        #expect(made.value == 1)
        #expect(ids.values == [1, 1, 1, 1])
    }

    /// An actor whose code runs on a thread of its own: it ends scopes there.
    @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    actor ScopeEnder {
        let executor = ThreadExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        /// Whether the calling code runs on this actor, then ends `scope` from it.
        func end(_ scope: Container) async throws -> Bool {
            let here = executor.isCurrent
            try await scope.endPatiently()
            return here
        }
    }

    /// A scope with something to tear down ends off the caller's actor, as it always has: a synchronous teardown
    /// does not run on the actor that ends the scope.
    @Test @available(macOS 14.0, iOS 17.0, watchOS 10.0, tvOS 17.0, visionOS 1.0, *)
    func aTeardownRunsOffTheActorThatEndsItsScope() async throws {
        final class Probe: Teardown, @unchecked Sendable {
            let ender: ScopeEnder
            var ranOnTheEndersActor: Bool?
            init(ender: ScopeEnder) { self.ender = ender }
            func tearDown() { ranOnTheEndersActor = ender.executor.isCurrent }
        }
        let ender = ScopeEnder()
        let container = Container()
        container.register(Probe.self) { _ in Probe(ender: ender) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        let probe = try scope.require(Probe.self)
        #expect(try await ender.end(scope))
        #expect(probe.ranOnTheEndersActor == false)
    }

    @Test func aScopedServiceBelongsToTheInnermostScope() throws {
        let made = Counter()
        let container = container(log: Collected(), made: made)
        let outer = container.makeScope()
        let inner = outer.makeScope()
        #expect(try outer.require(RequestWork.self) !== inner.require(RequestWork.self))
        #expect(made.value == 2)
    }

    @Test func aChildContainerOfAScopeSharesTheScopesInstanceButNotItsOwnRegistrations() throws {
        let made = Counter()
        let container = container(log: Collected(), made: made)
        let scope = container.makeScope()
        let child = Container(parent: scope)
        // Registered above the scope: the child resolves through the scope, whose instance it shares.
        #expect(try child.require(RequestWork.self) === scope.require(RequestWork.self))
        // Registered in the child, below every scope: outside any scope, as Swinject-style children have no scope.
        child.register(RequestWork.self, name: "own") { _ in
            RequestWork(id: made.increment(), log: Collected())
        }.inObjectScope(.scoped)
        #expect {
            try child.require(RequestWork.self, name: "own")
        } throws: { ($0 as? ResolutionError)?.reason == .outsideScope }
    }

    @Test func singletonsAreSharedByAllScopes() throws {
        let container = Container()
        container.register((any Storage).self) { _ in DiskStorage() }.inObjectScope(.container)
        let first = try container.makeScope().require((any Storage).self)
        #expect(try container.makeScope().require((any Storage).self) === first)
        #expect(try container.require((any Storage).self) === first)
    }
}

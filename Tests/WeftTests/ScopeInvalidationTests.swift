import Testing
import Weft

/// A scope's `.scoped` instance is never handed out once what it was made with is gone: a dependency's
/// registration replaced, a singleton it used reset, its own scope reset from the container. It is made again on
/// its next use, in every live scope, and the scope still tears the old one down when it ends.
@Suite struct ScopeInvalidationTests {
    final class Connection {
        let label: String
        init(label: String) { self.label = label }
    }

    final class Work {
        let connection: Connection
        init(connection: Connection) { self.connection = connection }
    }

    final class Report {
        let work: Work
        init(work: Work) { self.work = work }
    }

    final class TornDownWork: Teardown, @unchecked Sendable {
        let endings: Counter
        init(endings: Counter) { self.endings = endings }
        func tearDown() throws { _ = endings.increment() }
    }

    private func container(connection scope: ObjectScope) -> Container {
        let container = Container()
        container.register(Connection.self) { _ in Connection(label: "first") }.inObjectScope(scope)
        container.register(Work.self) { r in Work(connection: try r.require(Connection.self)) }
            .inObjectScope(.scoped)
        return container
    }

    @Test func aScopedInstanceMadeWithAReplacedRegistrationIsMadeAgainInEveryLiveScope() throws {
        let container = container(connection: .transient)
        let scopes = [container.makeScope(), container.makeScope()]
        let before = try scopes.map { try $0.require(Work.self) }
        container.register(Connection.self) { _ in Connection(label: "second") }
        for (scope, old) in zip(scopes, before) {
            let now = try scope.require(Work.self)
            #expect(now !== old)
            #expect(now.connection.label == "second")
            #expect(try scope.require(Work.self) === now)
        }
    }

    @Test func aScopedInstanceMadeWithAResetSingletonIsMadeAgain() throws {
        let container = container(connection: .container)
        let scope = container.makeScope()
        let before = try scope.require(Work.self)
        #expect(try scope.require(Work.self) === before)
        container.resetObjectScope(.container)
        let after = try scope.require(Work.self)
        #expect(after !== before)
        #expect(after.connection !== before.connection)
    }

    @Test func whatAScopeMadeWithAStaleScopedInstanceIsMadeAgainToo() throws {
        let container = container(connection: .transient)
        container.register(Report.self) { r in Report(work: try r.require(Work.self)) }.inObjectScope(.scoped)
        let scope = container.makeScope()
        let before = try scope.require(Report.self)
        container.register(Connection.self) { _ in Connection(label: "second") }
        let after = try scope.require(Report.self)
        #expect(after !== before)
        #expect(after.work.connection.label == "second")
        #expect(try scope.require(Work.self) === after.work)
    }

    @Test func resettingTheScopedScopeMakesEachLiveScopeMakeItsInstanceAgain() throws {
        let container = container(connection: .transient)
        let scope = container.makeScope()
        let before = try scope.require(Work.self)
        container.resetObjectScope(.scoped)
        #expect(try scope.require(Work.self) !== before)
    }

    @Test func aScopeStillTearsDownTheInstanceItStoppedHandingOut() async throws {
        let endings = Counter()
        let container = container(connection: .transient)
        container.register(TornDownWork.self) { r in
            _ = try r.require(Connection.self)
            return TornDownWork(endings: endings)
        }
        .inObjectScope(.scoped)
        let scope = container.makeScope()
        let before = try scope.require(TornDownWork.self)
        container.register(Connection.self) { _ in Connection(label: "second") }
        #expect(try scope.require(TornDownWork.self) !== before)
        try await scope.end()
        #expect(endings.value == 2)
    }
}

import Testing
import Weft

/// The `captiveDependency` error a resolve throws names the service that would keep the scope's instance (the
/// shared one, not a `.graph` or `.transient` service between them) and the scoped service as it was asked for.
@Suite struct CaptiveDependencyErrorTests {
    final class Session: Sendable {}

    final class Cache: Sendable {
        init(session: Session) {}
    }

    final class Feed: Sendable {
        init(cache: Cache) {}
    }

    /// `Feed` (`.container`) -> `Cache` (`.graph`) -> `Session` (`.scoped`, named when `name` is given).
    private func feedThroughCache(sessionName name: String? = nil, asyncSession: Bool = false) -> Container {
        let container = Container()
        if asyncSession {
            container.register(Session.self, name: name) { (_: AsyncResolver) async in Session() }
                .inObjectScope(.scoped)
        } else {
            container.register(Session.self, name: name) { _ in Session() }.inObjectScope(.scoped)
        }
        container.register(Cache.self) { r in Cache(session: try r.require(Session.self, name: name)) }
        container.register(Feed.self) { r in Feed(cache: try r.require(Cache.self)) }.inObjectScope(.container)
        return container
    }

    private static let throughCache = """
        [Weft.captiveDependency] Feed is kept beyond one scope (it is shared, e.g. .container), and it was being \
        made with Session (through Cache), which is .scoped: it would keep the instance of one scope after that \
        scope ends.
        Make Feed .scoped or .transient too, or pass it what it needs per call instead of at creation.
        Resolution path: Feed -> Cache -> Session
        """

    @Test func theHolderIsTheSharedServiceNotTheGraphServiceBetween() throws {
        let scope = feedThroughCache().makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Feed.self) }

        #expect(error.reason == .captiveDependency)
        #expect(error.description == Self.throughCache)
    }

    @Test func theHolderIsTheSharedServiceInAnAsyncResolve() async throws {
        let scope = feedThroughCache().makeScope()

        let error = try await #require(throws: ResolutionError.self) { try await scope.async.require(Feed.self) }

        #expect(error.description == Self.throughCache)
    }

    @Test func theHolderIsTheSharedServiceWhenTheScopedFactoryIsAsync() async throws {
        let scope = feedThroughCache(asyncSession: true).makeScope()

        let error = try await #require(throws: ResolutionError.self) { try await scope.async.require(Feed.self) }

        #expect(error.description == Self.throughCache)
    }

    @Test func aNamedScopedServiceKeepsItsNameInTheMessageAndThePath() throws {
        let scope = feedThroughCache(sessionName: "login").makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Feed.self) }

        #expect(error.name == "login")
        #expect(error.path == ["Feed", "Cache", "Session[\"login\"]"])
        #expect(
            error.description == """
                [Weft.captiveDependency] Feed is kept beyond one scope (it is shared, e.g. .container), and it was \
                being made with Session named "login" (through Cache), which is .scoped: it would keep the \
                instance of one scope after that scope ends.
                Make Feed .scoped or .transient too, or pass it what it needs per call instead of at creation.
                Resolution path: Feed -> Cache -> Session["login"]
                """
        )
    }

    @Test func aNamedScopedServiceKeepsItsNameInAnAsyncResolve() async throws {
        let scope = feedThroughCache(sessionName: "login", asyncSession: true).makeScope()

        let error = try await #require(throws: ResolutionError.self) { try await scope.async.require(Feed.self) }

        #expect(error.name == "login")
        #expect(error.path == ["Feed", "Cache", "Session[\"login\"]"])
    }
}

import Testing
import VaporTesting
import Weft
import WeftVapor

/// `app.container`: the application's container, reachable from every request and ended at shutdown.
@Suite struct ApplicationContainerTests {
    let ledger = Ledger()

    @Test func applicationContainerIsReachableFromRequestsAndItsScopes() async throws {
        let container = Container()
        container.register(ConnectionPool.self) { _ in ConnectionPool(ledger: ledger) }.inObjectScope(.container)
        try await withApp { app in
            app.container = container
            app.middleware.use(WeftScopeMiddleware())
            app.get("pool") { req async throws -> String in
                let fromScope = try await req.require(ConnectionPool.self)
                let fromApplication = try await req.application.container.async.require(ConnectionPool.self)
                return fromScope === fromApplication ? "\(fromScope.id)" : "two pools"
            }
            #expect(app.container === container)
            let tester = try app.testing(method: .running(hostname: "127.0.0.1", port: 0))
            try await tester.test(.GET, "pool") { response in #expect(response.body.string == "1") }
        }
    }

    @Test func applicationEndsItsContainerAtShutdown() async throws {
        try await withApp { app in
            let container = Container()
            container.register(ConnectionPool.self) { _ in ConnectionPool(ledger: ledger) }.inObjectScope(.container)
            app.container = container
            _ = try container.require(ConnectionPool.self)
            #expect(ledger.tornDownIDs.isEmpty)
        }
        #expect(ledger.tornDownIDs == [1])
    }

    @Test func containerReadBeforeItWasSetIsKeptAndEnded() async throws {
        try await withApp { app in
            let first = app.container
            #expect(app.container === first)
            first.register(ConnectionPool.self) { _ in ConnectionPool(ledger: ledger) }.inObjectScope(.container)
            _ = try first.require(ConnectionPool.self)
        }
        #expect(ledger.tornDownIDs == [1])
    }

    @Test func replacingTheContainerEndsOnlyTheOneHeldAtShutdown() async throws {
        let replaced = Container()
        replaced.register(ConnectionPool.self) { _ in ConnectionPool(ledger: ledger) }.inObjectScope(.container)
        try await withApp { app in
            app.container = replaced
            _ = try replaced.require(ConnectionPool.self)
            let held = Container()
            held.register(ConnectionPool.self) { _ in ConnectionPool(ledger: ledger) }.inObjectScope(.container)
            app.container = held
            _ = try held.require(ConnectionPool.self)
        }
        #expect(ledger.tornDownIDs == [2])
    }
}

import Foundation
import Testing

@testable import Weft

/// The resolution path across the async/sync boundary: the synchronous factories an async resolve runs see the
/// whole path, the async factories that asked for them included, in the cycles they find and the errors they make,
/// as a synchronous resolve of the same graph would.
@Suite struct AsyncSynchronousPathTests {
    @Test func aSynchronousFactoryThatClosesACycleThroughAnAsyncFactorySeesTheCycleWithTheWholePath() async throws {
        let container = Container()
        let seen = Collected<ResolutionError>()
        container.register(Ping.self) { r in
            await Task.yield()
            return Ping(pong: try await r.require(Pong.self))
        }
        container.register(Pong.self) { r in
            // The factory handles the failure itself: what it is told is all it can go by.
            do {
                return Pong(ping: try r.require(Ping.self))
            } catch let error as ResolutionError {
                seen.append(error)
                return Pong(ping: nil)
            }
        }
        _ = try await container.async.require(Ping.self)
        let error = try #require(seen.values.first)
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Ping", "Pong", "Ping"])
    }

    @Test func anOptionalResolveThatClosesACycleThroughAnAsyncFactoryLogsTheCycle() async throws {
        let log = LogSpy()
        let container = Container(debugHelper: log)
        container.register(Ping.self) { r in
            await Task.yield()
            return Ping(pong: try await r.require(Pong.self))
        }
        container.register(Pong.self) { r in Pong(ping: r.resolve(Ping.self)) }
        let ping = try await container.async.require(Ping.self)
        #expect(ping.pong.ping == nil)
        let logged = log.messages.values.joined(separator: "\n")
        #expect(logged.contains("Ping -> Pong -> Ping"), "\(logged)")
        #expect(!logged.contains("is async, and a synchronous resolve"), "\(logged)")
    }

    @Test func aFailureInAnAsyncFactorysCallbackNamesThePathAsTheSynchronousEngineDoes() async throws {
        func register(_ container: Container, asynchronously: Bool) {
            if asynchronously {
                container.register((any Storage).self) { _ in
                    await Task.yield()
                    return DiskStorage()
                }.initCompleted { r, _ in _ = try r.require((any Catalog).self) }
            } else {
                container.register((any Storage).self) { _ in DiskStorage() }
                    .initCompleted { r, _ in _ = try r.require((any Catalog).self) }
            }
        }
        let synchronous = Container()
        register(synchronous, asynchronously: false)
        let expected = try #require(throws: ResolutionError.self) {
            try synchronous.require((any Storage).self)
        }
        let asynchronous = Container()
        register(asynchronous, asynchronously: true)
        let error = try await #require(throws: ResolutionError.self) {
            try await asynchronous.async.require((any Storage).self)
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == expected.path)
        #expect(error.path == ["Storage", "Catalog"])
    }

    @Test func aCycleThroughAnAsyncFactorysCallbackIsNotTakenForACycle() async throws {
        // The callback of the async `Ping` asks for `Ping` again through a synchronous factory: the factory of the
        // `Ping` on the path has returned, so this is no cycle; a transient `Ping` needs the async engine.
        let container = Container()
        container.register(Ping.self) { _ in
            await Task.yield()
            return Ping(pong: Pong(ping: nil))
        }
        .inObjectScope(.transient)
        .initCompleted { r, _ in _ = try r.require(Pong.self) }
        container.register(Pong.self) { r in Pong(ping: try r.require(Ping.self)) }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }
        #expect(error.reason == .requiresAsync)
    }
}

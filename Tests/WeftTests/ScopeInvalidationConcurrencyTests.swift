import Foundation
import Testing
import Weft

/// Threads of one scope that ask for its `.scoped` instance while what it was made with is reset: they share one
/// instance per scope, the stale one is dropped and made again once, and no thread is handed an instance made
/// with a singleton that was discarded before its resolve began.
@Suite struct ScopeInvalidationConcurrencyTests {
    final class Connection: Sendable {}

    final class Work: Sendable {
        let connection: Connection
        init(connection: Connection) { self.connection = connection }
    }

    private func container(counting made: Counter) -> Container {
        let container = Container()
        container.register(Connection.self) { _ in Connection() }.inObjectScope(.container)
        container.register(Work.self) { r in
            made.increment()
            // Slow enough that the other threads of the round wait for this build.
            usleep(200)
            return Work(connection: try r.require(Connection.self))
        }
        .inObjectScope(.scoped)
        return container
    }

    @Test func threadsOfOneScopeShareOneRebuiltInstanceAfterEachReset() throws {
        let made = Counter()
        let container = container(counting: made)
        let scope = container.makeScope()
        let rounds = 200
        for round in 0..<rounds {
            let seen = Collected<Work>()
            runOnThreads(4) { _ in
                if let work = try? scope.require(Work.self) { seen.append(work) }
            }
            let works = seen.values
            try #require(works.count == 4)
            #expect(works.allSatisfy { $0 === works[0] }, "round \(round): one instance per scope")
            #expect(works[0].connection === (try container.require(Connection.self)), "round \(round)")
            #expect(made.value == round + 1, "round \(round): made once per reset")
            container.resetObjectScope(.container)
        }
    }

    @Test func aResetDuringResolvesNeverLeavesTheScopeWithAStaleInstance() throws {
        let made = Counter()
        let container = container(counting: made)
        let scope = container.makeScope()
        let rounds = 100
        for round in 0..<rounds {
            runOnThreads(4) { index in
                for _ in 0..<20 {
                    if index == 0 {
                        container.resetObjectScope(.container)
                    } else {
                        _ = try? scope.require(Work.self)
                    }
                }
            }
            // Whatever the interleaving, the next resolve after the resets is made with the current singleton.
            let work = try scope.require(Work.self)
            #expect(work.connection === (try container.require(Connection.self)), "round \(round)")
            #expect(try scope.require(Work.self) === work, "round \(round)")
        }
    }
}

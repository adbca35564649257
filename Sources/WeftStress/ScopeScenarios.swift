import Foundation
import Weft

/// Scopes made, used from several threads and ended while resolves are in flight: every scoped instance is
/// torn down exactly once, and none is handed out by a resolve that finished after its scope ended.
enum ScopeScenarios {
    /// Records its teardowns; a second one is a violation.
    final class Session: Teardown, @unchecked Sendable {
        private let lock = NSLock()
        private var teardowns = 0
        let tally: Tally
        init(tally: Tally) {
            self.tally = tally
            tally.add("made")
        }
        var tornDown: Int { lock.withLock { teardowns } }
        func tearDown() throws {
            let count = lock.withLock {
                teardowns += 1
                return teardowns
            }
            tally.add(count == 1 ? "torn down" : "torn down again")
        }
    }

    actor Ledger: AsyncTeardown {
        let tally: Tally
        init(tally: Tally) {
            self.tally = tally
            tally.add("ledgers made")
        }
        func tearDown() async throws { tally.add("ledgers torn down") }
    }

    static let all: [Scenario] = [endRacingResolves]

    static let endRacingResolves = Scenario(
        name: "scope-end-races",
        summary: "threads and tasks resolve .scoped services (sync and async factories) while their scope ends; "
            + "each instance is torn down exactly once and none is handed out after the end"
    ) { context in
        while context.hasTime {
            let tally = Tally()
            let container = Container()
            let delay = UInt32(context.random.below(200))
            container.register(Session.self) { _ in
                if delay > 0 { usleep(delay) }
                return Session(tally: tally)
            }
            .inObjectScope(.scoped)
            container.register(Ledger.self) { (_: AsyncResolver) async in
                if delay > 0 { try? await Task.sleep(nanoseconds: UInt64(delay) * 1_000) }
                return Ledger(tally: tally)
            }
            .inObjectScope(.scoped)

            let scopes = (0..<8).map { _ in container.makeScope() }
            let handedOut = Collected<(Session, Int)>()
            let ended = Tally()
            let finished = onThreads(6) { thread in
                for (index, scope) in scopes.enumerated() {
                    if thread == 0 {
                        usleep(delay / 2)
                        let done = DispatchSemaphore(value: 0)
                        Task.detached {
                            try? await scope.end(timeout: 10)
                            ended.add("scope \(index)")
                            done.signal()
                        }
                        done.wait()
                    } else if thread == 1 {
                        let done = DispatchSemaphore(value: 0)
                        Task.detached {
                            _ = try? await scope.async.require(Ledger.self)
                            done.signal()
                        }
                        done.wait()
                    } else if let session = try? scope.require(Session.self) {
                        handedOut.append((session, index))
                    }
                }
            }
            context.check(finished, "scope threads did not finish")
            // Each scope ended once, some while resolves were in flight: nothing may be left untorn.
            Thread.sleep(forTimeInterval: 0.05)
            context.check(tally.count("torn down again") == 0, "\(tally.count("torn down again")) double teardowns")
            context.check(
                tally.count("torn down") == tally.count("made"),
                "\(tally.count("made")) sessions made, \(tally.count("torn down")) torn down")
            context.check(
                tally.count("ledgers torn down") == tally.count("ledgers made"),
                "\(tally.count("ledgers made")) ledgers made, \(tally.count("ledgers torn down")) torn down")
            for (session, _) in handedOut.values where session.tornDown != 1 {
                context.violation("a session handed out was torn down \(session.tornDown) times")
            }
            context.iterations += 1
        }
    }
}

/// A thread-safe list.
final class Collected<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Value] = []
    var values: [Value] { lock.withLock { items } }
    func append(_ value: Value) { lock.withLock { items.append(value) } }
}

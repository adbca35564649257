import Dispatch
import Foundation
import Testing
import Weft

/// Each thread keeps a cache of registry lookups (`ThreadCaches.swift`). A registration changed on one thread
/// must be seen by every other thread on its next resolve, however warm that thread's cache is.
@Suite struct ThreadCachesTests {
    final class Clock: @unchecked Sendable {
        let label: String
        var configured = false
        init(_ label: String) { self.label = label }
    }

    /// What the worker thread saw in one round, before and after the change.
    struct Seen: Equatable {
        let before: String?
        let after: String?
    }

    /// On one long-lived worker thread (whose lookup cache stays warm), `rounds` times: the test's thread runs
    /// `prepare(round)`, the worker resolves with `look(round)`, the test's thread runs `change(round)`, and
    /// the worker looks again. Returns what the worker saw; every wait is bounded.
    private func changeBetweenLooksOnAnotherThread(
        rounds: Int,
        prepare: (Int) -> Void = { _ in },
        change: (Int) -> Void,
        look: @escaping @Sendable (Int) -> String?
    ) -> [Seen] {
        let go = DispatchSemaphore(value: 0)
        let looked = DispatchSemaphore(value: 0)
        let changed = DispatchSemaphore(value: 0)
        let lookedAgain = DispatchSemaphore(value: 0)
        let seen = Collected<Seen>()
        let worker = runOnThread {
            for round in 0..<rounds {
                guard go.wait(timeout: .now() + 10) == .success else { return }
                let before = look(round)
                looked.signal()
                guard changed.wait(timeout: .now() + 10) == .success else { return }
                seen.append(Seen(before: before, after: look(round)))
                lookedAgain.signal()
            }
        }
        for round in 0..<rounds {
            prepare(round)
            go.signal()
            guard looked.wait(timeout: .now() + 10) == .success else { break }
            change(round)
            changed.signal()
            guard lookedAgain.wait(timeout: .now() + 10) == .success else { break }
        }
        #expect(worker.wait(seconds: 10), "the worker thread did not finish")
        return seen.values
    }

    @Test func aRegistrationReplacedOnOneThreadIsResolvedOnAnotherThreadsNextResolve() {
        let container = Container()
        let seen = changeBetweenLooksOnAnotherThread(
            rounds: 100,
            prepare: { round in container.register(Clock.self) { _ in Clock("\(round) old") } },
            change: { round in container.register(Clock.self) { _ in Clock("\(round) new") } },
            look: { _ in container.resolve(Clock.self)?.label }
        )
        #expect(seen == (0..<100).map { Seen(before: "\($0) old", after: "\($0) new") })
    }

    @Test func aScopeChangedOnOneThreadIsUsedByAnotherThreadsNextResolve() {
        let container = Container()
        var entry: ServiceEntry<Clock>?
        let seen = changeBetweenLooksOnAnotherThread(
            rounds: 100,
            prepare: { _ in entry = container.register(Clock.self) { _ in Clock("") }.inObjectScope(.transient) },
            change: { _ in entry?.inObjectScope(.container) },
            look: { _ in
                guard let first = container.resolve(Clock.self), let second = container.resolve(Clock.self) else {
                    return nil
                }
                return first === second ? "shared" : "new each time"
            }
        )
        #expect(seen == Array(repeating: Seen(before: "new each time", after: "shared"), count: 100))
    }

    @Test func registrationsRemovedOnOneThreadAreGoneForAnotherThreadsNextResolve() {
        let container = Container()
        let seen = changeBetweenLooksOnAnotherThread(
            rounds: 100,
            prepare: { round in container.register(Clock.self) { _ in Clock("\(round)") } },
            change: { _ in container.removeAll() },
            look: { _ in container.resolve(Clock.self)?.label }
        )
        #expect(seen == (0..<100).map { Seen(before: "\($0)", after: nil) })
    }

    @Test func aCallbackAddedOnOneThreadRunsOnAnotherThreadsNextResolve() {
        let container = Container()
        var entry: ServiceEntry<Clock>?
        let seen = changeBetweenLooksOnAnotherThread(
            rounds: 100,
            prepare: { _ in entry = container.register(Clock.self) { _ in Clock("") } },
            change: { _ in entry?.initCompleted { _, clock in clock.configured = true } },
            look: { _ in container.resolve(Clock.self).map { $0.configured ? "configured" : "plain" } }
        )
        #expect(seen == Array(repeating: Seen(before: "plain", after: "configured"), count: 100))
    }

    @Test func aChildRegistrationAddedOnOneThreadHidesTheParentsOnAnotherThreadsNextResolve() {
        let parent = Container()
        parent.register(Clock.self) { _ in Clock("parent") }
        let children = (0..<100).map { _ in Container(parent: parent) }
        let seen = changeBetweenLooksOnAnotherThread(
            rounds: 100,
            change: { round in children[round].register(Clock.self) { _ in Clock("child") } },
            look: { round in children[round].resolve(Clock.self)?.label }
        )
        #expect(seen == Array(repeating: Seen(before: "parent", after: "child"), count: 100))
    }

    @Test func manyThreadsSeeARegistrationReplacedWhileTheyResolve() {
        let container = Container()
        container.register(Clock.self) { _ in Clock("old") }
        let replaced = DispatchSemaphore(value: 0)
        let stale = Counter()
        let finished = runOnThreads(9) { thread in
            guard thread > 0 else {
                Thread.sleep(forTimeInterval: 0.01)
                container.register(Clock.self) { _ in Clock("new") }
                for _ in 1..<9 { replaced.signal() }
                return
            }
            // Warm this thread's cache while the replacement happens, then look once after it.
            while replaced.wait(timeout: .now()) != .success {
                _ = container.resolve(Clock.self)
            }
            if container.resolve(Clock.self)?.label != "new" { stale.increment() }
        }
        #expect(finished)
        #expect(stale.value == 0, "a thread resolved the replaced registration after the replacement")
    }
}

import Foundation
import Weft

/// Many scopes ending at once, their async teardowns bounded by time-outs of every length on the one clock that
/// keeps them all, some of the ending tasks cancelled: every `end` returns, with the outcome its teardown earned.
enum TeardownScenarios {
    /// A teardown that returns at once, or, when `stuck`, once the iteration releases it.
    actor Closing: AsyncTeardown {
        let stuck: Bool
        let released: Flag
        let tally: Tally
        init(stuck: Bool, released: Flag, tally: Tally) {
            (self.stuck, self.released, self.tally) = (stuck, released, tally)
        }
        func tearDown() async throws {
            while stuck && !released.isSet { try? await Task.sleep(nanoseconds: 1_000_000) }
            tally.add(stuck ? "stuck torn down" : "quick torn down")
        }
    }

    /// How one scope is ended.
    enum Ending: CaseIterable {
        /// A teardown that returns at once, with a bound it cannot miss.
        case quick
        /// A teardown that does not return, bounded by a short time-out.
        case timedOut
        /// A teardown that does not return, with an hour's bound, its ending task cancelled.
        case cancelled
    }

    static let all: [Scenario] = [deadlines]

    static let deadlines = Scenario(
        name: "teardown-deadlines",
        summary: "tasks end scopes whose async teardowns return at once or hang, with time-outs from 1 ms to an hour, "
            + "some cancelled: every end returns with the right outcome and every teardown runs once"
    ) { context in
        while context.hasTime {
            let tally = Tally()
            let released = Flag()
            let container = Container()
            for stuck in [false, true] {
                container.register(Closing.self, name: stuck ? "stuck" : "quick") { _ in
                    Closing(stuck: stuck, released: released, tally: tally)
                }
                .inObjectScope(.scoped)
            }
            let plans = (0..<24).map { _ in
                (Ending.allCases[context.random.below(3)], 1 + context.random.below(20), context.random.below(5))
            }
            let outcomes = Collected<(Ending, String)>()
            let group = DispatchGroup()
            for (ending, milliseconds, pause) in plans {
                group.enter()
                let scope = container.makeScope()
                let ended = Task.detached {
                    _ = try? scope.require(Closing.self, name: ending == .quick ? "quick" : "stuck")
                    let timeout = ending == .timedOut ? Double(milliseconds) / 1_000 : ending == .quick ? 60 : 3_600
                    do {
                        try await scope.end(timeout: timeout)
                        outcomes.append((ending, "ended"))
                    } catch let error as TeardownError {
                        let reasons = error.failures.map { "\($0.error)" }
                        outcomes.append((ending, reasons.joined(separator: "; ")))
                    }
                    group.leave()
                }
                if ending == .cancelled {
                    usleep(UInt32(pause * 200))
                    ended.cancel()
                }
            }
            let finished = group.wait(timeout: .now() + 30) == .success
            context.check(finished, "an end(timeout:) did not return within 30 s")
            released.set()
            for (ending, outcome) in outcomes.values {
                let expected: String
                switch ending {
                case .quick: expected = "ended"
                case .timedOut: expected = "did not finish within"
                case .cancelled: expected = "not awaited: the task ending the scope was cancelled"
                }
                if !outcome.hasPrefix(expected) { context.violation("\(ending) scope: \(outcome)") }
            }
            let stuck = plans.filter { $0.0 != .quick }.count
            let waitUntil = Date() + 10
            while tally.count("stuck torn down") < stuck && Date() < waitUntil { usleep(1_000) }
            context.check(
                tally.count("stuck torn down") == stuck,
                "\(stuck) hanging teardowns, \(tally.count("stuck torn down")) ran to their end once released")
            context.check(
                tally.count("quick torn down") == plans.count - stuck,
                "\(plans.count - stuck) quick teardowns, \(tally.count("quick torn down")) ran")
            context.iterations += 1
        }
    }
}

/// A flag set once, read from any thread.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

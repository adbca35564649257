import Foundation
import Weft

/// Every scenario, in the order they run.
let allScenarios: [Scenario] =
    SharingScenarios.all + InvalidationScenarios.all + ScopeScenarios.all + CycleScenarios.all
    + DepthScenarios.all + ChurnScenarios.all + TeardownScenarios.all + StorageScenarios.all
    + CompositionScenarios.all + CompletionScenarios.all + GraphBuildScenarios.all

/// One family of bounded, seeded checks: it runs for about `seconds`, and returns what it saw broken.
struct Scenario: Sendable {
    let name: String
    let summary: String
    let run: @Sendable (inout Context) throws -> Void
}

/// What a scenario runs with and reports into.
struct Context {
    var random: SeededRandom
    /// When the scenario should stop starting new rounds.
    let deadline: Date
    /// Rounds (or operations) done, for the report.
    var iterations = 0
    /// Broken invariants, each said in one line.
    private(set) var violations: [String] = []
    /// What a passing scenario measured, reported beside its iterations.
    var measured: [String] = []

    init(seed: UInt64, seconds: Double) {
        random = SeededRandom(seed: seed)
        deadline = Date().addingTimeInterval(seconds)
    }

    var hasTime: Bool { Date() < deadline }

    /// Records a broken invariant (the first few of each scenario are kept).
    mutating func violation(_ text: String) {
        if violations.count < 20 { violations.append(text) }
    }

    mutating func check(_ condition: Bool, _ text: @autoclosure () -> String) {
        if !condition { violation(text()) }
    }
}

/// A small, fast, seedable generator (SplitMix64): the same seed gives the same choices.
struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }

    /// A number in `0..<bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    /// A new generator for a thread or task, derived from this one.
    mutating func split() -> SeededRandom { SeededRandom(seed: next()) }
}

/// A counter and a list any thread may use.
final class Tally: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [String: Int] = [:]
    private var notes: [String] = []

    @discardableResult
    func add(_ key: String, _ amount: Int = 1) -> Int {
        lock.withLock {
            counts[key, default: 0] += amount
            return counts[key]!
        }
    }

    func count(_ key: String) -> Int { lock.withLock { counts[key] ?? 0 } }

    func note(_ text: String) { lock.withLock { if notes.count < 20 { notes.append(text) } } }

    var noted: [String] { lock.withLock { notes } }
}

/// Starts `count` real threads together (a start barrier), runs `body(index)` on each, and waits up to
/// `seconds` for all of them; returns false if some did not finish (a hang).
func onThreads(
    _ count: Int,
    stackSize: Int = 1 << 20,
    within seconds: Double = 60,
    _ body: @escaping @Sendable (Int) -> Void
) -> Bool {
    let group = DispatchGroup()
    let start = DispatchSemaphore(value: 0)
    for index in 0..<count {
        group.enter()
        let thread = Thread {
            start.wait()
            body(index)
            group.leave()
        }
        thread.stackSize = stackSize
        thread.start()
    }
    for _ in 0..<count { start.signal() }
    return group.wait(timeout: .now() + seconds) == .success
}

/// Runs `body` on a thread with `stackSize` bytes of stack; false when it did not finish within `seconds`.
func onThread(stackSize: Int, within seconds: Double, _ body: @escaping @Sendable () -> Void) -> Bool {
    onThreads(1, stackSize: stackSize, within: seconds) { _ in body() }
}

/// Resident memory of this process in bytes (Linux), or nil where `/proc` is not there.
func residentBytes() -> Int? {
    guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = text.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
}

/// The description of `error`, or of the ResolutionError reason it carries.
func reason(of error: any Error) -> String {
    (error as? ResolutionError).map { "\($0.reason)" } ?? "\(type(of: error))"
}

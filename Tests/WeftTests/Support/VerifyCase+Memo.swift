import Foundation
import Weft

/// What the property tests of `VerificationAgreesWithResolutionTests` compute for one generated case, computed once
/// and shared by the tests that need it (they run the same seeds, in parallel): each case is verified and resolved
/// once per engine rather than once per test, so a wider range of seeds stays fast.
final class VerifyCaseMemo: @unchecked Sendable {
    static let shared = VerifyCaseMemo()

    /// What one case gave; each part is computed when first asked for.
    private struct Entry {
        var syncReport: VerificationReport?
        var syncRun: ResolutionRun?
        var exportedGraph: DependencyGraph?
        var asyncReport: VerificationReport?
        var asyncRun: ResolutionRun?
    }

    private let lock = NSLock()
    private var entries: [String: Entry] = [:]

    /// The value at `part` of the entry for `verifyCase`, made with `make` when it is not there yet. Two tests may
    /// make it at once: both get equal values (a case is deterministic), the last one is kept.
    private func value<Value>(
        _ part: WritableKeyPath<Entry, Value?>, of verifyCase: VerifyCase, make: () async -> Value
    ) async -> Value {
        let key = verifyCase.description
        if let known = lock.withLock({ entries[key]?[keyPath: part] }) { return known }
        let made = await make()
        lock.withLock { entries[key, default: Entry()][keyPath: part] = made }
        return made
    }

    func syncReport(_ verifyCase: VerifyCase) async -> VerificationReport {
        await value(\.syncReport, of: verifyCase) {
            verifyCase.makeContainer(log: DependencyLog()).verificationReport()
        }
    }

    func syncRun(_ verifyCase: VerifyCase) async -> ResolutionRun {
        await value(\.syncRun, of: verifyCase) { verifyCase.resolveEach() }
    }

    func exportedGraph(_ verifyCase: VerifyCase) async -> DependencyGraph {
        await value(\.exportedGraph, of: verifyCase) {
            verifyCase.makeContainer(log: DependencyLog()).dependencyGraph()
        }
    }

    func asyncReport(_ verifyCase: VerifyCase) async -> VerificationReport {
        await value(\.asyncReport, of: verifyCase) {
            await verifyCase.makeContainer(log: DependencyLog()).async.verificationReport()
        }
    }

    func asyncRun(_ verifyCase: VerifyCase) async -> ResolutionRun {
        await value(\.asyncRun, of: verifyCase) { await verifyCase.resolveEachAsync() }
    }
}

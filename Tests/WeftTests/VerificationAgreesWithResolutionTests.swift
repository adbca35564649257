import Testing
import Weft

/// Differential property-based tests: generated containers (`Support/VerifyCase.swift`) are verified, and each
/// of their registered services is resolved in a fresh container; what verification reports and the graph it
/// exports must match what resolution meets and asks for. Each test runs a fixed range of seeds; a failure
/// names its seed and a shrunk container.
@Suite struct VerificationAgreesWithResolutionTests {
    /// What the tests compute for a case, shared between them.
    private let memo = VerifyCaseMemo.shared
    static let seeds: Range<UInt64> = 1..<UInt64(1 + lighterUnderSanitizer(300))

    @Test func verifyReportsNothingExactlyWhenEveryCheckedServiceResolves() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: false) { verifyCase in
            let report = await memo.syncReport(verifyCase)
            let run = await memo.syncRun(verifyCase)
            let unchecked = verifyCase.unchecked(in: report)
            let problems = report.problems.filter {
                verifyCase.resolutionStart(of: $0, unchecked: [], run: run) != nil
            }
            let failing = run.outcomes.filter { $0.value != nil && !unchecked.contains($0.key) }.keys.sorted()
            guard problems.isEmpty != failing.isEmpty else { return [] }
            return ["problems: \(problems.map(\.summary)), failing services: \(failing)"]
        }
    }

    @Test func everyReportedProblemIsTheFailureOfResolvingTheFirstServiceOfItsPath() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: false) { verifyCase in
            await verifyCase.reportedProblemsThatResolutionDoesNotMeet(
                memo.syncReport(verifyCase), memo.syncRun(verifyCase))
        }
    }

    @Test func everyResolutionFailureOfACheckedServiceIsReported() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: false) { verifyCase in
            await verifyCase.resolutionFailuresNotReported(memo.syncReport(verifyCase), memo.syncRun(verifyCase))
        }
    }

    @Test func exportedGraphHasExactlyTheDependenciesResolutionAskedFor() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: false) { verifyCase in
            let report = await memo.syncReport(verifyCase)
            let graph = await memo.exportedGraph(verifyCase)
            var failures = await verifyCase.graphEdgesResolutionDidNotAskFor(
                graph, memo.syncRun(verifyCase), unchecked: verifyCase.unchecked(in: report))
            if graph != report.graph { failures.append("dependencyGraph() is not the report's graph") }
            return failures
        }
    }

    @Test func syncAndAsyncVerificationAgreeOnContainersWithOnlySyncFactories() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: false) { verifyCase in
            let sync = await memo.syncReport(verifyCase)
            let async = await memo.asyncReport(verifyCase)
            var failures: [String] = []
            // How much of the stack a recursion used differs from run to run.
            let syncProblems = sync.problems.map { $0.description.filter { !$0.isNumber } }
            let asyncProblems = async.problems.map { $0.description.filter { !$0.isNumber } }
            if syncProblems != asyncProblems { failures.append("sync: \(syncProblems)\nasync: \(asyncProblems)") }
            if sync.unchecked != async.unchecked {
                failures.append("unchecked: \(sync.unchecked) / \(async.unchecked)")
            }
            if sync.graph != async.graph {
                failures.append("graphs differ:\n\(sync.graph.mermaid)\n\(async.graph.mermaid)")
            }
            return failures
        }
    }

    @Test func asyncVerificationReportsWhatAsyncResolutionMeetsAndAsksFor() async {
        await checkVerifyCases(seeds: Self.seeds, allowAsync: true) { verifyCase in
            let report = await memo.asyncReport(verifyCase)
            let run = await memo.asyncRun(verifyCase)
            return verifyCase.reportedProblemsThatResolutionDoesNotMeet(report, run)
                + verifyCase.resolutionFailuresNotReported(report, run)
                + verifyCase.graphEdgesResolutionDidNotAskFor(
                    report.graph, run, unchecked: verifyCase.unchecked(in: report))
        }
    }

    @Test func generatedContainersCoverEveryKindOfProblemAndManyValidOnes() async {
        var kinds: [VerificationReport.Problem.Kind: Int] = [:]
        var valid = 0
        for seed in UInt64(1)..<201 {
            let report = await memo.syncReport(VerifyCase.generate(seed: seed, allowAsync: false))
            if report.isValid { valid += 1 }
            for problem in report.problems { kinds[problem.kind, default: 0] += 1 }
        }
        #expect(valid > 20)
        #expect(kinds[.missingRegistration, default: 0] > 20)
        #expect(kinds[.unbuildableCycle, default: 0] > 10)
        #expect(kinds[.captiveDependency, default: 0] > 10)
    }
}

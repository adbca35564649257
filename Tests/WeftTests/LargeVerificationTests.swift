import Foundation
import Testing
import Weft

/// Verifying long chains: each registration's factory runs once however many others depend on it, and the
/// report is what it would be if each were built on its own.
@Suite struct LargeVerificationTests {
    final class Node: Sendable {
        let next: Node?
        init(next: Node?) { self.next = next }
    }

    final class Root: Sendable {
        let node: Node?
        init(node: Node?) { self.node = node }
    }

    struct LinkFailed: Error {}

    static let length = lighterUnderSanitizer(400)

    /// A chain `n0 -> n1 -> ... -> n(length - 1)` in `scope`, counting factory runs; link `missing`, if given,
    /// is not registered.
    func chain(in scope: ObjectScope, length: Int = length, missing: Int? = nil) -> (Container, runs: Counter) {
        let container = Container()
        let runs = Counter()
        for index in 0..<length where index != missing {
            container.register(Node.self, name: "n\(index)") { r in
                runs.increment()
                return Node(next: index + 1 < length ? try r.require(Node.self, name: "n\(index + 1)") : nil)
            }
            .inObjectScope(scope)
        }
        return (container, runs)
    }

    @Test(arguments: [ObjectScope.graph, .transient, .container])
    func longChainIsValidAndEachFactoryRunsOnce(scope: ObjectScope) throws {
        let (container, runs) = chain(in: scope)
        let report = container.verificationReport()
        #expect(report.isValid)
        #expect(report.checkedCount == Self.length)
        #expect(report.graph.nodes.count == Self.length)
        #expect(report.graph.edges.count == Self.length - 1)
        #expect(runs.value == Self.length, "a factory ran again for each registration that depends on it")
        try container.verify()
        #expect(container.dependencyGraph() == report.graph)
    }

    @Test func missingLinkDeepInAChainIsReportedOnceWithWhoNeedsIt() throws {
        let length = lighterUnderSanitizer(1_000)
        // A tenth of the way from the end: every registration before it fails for want of it.
        let gap = length - length / 10
        let (container, _) = chain(in: .graph, length: length, missing: gap)
        let report = container.verificationReport()
        let missing = report.problems.filter { $0.kind == .missingRegistration }
        #expect(missing.count == 1)
        #expect(missing.first?.service == "Node[\"n\(gap)\"]")
        #expect(missing.first?.message.contains("n\(gap - 1)") == true, "\(missing.first?.message ?? "")")
    }

    @Test func aFailureSwallowedByAnOptionalResolveIsStillReportedForItsRegistration() throws {
        let container = Container()
        container.register(Node.self, name: "flaky") { _ in throw LinkFailed() }
        container.register(Root.self) { r in Root(node: r.resolve(Node.self, name: "flaky")) }
        let report = container.verificationReport()
        let failed = report.problems.filter { $0.kind == .buildFailed }
        #expect(failed.map(\.service) == ["Node[\"flaky\"]"])
    }

    @Test func aRegistrationWithCallbacksIsBuiltOnItsOwnAndItsFailingCallbackReported() throws {
        let container = Container()
        container.register(Node.self, name: "tail") { _ in Node(next: nil) }
            .initCompleted { _, _ in throw LinkFailed() }
        container.register(Root.self) { r in Root(node: r.resolve(Node.self, name: "tail")) }
        let report = container.verificationReport()
        let failed = report.problems.filter { $0.kind == .buildFailed }
        #expect(failed.map(\.service) == ["Node[\"tail\"]"])
    }

    /// `Node["a"]` asks for `Node["b"]` optionally, then for the missing `Node["c"]` itself; `b` requires `c`.
    /// Built first, `a` fails as `b` does, but `b`'s failure was swallowed: `b` is still built on its own.
    @Test func aSwallowedFailureIsNotSettledByALaterFailureOfTheSameKindAndKey() async throws {
        let container = Container()
        container.register(Node.self, name: "a") { r in
            _ = r.resolve(Node.self, name: "b")
            return Node(next: try r.require(Node.self, name: "c"))
        }
        container.register(Node.self, name: "b") { r in Node(next: try r.require(Node.self, name: "c")) }
        let report = container.verificationReport()
        let b = try #require(report.graph.node(for: Node.self, name: "b"))
        #expect(report.graph.dependencies(of: b.id).map(\.access) == [.direct], "b requires c")
        #expect(
            report.problems.map(\.pathDescription) == [
                "Node[\"a\"] -> Node[\"b\"] -> Node[\"c\"]", "Node[\"a\"] -> Node[\"c\"]",
            ])
        let asyncReport = await container.async.verificationReport()
        #expect(report.problems.map(\.description) == asyncReport.problems.map(\.description))
        #expect(report.graph == asyncReport.graph)
    }
}

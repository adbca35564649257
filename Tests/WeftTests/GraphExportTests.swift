import Foundation
import Testing
import Weft

/// `dependencyGraph()`: nodes with scopes and names, edges from initializers, `initCompleted` and property
/// wrappers, and their DOT and Mermaid renderings.
@Suite struct GraphExportTests {
    final class Logger {}

    final class Store {
        init(logger: Logger, backup: Lazy<Logger>, audit: Provider<Logger>, metrics: Metrics?) {}
    }

    final class Metrics {}

    final class Screen {
        var store: Store?
        @Injected var logger: Logger
    }

    static let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

    /// A graph with every kind of node and edge; `Screen` has a property wrapper, so the container is
    /// verified as `Container.shared`.
    private func graph() -> DependencyGraph {
        let container = Container()
        container.register(Logger.self, name: "audit \"main\"") { _ in Logger() }.inObjectScope(Self.session)
        container.autoregister(Logger.self, initializer: Logger.init).inObjectScope(.container)
        container.autoregister(Store.self, initializer: Store.init).inObjectScope(.weak)
        container.register(Screen.self) { _ in Screen() }
            .inObjectScope(.transient)
            .initCompleted { r, screen in screen.store = try r.require(Store.self) }
        return Container.withShared(container) { container.dependencyGraph() }
    }

    // MARK: The graph

    @Test func nodesHaveTheirScopesNamesAndHowTheyAreRegistered() throws {
        let graph = graph()

        #expect(graph.nodes.map(\.label) == ["Logger", "Logger[\"audit \"main\"\"]", "Metrics", "Screen", "Store"])
        let named = try #require(graph.node(for: Logger.self, name: "audit \"main\""))
        #expect((named.scope, named.registration, named.name) == ("session", .factory, "audit \"main\""))
        let logger = try #require(graph.node(for: Logger.self))
        #expect((logger.scope, logger.registration) == ("container", .autoregistered))
        let metrics = try #require(graph.node(for: Metrics.self))
        #expect((metrics.scope, metrics.registration) == (nil, .missing))
        #expect(graph.node(for: Screen.self)?.scope == "transient")
    }

    @Test func edgesComeFromInitializersInitCompletedAndPropertyWrappers() throws {
        let graph = graph()
        let (logger, metrics, screen, store) = try (
            #require(graph.node(for: Logger.self)).id, #require(graph.node(for: Metrics.self)).id,
            #require(graph.node(for: Screen.self)).id, #require(graph.node(for: Store.self)).id
        )

        #expect(
            graph.dependencies(of: store) == [
                .init(from: store, to: logger, kind: .initializer),
                .init(from: store, to: metrics, kind: .initializer, access: .optional),
            ]
        )
        #expect(
            graph.dependencies(of: screen) == [
                .init(from: screen, to: logger, kind: .property),
                .init(from: screen, to: store, kind: .initCompleted),
            ]
        )
    }

    @Test func sameDependencyInTheFactoryAndInInitCompletedGivesAnEdgeOfEachKind() throws {
        final class Widget {}
        let container = Container()
        container.register(Logger.self) { _ in Logger() }.inObjectScope(.container)
        container.register(Widget.self) { r in
            _ = try r.require(Logger.self)
            return Widget()
        }
        .initCompleted { r, _ in _ = try r.require(Logger.self) }

        let graph = container.dependencyGraph()
        #expect(graph.edges.map(\.kind) == [.initializer, .initCompleted])
    }

    @Test func anOptionalResolveOfAMissingServiceStaysOptionalWhereACallbackRequiresIt() throws {
        final class Widget {}
        let container = Container()
        container.register(Widget.self) { r in
            _ = r.resolve(Metrics.self)
            return Widget()
        }
        .initCompleted { r, _ in _ = try r.require(Metrics.self) }

        let report = container.verificationReport()
        #expect(
            report.graph.edges.map { [$0.kind.rawValue, $0.access.rawValue] } == [
                ["initializer", "optional"], ["initCompleted", "direct"],
            ])
        #expect(report.problems.map(\.id) == ["missing-registration"])
    }

    @Test func anOptionalResolveOfAMissingServiceStaysOptionalWhereALazyOfItFails() throws {
        final class Widget {}
        let container = Container()
        container.register(Widget.self) { r in
            _ = r.resolve(Metrics.self)
            _ = try r.require(Lazy<Metrics>.self)
            return Widget()
        }

        let graph = container.dependencyGraph()
        #expect(graph.edges.map(\.access) == [.optional])
    }

    @Test func lazyAndProviderEdgesAreKeptApartFromDirectOnes() throws {
        final class Worker {
            init(logger: Provider<Logger>) {}
        }
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Worker.self, initializer: Worker.init)
        container.register(Store.self) { r in
            Store(logger: Logger(), backup: try r.require(), audit: try r.require(), metrics: nil)
        }

        let graph = container.dependencyGraph()
        #expect(graph.edges.map(\.access) == [.lazy, .provider])
    }

    @Test func sameGraphGivesTheSameTextEveryTime() {
        #expect(graph().dot == graph().dot)
        #expect(graph().mermaid == graph().mermaid)
    }

    // MARK: DOT

    @Test func dotHasANodePerServiceWithEscapedLabelsAndAStylePerEdgeKind() {
        let dot = graph().dot

        #expect(dot.hasPrefix("digraph Weft {\n    rankdir=LR;\n"))
        #expect(dot.hasSuffix("}\n"))
        #expect(
            dot.contains(##"n0 [label="Logger\n.container, autoregistered", fillcolor="#dbeafe", style="filled"];"##))
        #expect(dot.contains(##"n1 [label="Logger[\"audit \"main\"\"]\n.session", fillcolor="#ede9fe"];"##))
        #expect(dot.contains(##"n2 [label="Metrics\nnot registered", fillcolor="#fee2e2", style="dashed,filled""##))
        #expect(dot.contains("    n4 -> n0;\n"))
        #expect(dot.contains(#"    n4 -> n2 [arrowhead=odot, label="optional"];"#))
        #expect(dot.contains(##"    n3 -> n0 [style=dotted, color="#7c3aed", label="property"];"##))
        #expect(dot.contains(##"    n3 -> n4 [style=dashed, color="#2563eb", label="initCompleted"];"##))
    }

    @Test(.enabled(if: GraphExportTests.graphviz != nil, "Graphviz's dot is not installed"))
    func dotIsParsedByGraphviz() throws {
        let process = Process()
        process.executableURL = Self.graphviz
        process.arguments = ["-Tsvg"]
        let input = Pipe()
        let output = Pipe()
        let errors = Pipe()
        (process.standardInput, process.standardOutput, process.standardError) = (input, output, errors)
        try process.run()
        input.fileHandleForWriting.write(Data(graph().dot.utf8))
        try input.fileHandleForWriting.close()
        let svg = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let complaints = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()

        #expect(process.terminationStatus == 0, "dot said: \(complaints)")
        #expect(complaints.isEmpty)
        #expect(svg.contains("<svg"))
        #expect(svg.contains("initCompleted"))
    }

    /// Where Graphviz's `dot` is, if it is on the `PATH`.
    static let graphviz: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent("dot") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    // MARK: Mermaid

    @Test func mermaidIsAFlowchartWithEscapedLabelsAndAnArrowPerEdgeKind() {
        let mermaid = graph().mermaid

        #expect(mermaid.hasPrefix("flowchart LR\n"))
        #expect(mermaid.contains(#"    n0["Logger<br/>.container, autoregistered"]"#))
        #expect(mermaid.contains(##"    n1("Logger[#quot;audit #quot;main#quot;#quot;]<br/>.session")"##))
        #expect(mermaid.contains("    n4 --> n0\n"))
        #expect(mermaid.contains("    n3 ==>|property| n0\n"))
        #expect(mermaid.contains("    n3 -.->|initCompleted| n4\n"))
        #expect(mermaid.contains("    n4 -->|optional| n2\n"))
        #expect(mermaid.contains("    class n2 missing\n"))
        #expect(mermaid.contains("    class n0 scopeContainer\n"))
    }
}

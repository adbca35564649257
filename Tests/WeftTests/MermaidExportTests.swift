import Foundation
import Testing
import Weft

/// `DependencyGraph.mermaid`, parsed as a Mermaid flowchart: every line is a node, an edge or a style, and
/// together they are exactly the graph's nodes and edges (not merely text that contains the right pieces).
@Suite struct MermaidExportTests {
    final class Logger {}

    final class Metrics {}

    final class Store {
        init(logger: Logger, backup: Lazy<Logger>, audit: Provider<Logger>, metrics: Metrics?) {}
    }

    final class Screen {
        var store: Store?
        @Injected var logger: Logger
    }

    final class Report {}

    static let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

    /// Every node shape and class and every kind of edge, with labels that need escaping.
    private func graph() -> DependencyGraph {
        let container = Container()
        container.register(Logger.self, name: "audit \"main\" <#1|2>") { _ in Logger() }.inObjectScope(Self.session)
        container.autoregister(Logger.self, initializer: Logger.init).inObjectScope(.container)
        container.autoregister(Store.self, initializer: Store.init).inObjectScope(.weak)
        container.register(Screen.self) { _ in Screen() }
            .inObjectScope(.transient)
            .initCompleted { r, screen in screen.store = try r.require(Store.self) }
        container.register(Report.self) { r in
            _ = try r.require(Logger.self, name: "audit \"main\" <#1|2>")
            _ = try r.require(Lazy<Logger>.self)
            _ = try r.require(Provider<Screen>.self)
            return Report()
        }
        container.register(Report.self, name: "titled") { (_, title: String, pages: Int) in Report() }
        return Container.withShared(container) { container.dependencyGraph() }
    }

    @Test func everyLineIsANodeAnEdgeOrAStyleAndTheyAreTheGraph() throws {
        let graph = graph()
        let chart = try ParsedFlowchart(graph.mermaid)

        #expect(chart.direction == "LR")
        #expect(chart.nodes.map(\.id) == graph.nodes.indices.map { "n\($0)" })
        for (node, parsed) in zip(graph.nodes, chart.nodes) {
            #expect(parsed.rounded == (node.registration == .factory), "shape of \(node.label)")
            #expect(parsed.lines == Self.expectedLines(of: node))
        }
        let position = Dictionary(uniqueKeysWithValues: graph.nodes.enumerated().map { ($1.id, "n\($0)") })
        let expectedEdges = graph.edges.map { edge in
            ParsedFlowchart.Edge(
                from: position[edge.from] ?? "?",
                to: position[edge.to] ?? "?",
                arrow: Self.arrows[edge.kind] ?? "?",
                label: Self.expectedLabel(of: edge)
            )
        }
        #expect(chart.edges == expectedEdges)
        // Every arrow and every kind of label is there to be read.
        #expect(Set(chart.edges.map(\.arrow)) == ["-->", "-.->", "==>"])
        #expect(Set(chart.edges.map(\.label)) == [nil, "optional", "property", "initCompleted", "Lazy", "Provider"])
        #expect(chart.nodes.contains { $0.lines.contains("arguments: (String, Int)") })
    }

    @Test func everyNodeHasExactlyOneDefinedClassThatFollowsItsScope() throws {
        let graph = graph()
        let chart = try ParsedFlowchart(graph.mermaid)

        let classOf = chart.classes.flatMap { name, members in members.map { ($0, name) } }
        #expect(classOf.count == graph.nodes.count, "a node is in no class or in two")
        let byNode = Dictionary(classOf, uniquingKeysWith: { first, _ in first })
        for (index, node) in graph.nodes.enumerated() {
            let expected =
                node.registration == .missing
                ? "missing" : Self.scopeClasses[node.scope ?? ""] ?? "scopeCustom"
            #expect(byNode["n\(index)"] == expected, "class of \(node.label)")
        }
        #expect(Set(chart.classDefinitions.keys) == Set(chart.classes.keys))
        #expect(chart.classDefinitions["missing"]?.hasPrefix("fill:") == true)
    }

    @Test func escapedLabelsReadBackAsTheOriginalText() throws {
        let graph = graph()
        let chart = try ParsedFlowchart(graph.mermaid)

        let named = try #require(graph.nodes.firstIndex { $0.name == "audit \"main\" <#1|2>" })
        #expect(chart.nodes[named].lines.first == "Logger[\"audit \"main\" <#1|2>\"]")
        #expect(!graph.mermaid.contains("<#1|2>"), "markup characters were written raw")
    }

    @Test(arguments: [
        "    n0[\"a \"quoted\" label\"]",  // a raw quote ends the label early
        "    n0[\"a<b\"]",  // raw markup
        "    n0[\"a\"]\n    n0 --> n1",  // an edge to a node that is not there
        "    n0[\"a\"]\n    n0 -> n0",  // not a Mermaid arrow
        "    n0[\"a\"]\n    n0 -->|a|b| n0",  // a bar inside an edge label
        "n0[\"a\"]",  // not indented
    ])
    func theParserRefusesWhatMermaidWouldMisread(body: String) {
        #expect(throws: ParsedFlowchart.Malformed.self) { try ParsedFlowchart("flowchart LR\n\(body)\n") }
    }

    // MARK: What the export promises, from the public model

    static let arrows: [DependencyGraph.Edge.Kind: String] = [
        .initializer: "-->", .initCompleted: "-.->", .property: "==>",
    ]

    static let scopeClasses = [
        "container": "scopeContainer", "cached": "scopeContainer", "weak": "scopeWeak", "graph": "scopeGraph",
        "transient": "scopeTransient", "scoped": "scopeScoped",
    ]

    /// The label lines of `node`: the service, its scope and registration, its arguments, its forwarded types.
    static func expectedLines(of node: DependencyGraph.Node) -> [String] {
        var lines = [node.label]
        switch node.registration {
        case .factory: lines.append(".\(node.scope ?? "?")")
        case .autoregistered: lines.append(".\(node.scope ?? "?"), autoregistered")
        case .missing: lines.append("not registered")
        }
        if !node.argumentTypes.isEmpty { lines.append("arguments: (\(node.argumentTypes.joined(separator: ", ")))") }
        if !node.forwardedTypes.isEmpty { lines.append("also: \(node.forwardedTypes.joined(separator: ", "))") }
        return lines
    }

    /// An edge's label: its kind unless it is an initializer's, then its access unless direct.
    static func expectedLabel(of edge: DependencyGraph.Edge) -> String? {
        var parts = edge.kind == .initializer ? [] : [edge.kind.rawValue]
        switch edge.access {
        case .direct: break
        case .optional: parts.append("optional")
        case .lazy: parts.append("Lazy")
        case .provider: parts.append("Provider")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

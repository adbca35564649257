/// Renderings of the graph as text for Graphviz and Mermaid.
///
/// Both use the same conventions, so the pictures read alike:
///
/// - A node shows the service (with its name), its scope, and whether it is autoregistered; the fill colour
///   is the scope's (`.container` and `.cached` blue, `.weak` amber, `.transient` grey, `.graph` white,
///   `.scoped` green, custom scopes violet). Autoregistered services have square corners, closure registrations
///   rounded ones. A service that is asked for but not registered is drawn dashed and red.
/// - An edge from an initializer or factory is solid, one from an `initCompleted` callback dashed (Graphviz) or
///   dotted (Mermaid), one from a property wrapper dotted (Graphviz) or thick (Mermaid). `Lazy`, `Provider`
///   and optional dependencies are labelled so.
///
/// The output is stable: the same graph always gives the same text, so it can be committed and diffed.
extension DependencyGraph {
    /// The graph in Graphviz's DOT language.
    ///
    /// ```sh
    /// swift run weft-demo graph --dot | dot -Tpng > graph.png
    /// ```
    public var dot: String {
        var lines = [
            "digraph Weft {",
            "    rankdir=LR;",
            ##"    node [shape=box, style="rounded,filled", fillcolor="#ffffff", fontname="Helvetica", fontsize=11];"##,
            "    edge [fontname=\"Helvetica\", fontsize=9, color=\"#374151\"];",
        ]
        let index = exportIndex
        for (position, node) in nodes.enumerated() {
            let label = node.exportLines.map(Self.dotEscaped).joined(separator: "\\n")
            var attributes = ["label=\"\(label)\"", "fillcolor=\"\(node.style.fill)\""]
            switch node.registration {
            case .factory: break
            case .autoregistered: attributes.append("style=\"filled\"")
            case .missing: attributes += ["style=\"dashed,filled\"", "color=\"#b91c1c\"", "fontcolor=\"#b91c1c\""]
            }
            lines.append("    n\(position) [\(attributes.joined(separator: ", "))];")
        }
        for edge in edges {
            guard let from = index[edge.from], let to = index[edge.to] else { continue }
            var attributes: [String] = []
            switch edge.kind {
            case .initializer: break
            case .initCompleted: attributes += ["style=dashed", "color=\"#2563eb\""]
            case .property: attributes += ["style=dotted", "color=\"#7c3aed\""]
            }
            switch edge.access {
            case .direct: break
            case .optional: attributes.append("arrowhead=odot")
            case .lazy, .provider: attributes.append("arrowhead=empty")
            }
            if let label = edge.exportLabel { attributes.append("label=\"\(Self.dotEscaped(label))\"") }
            let suffix = attributes.isEmpty ? "" : " [\(attributes.joined(separator: ", "))]"
            lines.append("    n\(from) -> n\(to)\(suffix);")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as a Mermaid flowchart, which GitHub, GitLab and many documentation tools render in
    /// Markdown inside a code block marked `mermaid`.
    public var mermaid: String {
        var lines = ["flowchart LR"]
        let index = exportIndex
        var classes: [String: [String]] = [:]
        for (position, node) in nodes.enumerated() {
            let label = node.exportLines.map(Self.mermaidEscaped).joined(separator: "<br/>")
            let shape = node.registration == .factory ? ("(\"", "\")") : ("[\"", "\"]")
            lines.append("    n\(position)\(shape.0)\(label)\(shape.1)")
            classes[node.style.name, default: []].append("n\(position)")
        }
        for edge in edges {
            guard let from = index[edge.from], let to = index[edge.to] else { continue }
            let arrow: String
            switch edge.kind {
            case .initializer: arrow = "-->"
            case .initCompleted: arrow = "-.->"
            case .property: arrow = "==>"
            }
            let label = edge.exportLabel.map { "|\(Self.mermaidEscaped($0))|" } ?? ""
            lines.append("    n\(from) \(arrow)\(label) n\(to)")
        }
        for style in NodeStyle.all where classes[style.name] != nil {
            lines.append("    classDef \(style.name) \(style.mermaid)")
        }
        for style in NodeStyle.all {
            guard let members = classes[style.name] else { continue }
            lines.append("    class \(members.joined(separator: ",")) \(style.name)")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The position of each node in ``nodes``, which names it in the exports (`n0`, `n1`, ...).
    private var exportIndex: [Node.ID: Int] {
        var index: [Node.ID: Int] = [:]
        for (position, node) in nodes.enumerated() { index[node.id] = position }
        return index
    }

    /// `text` inside a DOT double-quoted string.
    static func dotEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\\": result += "\\\\"
            case "\"": result += "\\\""
            case "\n": result += "\\n"
            default: result.append(character)
            }
        }
        return result
    }

    /// `text` inside a Mermaid double-quoted label, with the characters Mermaid would read as markup
    /// written as entities.
    static func mermaidEscaped(_ text: String) -> String {
        var result = ""
        for character in text {
            switch character {
            case "\"": result += "#quot;"
            case "<": result += "#lt;"
            case ">": result += "#gt;"
            case "#": result += "#35;"
            case "|": result += "#124;"
            case "\n": result += " "
            default: result.append(character)
            }
        }
        return result
    }
}

/// How a node of a scope is coloured.
struct NodeStyle {
    /// The Mermaid class of such nodes (not `graph`, a Mermaid keyword).
    let name: String
    let fill: String
    let stroke: String

    var mermaid: String {
        let dashes = name == "missing" ? ",stroke-dasharray:4 3,color:#b91c1c" : ""
        return "fill:\(fill),stroke:\(stroke)\(dashes)"
    }

    static let container = NodeStyle(name: "scopeContainer", fill: "#dbeafe", stroke: "#1e3a8a")
    static let weak = NodeStyle(name: "scopeWeak", fill: "#fef3c7", stroke: "#92400e")
    static let graph = NodeStyle(name: "scopeGraph", fill: "#ffffff", stroke: "#374151")
    static let transient = NodeStyle(name: "scopeTransient", fill: "#f3f4f6", stroke: "#374151")
    static let scoped = NodeStyle(name: "scopeScoped", fill: "#dcfce7", stroke: "#166534")
    static let custom = NodeStyle(name: "scopeCustom", fill: "#ede9fe", stroke: "#5b21b6")
    static let missing = NodeStyle(name: "missing", fill: "#fee2e2", stroke: "#b91c1c")
    static let all = [container, weak, graph, transient, scoped, custom, missing]
}

extension DependencyGraph.Node {
    /// The lines of the node's label: the service, then its scope and how it is registered, its arguments and
    /// its forwarded types.
    var exportLines: [String] {
        var lines = [label]
        switch registration {
        case .factory: lines.append("." + (scope ?? "?"))
        case .autoregistered: lines.append("." + (scope ?? "?") + ", autoregistered")
        case .missing: lines.append("not registered")
        }
        if isCollection { lines.append("collection") }
        if collectionElement != nil { lines.append("element: " + serviceType) }
        if decoratorCount > 0 { lines.append(decoratorCount == 1 ? "decorated" : "decorated \(decoratorCount) times") }
        if !argumentTypes.isEmpty { lines.append("arguments: (" + argumentTypes.joined(separator: ", ") + ")") }
        if !forwardedTypes.isEmpty { lines.append("also: " + forwardedTypes.joined(separator: ", ")) }
        return lines
    }

    /// The colours of the node.
    var style: NodeStyle {
        switch (registration, scope) {
        case (.missing, _): return .missing
        // `.cached` is a singleton scope reset on its own: drawn as the singletons are.
        case (_, "container"), (_, "cached"): return .container
        case (_, "weak"): return .weak
        case (_, "graph"): return .graph
        case (_, "transient"): return .transient
        case (_, "scoped"): return .scoped
        default: return .custom
        }
    }
}

extension DependencyGraph.Edge {
    /// What an edge says besides its style: its kind unless it is an initializer's, and its access unless direct.
    var exportLabel: String? {
        var parts: [String] = []
        if kind != .initializer { parts.append(kind.rawValue) }
        switch access {
        case .direct: break
        case .optional: parts.append("optional")
        case .lazy: parts.append("Lazy")
        case .provider: parts.append("Provider")
        }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}

extension DependencyGraph: CustomStringConvertible {
    /// A line to read in a log or a debugger: how many registrations and dependencies, the services asked for but
    /// not registered, and the roots (registrations nothing in the graph depends on: where resolves start), the first
    /// few by name. ``dot`` and ``mermaid`` draw the whole graph.
    ///
    /// ```
    /// DependencyGraph: 5 registrations, 1 not registered (Metrics), 5 dependencies; roots: Dashboard, Garage
    /// ```
    public var description: String {
        let registered = nodes.filter { $0.registration != .missing }
        guard !nodes.isEmpty else { return "DependencyGraph: no registrations" }
        var parts = [Self.count(registered.count, "registration")]
        let missing = nodes.filter { $0.registration == .missing }.map(\.label)
        if !missing.isEmpty { parts.append("\(missing.count) not registered (\(Self.list(missing)))") }
        parts.append(Self.count(edges.count, "dependency"))
        let depended = Set(edges.map(\.to))
        let roots = registered.filter { !depended.contains($0.id) }.map(\.label)
        let rooted = roots.isEmpty ? "" : "; roots: " + Self.list(roots)
        return "DependencyGraph: " + parts.joined(separator: ", ") + rooted
    }

    /// `count` and `noun`, in the plural unless it is one.
    private static func count(_ count: Int, _ noun: String) -> String {
        guard count != 1 else { return "1 \(noun)" }
        return noun.hasSuffix("y") ? "\(count) \(noun.dropLast())ies" : "\(count) \(noun)s"
    }

    /// The first five of `labels`, and how many more there are.
    private static func list(_ labels: [String]) -> String {
        let shown = labels.prefix(5).joined(separator: ", ")
        return labels.count > 5 ? "\(shown) and \(labels.count - 5) more" : shown
    }
}

extension DependencyGraph.Node: CustomStringConvertible {
    /// The node as the exports label it, on one line: `Engine["v8"] (.container)`, `Logger (.graph, autoregistered)`,
    /// `Metrics (not registered)`.
    public var description: String {
        "\(label) (\(exportLines[1]))"
    }
}

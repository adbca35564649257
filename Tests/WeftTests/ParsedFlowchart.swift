import Foundation

/// A Mermaid flowchart read back into its parts, for tests of `DependencyGraph.mermaid`.
///
/// It reads the subset of Mermaid that Weft writes, and refuses any other line, so that a line Mermaid would
/// misread fails the test: `flowchart LR`, then indented node lines `n0["label"]` (square) or `n0("label")`
/// (rounded), whose labels join lines with `<br/>` and write markup characters as `#name;` entities; edge lines
/// `n0 --> n1`, `n0 -.-> n1` or `n0 ==> n1`, with an optional `|label|` after the arrow; `classDef name style`
/// and `class n0,n1 name`.
struct ParsedFlowchart {
    struct Node: Equatable {
        let id: String
        let rounded: Bool
        /// The label's lines, with entities read back as the characters they stand for.
        let lines: [String]
    }

    struct Edge: Equatable {
        let from: String
        let to: String
        let arrow: String
        let label: String?
    }

    struct Malformed: Error, CustomStringConvertible {
        let line: String
        var description: String { "not a line of a Weft flowchart: \(line)" }
    }

    private(set) var direction = ""
    private(set) var nodes: [Node] = []
    private(set) var edges: [Edge] = []
    private(set) var classDefinitions: [String: String] = [:]
    private(set) var classes: [String: [String]] = [:]

    init(_ text: String) throws {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        guard lines.last == "" else { throw Malformed(line: "(no newline at the end)") }
        lines.removeLast()
        guard let header = lines.first, header.hasPrefix("flowchart ") else { throw Malformed(line: lines.first ?? "") }
        direction = String(header.dropFirst("flowchart ".count))
        for line in lines.dropFirst() {
            guard line.hasPrefix("    ") else { throw Malformed(line: line) }
            try read(String(line.dropFirst(4)), original: line)
        }
    }

    private mutating func read(_ line: String, original: String) throws {
        let words = line.split(separator: " ", maxSplits: 2).map(String.init)
        if words.first == "classDef", words.count == 3 {
            classDefinitions[words[1]] = words[2]
        } else if words.first == "class", words.count == 3 {
            let members = words[1].split(separator: ",").map(String.init)
            guard members.allSatisfy(Self.isNodeID) else { throw Malformed(line: original) }
            classes[words[2], default: []] += members
        } else if let node = Self.node(line) {
            guard !nodes.contains(where: { $0.id == node.id }) else { throw Malformed(line: original) }
            nodes.append(node)
        } else if let edge = Self.edge(line), nodes.contains(where: { $0.id == edge.from }),
            nodes.contains(where: { $0.id == edge.to })
        {
            edges.append(edge)
        } else {
            throw Malformed(line: original)
        }
    }

    private static func isNodeID(_ text: some StringProtocol) -> Bool {
        text.first == "n" && text.count > 1 && text.dropFirst().allSatisfy(\.isNumber)
    }

    private static func node(_ line: String) -> Node? {
        guard let open = line.firstIndex(where: { $0 == "[" || $0 == "(" }) else { return nil }
        let id = line[..<open]
        let rounded = line[open] == "("
        let (start, end) = rounded ? ("(\"", "\")") : ("[\"", "\"]")
        let rest = line[open...]
        guard isNodeID(id), rest.hasPrefix(start), rest.hasSuffix(end), rest.count >= 4 else { return nil }
        let label = rest.dropFirst(2).dropLast(2)
        // A raw quote or markup character would end or break the label in Mermaid.
        let raw = String(label).replacingOccurrences(of: "<br/>", with: "")
        guard !raw.contains(where: { "\"<>|".contains($0) }) else { return nil }
        let lines = label.components(separatedBy: "<br/>").map(unescaped)
        return Node(id: String(id), rounded: rounded, lines: lines)
    }

    private static func edge(_ line: String) -> Edge? {
        let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
        guard parts.count == 2, isNodeID(parts[0]), let lastSpace = parts[1].lastIndex(of: " ") else { return nil }
        let to = String(parts[1][parts[1].index(after: lastSpace)...])
        var arrow = String(parts[1][..<lastSpace])
        var label: String?
        if let bar = arrow.firstIndex(of: "|") {
            let text = arrow[arrow.index(after: bar)...]
            guard text.count >= 1, text.last == "|", !text.dropLast().contains("|") else { return nil }
            label = unescaped(String(text.dropLast()))
            arrow = String(arrow[..<bar])
        }
        guard ["-->", "-.->", "==>"].contains(arrow), isNodeID(to) else { return nil }
        return Edge(from: parts[0], to: to, arrow: arrow, label: label)
    }

    /// `text` with Mermaid's entities (`#quot;`, `#lt;`, `#gt;`, `#35;`, `#124;`) read back.
    private static func unescaped(_ text: String) -> String {
        var result = text
        for (entity, character) in [("#quot;", "\""), ("#lt;", "<"), ("#gt;", ">"), ("#124;", "|"), ("#35;", "#")] {
            result = result.replacingOccurrences(of: entity, with: character)
        }
        return result
    }
}

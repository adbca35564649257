// weft-demo: runs every scenario of the seed documents (Swinject's "Injection Patterns" and
// "Circular Dependencies" pages, Resolver's "Cyclic Dependencies" page, ZIKRouter's "Circular
// Dependency" page) with Weft, and says in plain words what got wired to what; then verifies a broken
// container and shows async factories, per-request scopes, a plugin collection and a decorator.
// `weft-demo graph [--dot | --mermaid]` prints the dependency graph of a small shop app instead.
//
// Each section lives in its own file; this file runs them in order and holds the small printing
// helpers they share.

import Weft

let commandLine = Array(CommandLine.arguments.dropFirst())
if commandLine.first == "graph" {
    runGraphCommand(Array(commandLine.dropFirst()))
} else {
    print("Weft demo: the Swinject, Resolver and ZIKRouter seed scenarios, run with Weft")
    print(String(repeating: "=", count: 81))

    do {
        try runInjectionPatternsDemo()
        try runCircularDependenciesDemo()
        try runUnsupportedCycleDemo()
        try runScopesAndErrorsDemo()
        try runResolverSeedDemo()
        try runZIKRouterDemo()
        try runVerificationDemo()
        try await runAsyncScopesDemo()
        try runCollectionsAndDecoratorsDemo()
        print("")
        print("Done: every scenario ran as described.")
    } catch {
        print("")
        print("UNEXPECTED FAILURE - the demo stopped here:")
        printIndented(String(describing: error), indent: "    ")
    }
}

// MARK: - Printing helpers shared by the sections

/// Prints a numbered section title with an underline.
func heading(_ title: String) {
    print("")
    print(title)
    print(String(repeating: "-", count: title.count))
}

/// Prints the title of one scenario inside a section.
func scenario(_ title: String) {
    print("")
    print("* " + title)
}

/// Prints one line of explanation under a scenario.
func say(_ text: String) {
    printIndented(text, indent: "    ")
}

/// Prints `text` with every line indented, wrapping lines longer than `width` at spaces.
func printIndented(_ text: String, indent: String, width: Int = 100) {
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
        var prefix = indent
        var current = ""
        for word in line.split(separator: " ") {
            if !current.isEmpty, prefix.count + current.count + 1 + word.count > width {
                print(prefix + current)
                prefix = indent + "  "  // continuation lines are indented a little more
                current = ""
            }
            current += current.isEmpty ? String(word) : " " + word
        }
        print(prefix + current)
    }
}

/// Says "yes" or "NO", for checks the demo prints.
func yesNo(_ value: Bool) -> String {
    value ? "yes" : "no"
}

/// Counts how often each factory (or callback) ran, so the demo can show that none ran twice.
///
/// Factories are plain (non-`@Sendable`) closures run on the calling thread, so a local class
/// instance is enough; no global state is needed.
final class CallCounter {
    private var counts: [String: Int] = [:]
    private var order: [String] = []

    /// Records one run of `name`.
    func record(_ name: String) {
        if counts[name] == nil { order.append(name) }
        counts[name, default: 0] += 1
    }

    /// How often `name` ran.
    func count(_ name: String) -> Int {
        counts[name, default: 0]
    }

    /// "Parent factory 1x, Child factory 1x", in the order the names first ran.
    var summary: String {
        order.map { name in "\(name) \(counts[name, default: 0])x" }
            .joined(separator: ", ")
    }
}

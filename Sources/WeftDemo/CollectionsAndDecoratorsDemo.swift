// Section 9: a plugin collection built from several registrations, and a decorator that wraps a singleton
// without touching its registration.

import Weft

/// The types of the collections and decorators section.
enum CollectionsAndDecorators {
    /// What the app's plugins do.
    protocol Plugin: AnyObject {
        var name: String { get }
    }

    /// A log every plugin may write to.
    final class Log {
        private(set) var lines: [String] = []

        func write(_ line: String) {
            lines.append(line)
        }
    }

    final class AuditPlugin: Plugin {
        let name = "audit"
        let log: Log

        init(log: Log) {
            self.log = log
        }
    }

    final class MetricsPlugin: Plugin {
        let name = "metrics"
    }

    /// Starts every plugin it is given.
    final class PluginHost {
        let plugins: [any Plugin]

        init(plugins: [any Plugin]) {
            self.plugins = plugins
        }
    }

    /// A store of greetings, registered once.
    protocol Greetings: AnyObject {
        func greeting(for user: String) -> String
    }

    final class PlainGreetings: Greetings {
        func greeting(for user: String) -> String { "Hello, \(user)" }
    }

    /// Wraps any `Greetings` and writes each call to the log.
    final class LoggedGreetings: Greetings {
        let inner: any Greetings
        let log: Log

        init(_ inner: any Greetings, log: Log) {
            self.inner = inner
            self.log = log
        }

        func greeting(for user: String) -> String {
            log.write("greeting(for: \(user))")
            return inner.greeting(for: user)
        }
    }
}

private typealias Plugin = CollectionsAndDecorators.Plugin
private typealias Log = CollectionsAndDecorators.Log
private typealias Greetings = CollectionsAndDecorators.Greetings

/// Shows a list of plugins contributed by a parent and a child container, and a decorated singleton.
func runCollectionsAndDecoratorsDemo() throws {
    heading("9. Collections and decorators")

    scenario("Several registrations contribute to one list of plugins")
    let app = Container()
    app.register(Log.self) { _ in Log() }.inObjectScope(.container)
    app.contribute(to: [any Plugin].self) { r in
        CollectionsAndDecorators.AuditPlugin(log: try r.require(Log.self))
    }
    .inObjectScope(.container)
    let feature = Container(parent: app)
    feature.contribute(to: [any Plugin].self) { _ in CollectionsAndDecorators.MetricsPlugin() }
        .inObjectScope(.transient)
    feature.register(CollectionsAndDecorators.PluginHost.self) { r in
        CollectionsAndDecorators.PluginHost(plugins: try r.require([any Plugin].self))
    }
    let host = try feature.require(CollectionsAndDecorators.PluginHost.self)
    say("The host received: \(host.plugins.map(\.name).joined(separator: ", ")) (the parent's plugin first).")
    let again = try feature.require([any Plugin].self)
    say(
        "Resolved again: the .container audit plugin is the same instance: \(yesNo(again[0] === host.plugins[0])); "
            + "the .transient metrics plugin is new: \(yesNo(again[1] !== host.plugins[1]))."
    )
    app.declareCollection([any Plugin].self, name: "admin")
    say("A declared list nobody contributed to is empty: \(try app.require([any Plugin].self, name: "admin")).")

    scenario("A decorator wraps a registered singleton")
    app.register(Greetings.self) { _ in CollectionsAndDecorators.PlainGreetings() }.inObjectScope(.container)
    app.decorate(Greetings.self) { r, inner in
        CollectionsAndDecorators.LoggedGreetings(inner, log: try r.require(Log.self))
    }
    let greetings = try app.require(Greetings.self)
    say("greeting(for: \"Ada\") says \"\(greetings.greeting(for: "Ada"))\".")
    say("The log, written by the decorator: \(try app.require(Log.self).lines).")
    say("The singleton kept is the decorated one: \(yesNo(greetings === (try app.require(Greetings.self)))).")
    try app.verify()
    say("verify() checked the plugins and the decorator's dependencies: no problems.")
}

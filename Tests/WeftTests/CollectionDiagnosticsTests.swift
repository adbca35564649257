import Foundation
import Testing
import Weft

/// How errors and verification name an element of a collection, which no request spells: which element (its
/// position, `id` or key), of which collection, contributed where; and that a run-time failure comes from
/// resolving the collection.
@Suite struct CollectionDiagnosticsTests {
    protocol Plugin: Sendable {}

    final class Plain: Plugin {}

    struct Broke: Error, CustomStringConvertible {
        var description: String { "out of fuel" }
    }

    @Test func failedElementIsNamedByItsPlaceInTheCollection() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in Plain() }
        container.contribute(to: [any Plugin].self) { _ in throw Broke() }

        let error = try #require(throws: ResolutionError.self) { try container.require([any Plugin].self) }

        #expect(
            error.description == """
                [Weft.factoryFailed] The factory of the 2nd element contributed to Array<Plugin> threw: out of fuel
                Resolution path: Array<Plugin> -> Array<Plugin>#2
                """
        )
    }

    @Test func verificationHintNamesTheCollectionThatFailsAtRunTime() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in throw Broke() }

        let problem = try #require(container.verificationReport().problems.first)

        #expect(problem.kind == .buildFailed)
        #expect(problem.message == "The factory of the 1st element contributed to Array<Plugin> threw: out of fuel")
        #expect(
            problem.hint
                == "Fix what the factory throws for; resolving Array<Plugin>, which makes it, at run time fails the same way."
        )
    }

    @Test func elementWithAnIdAndAMapElementAreNamedByIdAndKey() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self, name: "extra", id: "audit") { _ in throw Broke() }
        container.contribute(to: [String: any Plugin].self, key: "users") { _ in throw Broke() }

        let list = try #require(throws: ResolutionError.self) {
            try container.require([any Plugin].self, name: "extra")
        }
        let map = try #require(throws: ResolutionError.self) { try container.require([String: any Plugin].self) }

        #expect(
            list.description.hasPrefix(
                #"[Weft.factoryFailed] The factory of the element "audit" contributed to Array<Plugin>["extra"] threw"#)
        )
        #expect(
            map.description.hasPrefix(
                #"[Weft.factoryFailed] The factory of the element for key "users" of Dictionary<String, Plugin> threw"#)
        )
    }

    @Test func elementOfAChildIsToldApartFromTheParentsElementOfTheSamePosition() throws {
        let parent = Container()
        parent.contribute(to: [any Plugin].self) { _ in Plain() }
        let child = Container(parent: parent)
        child.contribute(to: [any Plugin].self) { _ in throw Broke() }

        let error = try #require(throws: ResolutionError.self) { try child.require([any Plugin].self) }

        #expect(
            error.description.hasPrefix(
                "[Weft.factoryFailed] The factory of the 1st element contributed to Array<Plugin> in a child container threw"
            ))
    }

    @Test func missingElementTypeDoesNotSuggestTheElements() throws {
        let container = Container()
        container.contribute(to: [any Plugin].self) { _ in Plain() }

        let error = try #require(throws: ResolutionError.self) { try container.require((any Plugin).self) }

        #expect(error.reason == .missingRegistration)
        #expect(error.suggestions.isEmpty)
    }

    final class Host: Sendable {
        let plugins: [any Plugin]
        init(plugins: [any Plugin]) { self.plugins = plugins }
    }

    final class HostPlugin: Plugin {
        let host: Host
        init(host: Host) { self.host = host }
    }

    final class Session: Sendable {}

    @Test func aCycleThroughAnElementTellsWhichElementToChange() throws {
        let container = Container()
        container.register(Host.self) { r in Host(plugins: try r.require([any Plugin].self)) }
        container.contribute(to: [any Plugin].self) { r in HostPlugin(host: try r.require(Host.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Host.self) }

        #expect(error.path == ["Host", "Array<Plugin>", "Array<Plugin>#1", "Host"])
        #expect(
            error.description.contains(
                "or let the 1st element contributed to Array<Plugin> take Lazy<Host> or Provider<Host>."))
    }

    @Test func aCaptiveElementIsNamedInWordsAsTheHolderToChange() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.scoped)
        container.contribute(to: [any Plugin].self, id: "audit") { r in
            _ = try r.require(Session.self)
            return Plain()
        }
        .inObjectScope(.container)
        let scope = container.makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require([any Plugin].self) }

        #expect(error.reason == .captiveDependency)
        #expect(
            error.description.hasPrefix(
                "[Weft.captiveDependency] The element \"audit\" contributed to Array<Plugin> is kept beyond one scope"))
        #expect(error.description.contains("Make the element \"audit\" contributed to Array<Plugin> .scoped"))
        #expect(error.path == ["Array<Plugin>", "Array<Plugin>#audit", "Session"])
    }
}

import Foundation
import Testing
import Weft

/// What a dependency graph prints (its counts and roots) and how the exports draw scopes that are not custom:
/// `.scoped` in a style of its own, `.cached` as the singleton it is.
@Suite struct GraphSummaryTests {
    final class Engine {}

    final class Car {
        init(engine: Engine) {}
    }

    final class Garage {
        init(car: Car) {}
    }

    final class Radio {}

    final class Dashboard {
        init(radio: Radio) {}
    }

    final class Metrics {}

    static let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

    @Test func graphPrintsItsCountsItsRootsAndWhatIsNotRegistered() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
        container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }
        container.register(Radio.self) { _ in Radio() }
        container.register(Dashboard.self) { r in
            _ = r.resolve(Metrics.self)
            return Dashboard(radio: try r.require(Radio.self))
        }

        let graph = container.dependencyGraph()

        #expect(
            graph.description
                == "DependencyGraph: 5 registrations, 1 not registered (Metrics), 4 dependencies; roots: Dashboard, Garage"
        )
    }

    @Test func graphOfOneServicePrintsItAsItsRoot() {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }

        #expect(
            container.dependencyGraph().description == "DependencyGraph: 1 registration, 0 dependencies; roots: Engine")
    }

    @Test func emptyGraphSaysSo() {
        #expect(Container().dependencyGraph().description == "DependencyGraph: no registrations")
    }

    @Test func manyRootsAreCountedAfterTheFirstFew() {
        let container = Container()
        for index in 1...8 { container.register(Engine.self, name: "e\(index)") { _ in Engine() } }

        #expect(
            container.dependencyGraph().description
                == #"DependencyGraph: 8 registrations, 0 dependencies; roots: Engine["e1"], Engine["e2"], "#
                + #"Engine["e3"], Engine["e4"], Engine["e5"] and 3 more"#)
    }

    @Test func nodePrintsItsLabelAndScope() throws {
        let container = Container()
        container.register(Engine.self, name: "v8") { _ in Engine() }.inObjectScope(.container)
        container.register(Car.self) { r in
            _ = r.resolve(Metrics.self)
            return Car(engine: try r.require(Engine.self, name: "v8"))
        }
        let graph = container.dependencyGraph()

        #expect(try #require(graph.node(for: Engine.self, name: "v8")).description == #"Engine["v8"] (.container)"#)
        #expect(try #require(graph.node(for: Car.self)).description == "Car (.graph)")
        #expect(try #require(graph.node(for: Metrics.self)).description == "Metrics (not registered)")
    }

    // MARK: Scope styles in the exports

    private func scopedGraph() -> DependencyGraph {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }.inObjectScope(.scoped)
        container.register(Car.self) { _ in Car(engine: Engine()) }.inObjectScope(.cached)
        container.register(Radio.self) { _ in Radio() }.inObjectScope(Self.session)
        return container.dependencyGraph()
    }

    @Test func dotDrawsScopedInItsOwnColourAndCachedAsASingleton() {
        let dot = scopedGraph().dot

        #expect(dot.contains(##"n0 [label="Car\n.cached", fillcolor="#dbeafe"];"##))
        #expect(dot.contains(##"n1 [label="Engine\n.scoped", fillcolor="#dcfce7"];"##))
        #expect(dot.contains(##"n2 [label="Radio\n.session", fillcolor="#ede9fe"];"##))
    }

    @Test func mermaidGivesScopedAClassOfItsOwn() {
        let mermaid = scopedGraph().mermaid

        #expect(mermaid.contains("    classDef scopeScoped fill:#dcfce7,stroke:#166534\n"))
        #expect(mermaid.contains("    class n1 scopeScoped\n"))
        #expect(mermaid.contains("    class n0 scopeContainer\n"))
        #expect(mermaid.contains("    class n2 scopeCustom\n"))
    }
}

import Testing
import Weft

/// `declareCollection` for collections resolved with runtime arguments: declared, an empty one is an answer
/// (`[]`, `[:]`), as for a collection without arguments; undeclared and empty, it is missing.
@Suite struct DeclaredArgumentCollectionTests {
    protocol Plugin: Sendable { var id: String { get } }

    struct Named: Plugin {
        let id: String
    }

    struct Config: Sendable {
        let prefix: String
    }

    @Test func declaredListWithAnArgumentResolvesToEmpty() throws {
        let container = Container()
        container.declareCollection([any Plugin].self, arguments: Config.self)

        #expect(try container.require([any Plugin].self, argument: Config(prefix: "x")).isEmpty)
    }

    @Test func declaredListWithTwoArgumentsResolvesToEmptyFromSyncAndAsyncCode() async throws {
        let container = Container()
        container.declareCollection([any Plugin].self, name: "n", arguments: Config.self, Int.self)

        let config = Config(prefix: "x")
        #expect(try container.require([any Plugin].self, name: "n", arguments: config, 1).isEmpty)
        #expect(try await container.async.require([any Plugin].self, name: "n", arguments: config, 1).isEmpty)
    }

    @Test func declaredMapWithAnArgumentResolvesToEmpty() throws {
        let container = Container()
        container.declareCollection([String: any Plugin].self, arguments: Config.self)

        #expect(try container.require([String: any Plugin].self, argument: Config(prefix: "x")).isEmpty)
    }

    @Test func elementsContributedAfterDeclaringAreResolvedWithTheArguments() throws {
        let container = Container()
        container.declareCollection([any Plugin].self, arguments: Config.self)
        container.contribute(to: [any Plugin].self) { (_, config: Config) in Named(id: config.prefix + "a") }
        container.declareCollection([any Plugin].self, arguments: Config.self)

        #expect(try container.require([any Plugin].self, argument: Config(prefix: "x-")).map(\.id) == ["x-a"])
    }

    @Test func declaringWithArgumentsLeavesTheListWithOtherArgumentsMissing() {
        let container = Container()
        container.declareCollection([any Plugin].self, arguments: Config.self)

        #expect(throws: ResolutionError.self) { try container.require([any Plugin].self) }
        #expect(throws: ResolutionError.self) { try container.require([any Plugin].self, argument: 1) }
    }

    @Test func childSeesItsParentsDeclaredListWithArguments() throws {
        let parent = Container()
        parent.declareCollection([any Plugin].self, arguments: Config.self)
        let child = Container(parent: parent)

        #expect(try child.require([any Plugin].self, argument: Config(prefix: "x")).isEmpty)
    }
}

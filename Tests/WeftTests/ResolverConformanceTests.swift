import Testing
import Weft

/// A resolver of the user's own (a test double handed to code that takes `any Resolver`) implements the
/// four requirements; every other spelling, `require(_:name:)` included, reaches them.
@Suite struct ResolverConformanceTests {
    final class Engine: Sendable {
        let name: String
        init(name: String) { self.name = name }
    }

    struct NotStubbed: Error {}

    /// Hands out one stubbed engine and records what was asked for.
    final class StubResolver: Resolver, @unchecked Sendable {
        var asked: [String] = []

        func resolve<Service>(_ serviceType: Service.Type) -> Service? {
            resolve(serviceType, name: nil)
        }

        func resolve<Service>(_ serviceType: Service.Type, name: String?) -> Service? {
            try? require(serviceType, name: name)
        }

        func resolve<Service, each Argument>(
            _ serviceType: Service.Type,
            name: String?,
            arguments: repeat each Argument
        ) -> Service? {
            try? require(serviceType, name: name, arguments: repeat each arguments)
        }

        func require<Service, each Argument>(
            _ serviceType: Service.Type,
            name: String?,
            arguments: repeat each Argument
        ) throws -> Service {
            asked.append("\(Service.self) \(name ?? "-")")
            guard let engine = Engine(name: name ?? "stub") as? Service else { throw NotStubbed() }
            return engine
        }
    }

    @Test func requireOnAResolverOfTheUsersOwnReachesItsPackRequirement() throws {
        let stub = StubResolver()
        let resolver: any Resolver = stub
        #expect(try resolver.require(Engine.self).name == "stub")
        #expect(try resolver.require(Engine.self, name: "v8").name == "v8")
        #expect(throws: NotStubbed.self) { try resolver.require(Int.self) }
        #expect(resolver.resolve(Engine.self)?.name == "stub")
        #expect(stub.asked == ["Engine -", "Engine v8", "Int -", "Engine -"])
    }

    @Test func requireOnTheContainerThrowsWhatResolveReportsAsNil() throws {
        let container = Container()
        container.register(Engine.self, name: "v8") { _ in Engine(name: "v8") }
        let resolver: any Resolver = container
        #expect(try resolver.require(Engine.self, name: "v8").name == "v8")
        #expect(resolver.resolve(Engine.self) == nil)
        let error = try #require(throws: ResolutionError.self) { try resolver.require(Engine.self) }
        #expect(error.reason == .missingRegistration)
    }
}

import Testing
import Weft

/// `decorate`: wrapping a registered service without touching its registration.
@Suite struct DecoratorTests {
    protocol Repository: AnyObject { var trail: [String] { get } }

    final class SQLRepository: Repository {
        var trail: [String] { ["sql"] }
    }

    final class Wrapper: Repository {
        let inner: any Repository
        let tag: String
        init(_ inner: any Repository, tag: String) {
            self.inner = inner
            self.tag = tag
        }
        var trail: [String] { inner.trail + [tag] }
    }

    final class Log {}

    final class LoggingRepository: Repository {
        let inner: any Repository
        let log: Log
        init(_ inner: any Repository, log: Log) {
            self.inner = inner
            self.log = log
        }
        var trail: [String] { inner.trail + ["logging"] }
    }

    @Test func decoratorWrapsEveryResolutionInDeclarationOrder() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.transient)
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "first") }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "second") }

        #expect(try container.require(Repository.self).trail == ["sql", "first", "second"])
        #expect(container.resolve(Repository.self)?.trail == ["sql", "first", "second"])
    }

    @Test func decoratedSingletonIsDecoratedOnceAndKept() throws {
        let container = Container()
        let decorated = Counter()
        container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        container.decorate(Repository.self) { _, inner in
            decorated.increment()
            return Wrapper(inner, tag: "kept")
        }

        let first = try container.require(Repository.self)
        let second = try container.require(Repository.self)
        #expect(first === second)
        #expect(first is Wrapper)
        #expect(decorated.value == 1)
    }

    @Test func decoratorResolvesItsDependenciesThroughTheResolver() throws {
        let container = Container()
        container.register(Log.self) { _ in Log() }.inObjectScope(.container)
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { r, inner in LoggingRepository(inner, log: try r.require(Log.self)) }

        let repository = try #require(try container.require(Repository.self) as? LoggingRepository)
        #expect(repository.log === (try container.require(Log.self)))
    }

    @Test func decoratorReceivesTheInstanceItDecoratesWithoutACycle() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.graph)
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "outer") }

        #expect(try container.require(Repository.self).trail == ["sql", "outer"])
    }

    @Test func decoratorDeclaredBeforeTheRegistrationAppliesToIt() throws {
        let container = Container()
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "early") }
        container.register(Repository.self) { _ in SQLRepository() }

        #expect(try container.require(Repository.self).trail == ["sql", "early"])
    }

    @Test func decoratorKeepsApplyingWhenTheRegistrationIsReplaced() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "a") }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "b") }
        container.register(Repository.self) { _ in Wrapper(SQLRepository(), tag: "replacement") }

        #expect(try container.require(Repository.self).trail == ["sql", "replacement", "a", "b"])
    }

    @Test func namedDecoratorAppliesOnlyToItsName() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.register(Repository.self, name: "audited") { _ in SQLRepository() }
        container.decorate(Repository.self, name: "audited") { _, inner in Wrapper(inner, tag: "audit") }

        #expect(try container.require(Repository.self).trail == ["sql"])
        #expect(try container.require(Repository.self, name: "audited").trail == ["sql", "audit"])
    }

    @Test func childDecoratesAParentRegistrationForItselfOnly() throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        parent.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "parent") }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "child") }

        #expect(try parent.require(Repository.self).trail == ["sql", "parent"])
        #expect(try child.require(Repository.self).trail == ["sql", "parent", "child"])
        #expect(try child.require(Repository.self) === (try child.require(Repository.self)))
    }

    @Test func initCompletedReceivesTheDecoratedInstance() throws {
        let container = Container()
        let seen = Collected<String>()
        container.register(Repository.self) { _ in SQLRepository() }
            .initCompleted { _, repository in seen.append(repository.trail.joined(separator: ",")) }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "wrapped") }

        _ = try container.require(Repository.self)
        #expect(seen.values == ["sql,wrapped"])
    }

    @Test func throwingDecoratorFailsTheResolve() throws {
        struct Refused: Error {}
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, _ in throw Refused() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Repository.self) }
        #expect(error.reason == .factoryFailed)
        #expect(container.resolve(Repository.self) == nil)
    }

    @Test func asyncRegistrationIsDecoratedToo() async throws {
        let container = Container()
        container.register(Repository.self) { (_: AsyncResolver) async in SQLRepository() }
        container.decorate(Repository.self) { _, inner in Wrapper(inner, tag: "async") }

        #expect(try await container.async.require(Repository.self).trail == ["sql", "async"])
    }

    @Test func decoratorWithInferredTypeDecoratesThatType() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate { (_, inner: any Repository) in Wrapper(inner, tag: "inferred") }

        #expect(try container.require(Repository.self).trail == ["sql", "inferred"])
    }
}

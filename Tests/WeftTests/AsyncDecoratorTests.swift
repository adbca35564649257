import Testing
import Weft

/// `decorate` with an `async` closure: applied to resolves from async code, in declaration order with the
/// synchronous decorators; a synchronous resolve that would have to run it fails with `requiresAsync`.
@Suite struct AsyncDecoratorTests {
    protocol Repository: AnyObject { var trail: [String] { get } }

    final class SQLRepository: Repository {
        let id: String
        init(_ id: String = "sql") { self.id = id }
        var trail: [String] { [id] }
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

    final class Cache {
        let tag: String
        init(_ tag: String) { self.tag = tag }
    }

    final class Consumer {
        let repository: any Repository
        init(_ repository: any Repository) { self.repository = repository }
    }

    @Test func asyncDecoratorWrapsAnAsyncResolve() async throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        #expect(try await container.async.require(Repository.self).trail == ["sql", "async"])
    }

    @Test func asyncDecoratorAwaitsItsDependencies() async throws {
        let container = Container()
        container.register(Cache.self) { _ in
            await Task.yield()
            return Cache("remote")
        }
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { r, inner in Wrapper(inner, tag: try await r.require(Cache.self).tag) }

        #expect(try await container.async.require(Repository.self).trail == ["sql", "remote"])
    }

    @Test func containerServiceWithAnAsyncDecoratorIsDecoratedOnceAndKept() async throws {
        let container = Container()
        let decorated = Counter()
        container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
        container.decorate(Repository.self) { _, inner in
            decorated.increment()
            await Task.yield()
            return Wrapper(inner, tag: "kept")
        }

        let first = try await container.async.require(Repository.self)
        let second = try await container.async.require(Repository.self)
        #expect(first === second)
        #expect(first is Wrapper)
        #expect(decorated.value == 1)
        // A synchronous resolve returns the decorated instance the async one kept.
        #expect(try container.require(Repository.self) === first)
    }

    @Test func synchronousResolveOfAServiceWithAnAsyncDecoratorFailsWithRequiresAsync() throws {
        let container = Container()
        let made = Counter()
        container.register(Repository.self) { _ in
            made.increment()
            return SQLRepository()
        }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(Repository.self) }
        #expect(error.reason == .requiresAsync)
        #expect(container.resolve(Repository.self) == nil)
        #expect(made.value == 0)
    }

    @Test func synchronousThenAsyncDecoratorsApplyInDeclarationOrder() async throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { (_: any Resolver, inner: any Repository) in Wrapper(inner, tag: "first") }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "second")
        }
        container.decorate(Repository.self) { (_: any Resolver, inner: any Repository) in Wrapper(inner, tag: "third") }

        let trail = try await container.async.require(Repository.self).trail
        #expect(trail == ["sql", "first", "second", "third"])
    }

    @Test func asyncDecoratorWrapsAnAsyncRegistration() async throws {
        let container = Container()
        container.register(Repository.self) { _ in
            await Task.yield()
            return SQLRepository("remote")
        }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        #expect(try await container.async.require(Repository.self).trail == ["remote", "async"])
    }

    @Test func asyncFactoryReceivesTheDecoratedDependency() async throws {
        let container = Container()
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }
        container.register(Repository.self) { _ in SQLRepository() }
        container.register(Consumer.self) { r in Consumer(try await r.require(Repository.self)) }

        let consumer = try await container.async.require(Consumer.self)
        #expect(consumer.repository.trail == ["sql", "async"])
    }

    @Test func asyncDecoratorAppliesToItsNameOnly() async throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.register(Repository.self, name: "admin") { _ in SQLRepository("admin") }
        container.decorate(Repository.self, name: "admin") { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        #expect(try await container.async.require(Repository.self, name: "admin").trail == ["admin", "async"])
        #expect(try container.require(Repository.self).trail == ["sql"])
    }

    @Test func childsAsyncDecoratorLeavesTheParentUndecorated() async throws {
        let parent = Container()
        parent.register(Repository.self) { _ in SQLRepository() }
        let child = Container(parent: parent)
        child.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "child")
        }

        #expect(try await child.async.require(Repository.self).trail == ["sql", "child"])
        #expect(try parent.require(Repository.self).trail == ["sql"])
    }

    @Test func asyncDecoratorWrapsARegistrationWithRuntimeArguments() async throws {
        let container = Container()
        container.register(Repository.self) { (_, id: String) in SQLRepository(id) }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        let repository = try await container.async.require(Repository.self, arguments: "users")
        #expect(repository.trail == ["users", "async"])
        let error = try #require(throws: ResolutionError.self) {
            try container.require(Repository.self, argument: "users")
        }
        #expect(error.reason == .requiresAsync)
    }

    @Test func asyncDecoratorOfAForwardedTypeWrapsItsResolvesOnly() async throws {
        let container = Container()
        container.register(SQLRepository.self) { _ in SQLRepository() }.implements(Repository.self)
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        #expect(try await container.async.require(Repository.self).trail == ["sql", "async"])
        #expect(try container.require(SQLRepository.self).trail == ["sql"])
    }

    @Test func asyncVerifyReportsAMissingDependencyOfAnAsyncDecorator() async throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { r, inner in Wrapper(inner, tag: try await r.require(Cache.self).tag) }

        let report = await container.async.verificationReport()
        #expect(report.problems(ofKind: .missingRegistration).count == 1)
        await #expect(throws: VerificationReport.self) { try await container.async.verify() }
    }

    @Test func synchronousVerifyListsAServiceWithAnAsyncDecoratorAsUnchecked() throws {
        let container = Container()
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { _, inner in
            await Task.yield()
            return Wrapper(inner, tag: "async")
        }

        let report = container.verificationReport()
        #expect(report.problems.isEmpty)
        #expect(report.unchecked.count == 1)
    }

    @Test func asyncDependencyGraphDrawsTheAsyncDecoratorsDependencies() async throws {
        let container = Container()
        container.register(Cache.self) { _ in Cache("remote") }
        container.register(Repository.self) { _ in SQLRepository() }
        container.decorate(Repository.self) { r, inner in Wrapper(inner, tag: try await r.require(Cache.self).tag) }

        let graph = await container.async.dependencyGraph()

        let repository = try #require(graph.node(for: Repository.self))
        let cache = try #require(graph.node(for: Cache.self)).id
        #expect(repository.decoratorCount == 1)
        #expect(graph.dependencies(of: repository.id) == [.init(from: repository.id, to: cache, kind: .initializer)])
    }
}

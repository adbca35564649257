import Foundation
import Testing
import Weft

/// A registration both decorated and forwarded (`register(FileStore.self).implements(Store.self)`, then
/// `decorate(FileStore.self)`): the decorated instance is the service's instance, so a type the registration is
/// forwarded as resolves the same instance as the service itself, in every scope, whatever order the decorator,
/// the forward and the scope were declared in.
@Suite struct ForwardedDecoratedRegistrationTests {
    typealias Store = ForwardedStores.Store
    typealias FileStore = ForwardedStores.FileStore
    typealias Cached = ForwardedStores.Cached
    protocol Gateway: AnyObject, Sendable {}

    /// Needs the service under both types in one object graph.
    final class Pair: Sendable {
        let file: FileStore
        let store: any Store
        init(file: FileStore, store: any Store) { (self.file, self.store) = (file, store) }
    }

    /// A container where `FileStore` is registered in `scope`, forwarded as `Store`, and decorated after both.
    private func decoratedAfterForwarding(_ scope: ObjectScope, made: Counter = Counter()) -> Container {
        let container = Container()
        container.register(FileStore.self) { _ in
            made.increment()
            return FileStore()
        }
        .implements((any Store).self)
        .inObjectScope(scope)
        container.decorate(FileStore.self) { _, inner in inner.with("audited") }
        container.register(Pair.self) { r in
            Pair(file: try r.require(FileStore.self), store: try r.require((any Store).self))
        }
        return container
    }

    @Test func containerScopeKeepsOneDecoratedInstanceForBothTypes() throws {
        let made = Counter()
        let container = decoratedAfterForwarding(.container, made: made)

        let store = try container.require((any Store).self)
        let file = try container.require(FileStore.self)
        #expect(store === file)
        #expect(store.trail == ["file", "audited"])
        #expect(try container.require((any Store).self) === file)
        #expect(made.value == 1)
    }

    @Test func graphScopeSharesTheDecoratedInstanceWithinAGraph() throws {
        let made = Counter()
        let container = decoratedAfterForwarding(.graph, made: made)

        let first = try container.require(Pair.self)
        #expect(first.file === first.store)
        #expect(first.store.trail == ["file", "audited"])
        let second = try container.require(Pair.self)
        #expect(second.file === second.store)
        #expect(second.file !== first.file)
        #expect(made.value == 2)
    }

    @Test func transientScopeDecoratesEveryInstanceOfTheForwardedType() throws {
        let made = Counter()
        let container = decoratedAfterForwarding(.transient, made: made)

        let first = try container.require((any Store).self)
        let second = try container.require((any Store).self)
        #expect(first !== second)
        #expect(first.trail == ["file", "audited"])
        #expect(second.trail == ["file", "audited"])
        #expect(made.value == 2)
    }

    @Test func weakScopeSharesTheDecoratedInstanceWhileItIsHeld() throws {
        let made = Counter()
        let container = decoratedAfterForwarding(.weak, made: made)

        let file = try container.require(FileStore.self)
        let store = try container.require((any Store).self)
        #expect(store === file)
        #expect(file.trail == ["file", "audited"])
        #expect(made.value == 1)
    }

    @Test func scopedScopeSharesTheDecoratedInstanceWithinAScope() throws {
        let made = Counter()
        let container = decoratedAfterForwarding(.scoped, made: made)

        let scope = container.makeScope()
        let file = try scope.require(FileStore.self)
        #expect(try scope.require((any Store).self) === file)
        #expect(file.trail == ["file", "audited"])
        let other = container.makeScope()
        let otherStore = try other.require((any Store).self)
        #expect(otherStore !== file)
        #expect(try other.require(FileStore.self) === otherStore)
        #expect(made.value == 2)
    }

    @Test func forwardDeclaredAfterTheDecoratorResolvesTheDecoratedInstance() throws {
        let viaImplements = Container()
        let entry = viaImplements.register(FileStore.self) { _ in FileStore() }
        viaImplements.decorate(FileStore.self) { _, inner in inner.with("audited") }
        entry.implements((any Store).self).inObjectScope(.container)
        let viaForward = Container()
        let forwarded = viaForward.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        viaForward.decorate(FileStore.self) { _, inner in inner.with("audited") }
        viaForward.forward((any Store).self, to: forwarded)

        for container in [viaImplements, viaForward] {
            let store = try container.require((any Store).self)
            #expect(store === (try container.require(FileStore.self)))
            #expect(store.trail == ["file", "audited"])
        }
    }

    @Test func severalDecoratorsDeclaredAfterTheForwardAllApplyToTheSharedInstance() throws {
        let container = Container()
        let entry = container.register(FileStore.self) { _ in FileStore() }.implements((any Store).self)
        container.decorate(FileStore.self) { _, inner in inner.with("first") }
        container.decorate(FileStore.self) { _, inner in inner.with("second") }
        entry.inObjectScope(.container)

        let store = try container.require((any Store).self)
        #expect(store === (try container.require(FileStore.self)))
        #expect(store.trail == ["file", "first", "second"])
    }

    @Test func initCompletedRunsOnceOnTheDecoratedInstanceForBothTypes() throws {
        let container = Container()
        let seen = Collected<[String]>()
        let entry = container.register(FileStore.self) { _ in FileStore() }
            .implements((any Store).self)
            .inObjectScope(.container)
            .initCompleted { _, store in seen.append(store.trail) }
        container.decorate(FileStore.self) { _, inner in inner.with("audited") }
        entry.initCompleted { _, store in seen.append(store.trail + ["late"]) }

        _ = try container.require((any Store).self)
        _ = try container.require(FileStore.self)
        _ = try container.require((any Store).self)
        #expect(seen.values == [["file", "audited"], ["file", "audited", "late"]])
    }

    @Test func decoratorOfTheForwardedTypeWrapsTheDecoratedInstance() throws {
        let before = Container()
        before.decorate((any Store).self) { _, inner in Cached(inner) }
        before.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        before.decorate(FileStore.self) { _, inner in inner.with("audited") }
        let after = Container()
        let entry = after.register(FileStore.self) { _ in FileStore() }.inObjectScope(.container)
        after.decorate(FileStore.self) { _, inner in inner.with("audited") }
        entry.implements((any Store).self)
        after.decorate((any Store).self) { _, inner in Cached(inner) }

        for container in [before, after] {
            let store = try #require(try container.require((any Store).self) as? Cached)
            let file = try container.require(FileStore.self)
            #expect(store.inner === file)
            #expect(store.trail == ["file", "audited", "cached"])
            #expect(file.trail == ["file", "audited"])
            #expect(try container.require((any Store).self) === store)
        }
    }

    @Test func forwardedRegistrationWithArgumentsResolvesTheDecoratedInstance() throws {
        let container = Container()
        container.register(FileStore.self) { (_, path: String) in FileStore([path]) }
            .implements((any Store).self)
            .inObjectScope(.container)
        container.decorate(FileStore.self) { _, inner in inner.with("audited") }

        let store = try container.require((any Store).self, argument: "/tmp")
        #expect(store === (try container.require(FileStore.self, argument: "/tmp")))
        #expect(store.trail == ["/tmp", "audited"])
    }

    @Test func asyncForwardedRegistrationResolvesTheDecoratedInstance() async throws {
        let container = Container()
        container.register(FileStore.self) { _ in
            await Task.yield()
            return FileStore()
        }
        .implements((any Store).self)
        .inObjectScope(.container)
        container.decorate(FileStore.self) { _, inner in
            await Task.yield()
            return inner.with("audited")
        }

        let store = try await container.async.require((any Store).self)
        #expect(store === (try await container.async.require(FileStore.self)))
        #expect(store.trail == ["file", "audited"])
    }

    @Test func decoratorResultThatIsNotTheForwardedTypeFailsTheForwardedResolve() throws {
        final class HTTPGateway: Gateway, Store {
            let trail = ["http"]
        }
        final class LoggedGateway: Gateway {
            let inner: any Gateway
            init(_ inner: any Gateway) { self.inner = inner }
        }
        let container = Container()
        container.register((any Gateway).self) { _ in HTTPGateway() }.implements((any Store).self)
        container.decorate((any Gateway).self) { _, inner in LoggedGateway(inner) }

        // The forwarded type would get the decorated instance, which is no `Store`: said, not papered over with
        // an undecorated instance of its own.
        let error = try #require(throws: ResolutionError.self) { try container.require((any Store).self) }
        #expect(error.reason == .typeMismatch)
        #expect(error.description.contains("LoggedGateway"))
        #expect(try container.require((any Gateway).self) is LoggedGateway)
    }

    @Test func verifyAndTheGraphShowOneDecoratedRegistrationForBothTypes() throws {
        let container = decoratedAfterForwarding(.container)

        try container.verify()
        let graph = container.dependencyGraph()
        let file = try #require(graph.node(for: FileStore.self))
        #expect(file.decoratorCount == 1)
        #expect(file.forwardedTypes == ["Store"])
        let pair = try #require(graph.node(for: Pair.self))
        #expect(Set(graph.dependencies(of: pair.id).map(\.to)) == [file.id])
        #expect(graph.dot.contains("also: Store"))
        #expect(graph.dot.contains("decorated"))
    }

    @Test func removeAllForgetsTheCopyAForwardWouldResolve() throws {
        let container = Container()
        let entry = container.register(FileStore.self) { _ in FileStore() }
        container.decorate(FileStore.self) { _, inner in inner.with("audited") }
        container.removeAll()
        entry.implements((any Store).self)

        // The registration is gone; the forward made afterwards resolves it as registered (and decorated, as a
        // registration made after the decorator).
        #expect(throws: ResolutionError.self) { try container.require(FileStore.self) }
        #expect(try container.require((any Store).self).trail == ["file"])
    }

    @Test func decoratorThatResolvesTheForwardedTypeIsTheCycleItIs() throws {
        // `Store` resolves the registration being decorated: asking for it from the decorator asks for the
        // service again (`inner` is the instance it decorates).
        let container = Container()
        container.register(FileStore.self) { _ in FileStore() }.implements((any Store).self)
        container.decorate(FileStore.self) { r, inner in inner.with("\(try r.require((any Store).self).trail)") }

        let error = try #require(throws: ResolutionError.self) { try container.require(FileStore.self) }
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["FileStore", "Store"])
    }

    @Test func cycleThroughTheForwardedTypeIsReportedWithEveryStep() throws {
        final class Reader: Sendable {
            init(store: any Store) {}
        }
        let container = Container()
        container.register(Reader.self) { r in Reader(store: try r.require((any Store).self)) }
        container.register(FileStore.self) { r in
            _ = try r.require(Reader.self)
            return FileStore()
        }
        .implements((any Store).self)
        container.decorate(FileStore.self) { _, inner in inner.with("audited") }

        let error = try #require(throws: ResolutionError.self) { try container.require((any Store).self) }
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Store", "Reader", "Store"])
    }

    @Test func missingDependencyOfTheDecoratorIsReportedThroughTheForwardedType() throws {
        final class Log: Sendable {}
        let container = Container()
        container.register(FileStore.self) { _ in FileStore() }.implements((any Store).self)
        container.decorate(FileStore.self) { r, inner in
            _ = try r.require(Log.self)
            return inner.with("logged")
        }

        let error = try #require(throws: ResolutionError.self) { try container.require((any Store).self) }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Store", "Log"])
        let missing = container.verificationReport().problems(ofKind: .missingRegistration)
        #expect(!missing.isEmpty)
        #expect(missing.allSatisfy { $0.path.last == "Log" })
    }

    @Test @MainActor func mainActorDecoratorAppliesToTheForwardedType() throws {
        let container = Container()
        container.register(FileStore.self) { _ in FileStore() }.implements((any Store).self).inObjectScope(.container)
        container.decorate(FileStore.self) { @MainActor _, inner in
            MainActor.assertIsolated()
            return inner.with("main")
        }

        let store = try container.require((any Store).self)
        #expect(store === (try container.require(FileStore.self)))
        #expect(store.trail == ["file", "main"])
    }
}

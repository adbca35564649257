import Foundation
import Testing

@testable import Weft

@Suite struct AsyncResolutionTests {
    /// A shop whose factories suspend (`Task.yield`) between resolving their dependencies.
    private func shop(storageScope: ObjectScope = .graph, made: Counter) -> Container {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            made.increment()
            return DiskStorage()
        }.inObjectScope(storageScope)
        container.register((any Catalog).self) { r in
            await Task.yield()
            return RemoteCatalog(storage: try await r.require((any Storage).self))
        }
        container.register((any Checkout).self) { r in
            let catalog = try await r.require((any Catalog).self)
            await Task.yield()
            return ShopCheckout(catalog: catalog, storage: try await r.require((any Storage).self))
        }
        return container
    }

    @Test func asyncFactoryIsResolvedWithAwait() async throws {
        let made = Counter()
        let checkout = try await shop(made: made).async.require((any Checkout).self)
        #expect(checkout.catalog.storage === checkout.storage)
    }

    @Test func graphScopeSharesInstancesAcrossSuspensionPoints() async throws {
        let made = Counter()
        let container = shop(made: made)
        let first = try await container.async.require((any Checkout).self)
        #expect(first.catalog.storage === first.storage)
        #expect(made.value == 1)
        let second = try await container.async.require((any Checkout).self)
        #expect(second.storage !== first.storage)
        #expect(made.value == 2)
    }

    @Test func graphScopeIsSharedBetweenConcurrentChildTasksOfOneFactory() async throws {
        let made = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            try await Task.sleep(nanoseconds: 20_000_000)
            made.increment()
            return DiskStorage()
        }
        container.register((any Checkout).self) { r in
            async let catalog = RemoteCatalog(storage: try await r.require((any Storage).self))
            async let storage = r.require((any Storage).self)
            return ShopCheckout(catalog: try await catalog, storage: try await storage)
        }
        let checkout = try await container.async.require((any Checkout).self)
        #expect(checkout.catalog.storage === checkout.storage)
        #expect(made.value == 1)
    }

    @Test func aChildTaskWaitingForAFailedGraphBuildMakesTheInstanceItself() async throws {
        let attempts = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            guard attempts.increment() > 1 else {
                try await Task.sleep(nanoseconds: 20_000_000)
                throw Failure(code: 1)
            }
            return DiskStorage()
        }
        container.register([any Storage].self) { r in
            async let first = try? r.require((any Storage).self)
            async let second = try? r.require((any Storage).self)
            return [await first, await second].compactMap { $0 }
        }
        let made = try await container.async.require([any Storage].self)
        #expect(made.count == 1)
        #expect(attempts.value == 2)
    }

    @Test func synchronousFactoriesJoinTheAsyncGraph() async throws {
        let made = Counter()
        let container = Container()
        // Synchronous, graph-scoped, and not kept by what uses it: still one per graph.
        container.register((any Storage).self) { _ in
            made.increment()
            return DiskStorage()
        }
        container.register(String.self) { r in
            _ = try r.require((any Storage).self)
            return "label"
        }
        container.register((any Checkout).self) { r in
            let label = try await r.require(String.self)
            await Task.yield()
            let storage = try await r.require((any Storage).self)
            #expect(label == "label")
            return ShopCheckout(catalog: RemoteCatalog(storage: storage), storage: storage)
        }
        _ = try await container.async.require((any Checkout).self)
        #expect(made.value == 1)
    }

    @Test func containerScopedAsyncServiceIsMadeOnceForManyConcurrentTasks() async throws {
        let made = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            made.increment()
            try await Task.sleep(nanoseconds: 30_000_000)
            return DiskStorage()
        }.inObjectScope(.container)
        let instances = try await withThrowingTaskGroup(of: ObjectIdentifier.self) { group in
            for _ in 0..<50 {
                group.addTask { ObjectIdentifier(try await container.async.require((any Storage).self)) }
            }
            var seen = Set<ObjectIdentifier>()
            for try await instance in group { seen.insert(instance) }
            return seen
        }
        #expect(made.value == 1)
        #expect(instances.count == 1)
    }

    @Test func waitersRetryWhenTheSharedBuildFails() async throws {
        let attempts = Counter()
        let container = Container()
        container.register((any Storage).self) { _ in
            let attempt = attempts.increment()
            try await Task.sleep(nanoseconds: 20_000_000)
            if attempt == 1 { throw Failure(code: 1) }
            return DiskStorage()
        }.inObjectScope(.container)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask { await container.async.resolve((any Storage).self) != nil }
            }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results.filter { !$0 }.count == 1)
        #expect(attempts.value == 2)
    }

    @Test func circularAsyncFactoriesThrowWithThePath() async throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try await r.require(Pong.self)) }
        container.register(Pong.self) { r in Pong(ping: try await r.require(Ping.self)) }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Ping", "Pong", "Ping"])
    }

    @Test func cycleThroughASynchronousFactoryIsACycle() async throws {
        let container = Container()
        container.register(Ping.self) { r in
            await Task.yield()
            return Ping(pong: try await r.require(Pong.self))
        }
        container.register(Pong.self) { r in Pong(ping: try r.require(Ping.self)) }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }
        #expect(error.reason == .circularDependency)
        #expect(error.path == ["Ping", "Pong", "Ping"])
    }

    @Test(hangLimit)
    func sharedServicesWaitingForEachOtherAcrossTasksFailInsteadOfHanging() async throws {
        let container = Container()
        container.register(Ping.self) { r in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Ping(pong: try await r.require(Pong.self))
        }.inObjectScope(.container)
        container.register(Pong.self) { r in
            try await Task.sleep(nanoseconds: 20_000_000)
            return Pong(ping: try await r.require(Ping.self))
        }.inObjectScope(.container)
        async let ping = container.async.resolve(Ping.self)
        async let pong = container.async.resolve(Pong.self)
        let (madePing, madePong) = await (ping, pong)
        #expect(madePing == nil)
        #expect(madePong == nil)
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Ping.self)
        }
        #expect(error.reason == .circularDependency)
    }

    @Test func errorsCarryTheAsyncPathIntoSynchronousParts() async throws {
        let container = Container()
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        container.register((any Checkout).self) { r in
            await Task.yield()
            let catalog = try await r.require((any Catalog).self)
            return ShopCheckout(catalog: catalog, storage: catalog.storage)
        }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Checkout).self)
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Checkout", "Catalog", "Storage"])
    }

    @Test func aThrowingAsyncFactoryFailsWithItsErrorAndPath() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            throw Failure(code: 7)
        }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try await r.require((any Storage).self)) }
        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Catalog).self)
        }
        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? Failure == Failure(code: 7))
        #expect(error.path == ["Catalog", "Storage"])
    }

    @Test func synchronousResolveOfAnAsyncServiceIsAClearError() throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        let error = try #require(throws: ResolutionError.self) { try container.require((any Catalog).self) }
        #expect(error.reason == .requiresAsync)
        #expect(error.path == ["Catalog", "Storage"])
        #expect(error.description.contains("container.async.require"))
        #expect(container.resolve((any Storage).self) == nil)
    }

    @Test func synchronousCodeUsesAContainerInstanceAnAsyncResolveMade() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }.inObjectScope(.container)
        let made = try await container.async.require((any Storage).self)
        #expect(try container.require((any Storage).self) === made)
    }

    @Test func asyncFactoriesTakeRuntimeArguments() async throws {
        let container = Container()
        container.register(String.self) { (_: AsyncResolver, name: String, count: Int) in
            await Task.yield()
            return String(repeating: name, count: count)
        }
        #expect(try await container.async.require(String.self, arguments: "ab", 3) == "ababab")
        #expect(await container.async.resolve(String.self, arguments: "x", 2) == "xx")
    }

    @Test func synchronousFactoriesWithArgumentsResolveFromAsyncCode() async throws {
        let container = Container()
        container.register(String.self) { _, count in String(repeating: "z", count: count) }
        #expect(try await container.async.require(String.self, arguments: 2) == "zz")
    }

    @Test func actorsAreRegisteredAndResolved() async throws {
        let container = Container()
        container.register(Ledger.self) { _ in Ledger() }.inObjectScope(.container)
        container.register(String.self) { r in
            let ledger = try await r.require(Ledger.self)
            await ledger.add("opened")
            return "ok"
        }
        _ = try await container.async.require(String.self)
        let ledger = try await container.async.require(Ledger.self)
        #expect(await ledger.entries == ["opened"])
    }

    @Test func mainActorFactoriesRunOnTheMainActorWhenResolvedFromAnyTask() async throws {
        let container = Container()
        container.register(BannerModel.self) { @MainActor _ in
            MainActor.assertIsolated()
            return BannerModel(text: "sync factory")
        }
        container.register(BannerModel.self, name: "async") { @MainActor _ in
            await Task.yield()
            MainActor.assertIsolated()
            return BannerModel(text: "async factory")
        }
        let model = try await Task.detached { try await container.async.require(BannerModel.self) }.value
        let asyncModel = try await Task.detached {
            try await container.async.require(BannerModel.self, name: "async")
        }.value
        #expect(model.text == "sync factory")
        #expect(asyncModel.text == "async factory")
    }

    @Test @MainActor func mainActorCodeResolvesNonSendableServicesWithoutHopping() async throws {
        final class Draft {
            var text = ""
        }
        let container = Container()
        container.register(Draft.self) { _ in
            await Task.yield()
            let draft = Draft()
            draft.text = "from the async factory"
            return draft
        }
        let draft = try await container.async.require(Draft.self)
        let another = try await container.async.require(Draft.self)
        #expect(draft.text == "from the async factory")
        #expect(draft !== another, "two resolves of a graph-scoped Draft gave one instance")
    }

    @Test @MainActor func codeThatPassesAnIsolationStillResolvesThere() async throws {
        final class Draft {
            var text = "draft"
        }
        let container = Container()
        container.register(Draft.self) { (_: AsyncResolver) async in Draft() }
        container.register(Draft.self, name: "named") { (_: AsyncResolver, text: String) async in
            let draft = Draft()
            draft.text = text
            return draft
        }
        let resolver = container.async
        let required = try await resolver.require(Draft.self, isolation: MainActor.shared)
        let resolved = await resolver.resolve(Draft.self, isolation: MainActor.shared)
        let withArgument = try await resolver.require(
            Draft.self, name: "named", arguments: "given", isolation: MainActor.shared)
        let resolvedWithArgument = await resolver.resolve(
            Draft.self, name: "named", arguments: "again", isolation: MainActor.shared)
        #expect(required.text == "draft" && resolved?.text == "draft")
        #expect(withArgument.text == "given" && resolvedWithArgument?.text == "again")
    }

    @Test func initCompletedRunsOnInstancesOfAsyncFactories() async throws {
        let container = Container()
        let completed = Counter()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }.initCompleted { _, _ in completed.increment() }
        _ = try await container.async.require((any Storage).self)
        #expect(completed.value == 1)
    }

    @Test func resolveReturnsNilAndLogsWhenNothingIsRegistered() async throws {
        // The container's own log (the process-wide logging function is shared by tests running in parallel).
        let log = LogSpy()
        let container = Container(debugHelper: log)

        #expect(await container.async.resolve((any Storage).self) == nil)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require((any Storage).self)
        }
        #expect(log.messages.values == [error.description])
        #expect(error.description == "[Weft.missingRegistration] No registration for Storage.")
    }
}

import Testing

@testable import Weft

/// An instance kept in a build's outcome, to see when it is released.
private final class SlotInstance {}

/// The builds of an async graph by registration: a list while short, indexed once long, with removal at any size.
@Suite struct AsyncGraphSlotsTests {
    @Test(arguments: [3, 200])
    func everyBuildIsFoundByItsRegistrationAndRemovalForgetsOnlyItsOwn(count: Int) {
        let container = Container()
        let registrations = (0..<count).map { index in container.register(Int.self, name: "\(index)") { _ in index } }
        let builds = (0..<count).map { _ in AsyncBuild(key: ServiceKey(serviceType: Int.self, argumentsType: Int.self))
        }
        var slots = AsyncGraphSlots()
        for (registration, build) in zip(registrations, builds) {
            slots.insert(build, for: registration, publishes: false)
        }

        for (registration, build) in zip(registrations, builds) {
            #expect(slots[ObjectIdentifier(registration)] === build)
        }

        // Remove every other one, the first included, so that the last slot moves into freed places.
        for index in stride(from: 0, to: count, by: 2) { slots.remove(ObjectIdentifier(registrations[index])) }
        for (index, registration) in registrations.enumerated() {
            let found = slots[ObjectIdentifier(registration)]
            #expect(index.isMultiple(of: 2) ? found == nil : found === builds[index])
        }

        var spares: [AsyncBuild] = []
        slots.markSpares()
        slots.empty(sparing: &spares)
        #expect(slots.isEmpty)
        #expect(registrations.allSatisfy { slots[ObjectIdentifier($0)] == nil })
    }

    /// When the graph ends, the builds nothing else refers to become spares, last first, and let go of their
    /// instances; a build still referred to elsewhere (a builder that has not finished) is left to it.
    @Test func endingSparesOnlyTheBuildsNothingElseRefersToAndReleasesTheirInstances() {
        let container = Container()
        let registrations = (0..<3).map { index in container.register(Int.self, name: "\(index)") { _ in index } }
        let key = ServiceKey(serviceType: Int.self, argumentsType: Void.self)
        let heldElsewhere = AsyncBuild(key: key)
        var slots = AsyncGraphSlots()
        slots.insert(AsyncBuild(key: key), for: registrations[0], publishes: false)
        slots.insert(heldElsewhere, for: registrations[1], publishes: false)
        slots.insert(AsyncBuild(key: key), for: registrations[2], publishes: false)
        let builds = registrations.map { slots[ObjectIdentifier($0)].map(ObjectIdentifier.init) }
        weak var released: SlotInstance?
        do {
            let instance = SlotInstance()
            released = instance
            slots[ObjectIdentifier(registrations[0])]?.outcome = .made(Made(value: instance))
        }
        #expect(released != nil)

        var spares: [AsyncBuild] = []
        slots.markSpares()
        slots.empty(sparing: &spares)

        #expect(spares.map(ObjectIdentifier.init) == [builds[2], builds[0]])
        #expect(spares.allSatisfy { $0.outcome == nil })
        #expect(released == nil)
        #expect(slots.isEmpty)
        withExtendedLifetime(heldElsewhere) {}
    }

    /// A made instance whose slot publishes it is taken once; one whose slot does not, or not made yet, is not.
    @Test func theInstancesToPublishAreTakenOnceEach() {
        let container = Container()
        let registrations = (0..<3).map { index in container.register(Int.self, name: "\(index)") { _ in index } }
        let builds = (0..<3).map { _ in AsyncBuild(key: ServiceKey(serviceType: Int.self, argumentsType: Int.self)) }
        var slots = AsyncGraphSlots()
        slots.insert(builds[0], for: registrations[0], publishes: true)
        slots.insert(builds[1], for: registrations[1], publishes: false)
        slots.insert(builds[2], for: registrations[2], publishes: true)
        for build in builds[0...1] { build.outcome = .made(Made(value: 1)) }

        #expect(slots.takeUnpublished().map { ObjectIdentifier($0.entry) } == [ObjectIdentifier(registrations[0])])
        #expect(slots.takeUnpublished().isEmpty)
        builds[2].outcome = .made(Made(value: 2))
        #expect(slots.takeUnpublished().map { ObjectIdentifier($0.entry) } == [ObjectIdentifier(registrations[2])])
    }

    /// An instance an async factory made goes into its registration's storage when a synchronous factory of the
    /// same graph starts, so that the synchronous engine shares it too.
    @Test func aSynchronousFactoryGetsTheGraphScopedInstanceAnAsyncFactoryMadeEarlier() async throws {
        let container = Container()
        container.register((any Storage).self) { _ in
            await Task.yield()
            return DiskStorage()
        }
        container.register((any Catalog).self) { r in RemoteCatalog(storage: try r.require((any Storage).self)) }
        container.register((any Checkout).self) { r in
            let storage = try await r.require((any Storage).self)
            return ShopCheckout(catalog: try await r.require((any Catalog).self), storage: storage)
        }

        let checkout = try await container.async.require((any Checkout).self)

        #expect(checkout.catalog.storage === checkout.storage)
    }
}

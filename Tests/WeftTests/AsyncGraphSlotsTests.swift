import Testing

@testable import Weft

/// The builds of an async graph by registration: a list while short, indexed once long, with removal at any size.
@Suite struct AsyncGraphSlotsTests {
    private final class Registration {}

    @Test(arguments: [3, 200])
    func everyBuildIsFoundByItsRegistrationAndRemovalForgetsOnlyItsOwn(count: Int) {
        let registrations = (0..<count).map { _ in Registration() }
        let builds = (0..<count).map { _ in AsyncBuild(key: ServiceKey(serviceType: Int.self, argumentsType: Int.self))
        }
        var slots = AsyncGraphSlots()
        for (registration, build) in zip(registrations, builds) { slots[ObjectIdentifier(registration)] = build }

        for (registration, build) in zip(registrations, builds) {
            #expect(slots[ObjectIdentifier(registration)] === build)
        }

        // Remove every other one, the first included, so that the last slot moves into freed places.
        for index in stride(from: 0, to: count, by: 2) { slots[ObjectIdentifier(registrations[index])] = nil }
        for (index, registration) in registrations.enumerated() {
            let found = slots[ObjectIdentifier(registration)]
            #expect(index.isMultiple(of: 2) ? found == nil : found === builds[index])
        }

        slots.removeAll()
        #expect(registrations.allSatisfy { slots[ObjectIdentifier($0)] == nil })
    }
}

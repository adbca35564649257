import Testing

@testable import Weft

/// Removing one key from a container's hash table (a child dropping a decorated copy of what its parent removed)
/// leaves every other key findable, however the keys' probe paths run through the removed one.
@Suite struct RegistryRemovalTests {
    final class Named {}

    private func key(_ index: Int) -> ServiceKey {
        ServiceKey(serviceType: Named.self, argumentsType: noArguments, name: "service-\(index)")
    }

    private func entry() -> _ServiceEntryBase {
        _ServiceEntryBase(serviceType: Named.self, argumentsType: noArguments)
    }

    @Test func keysLeftAfterRemovingEveryThirdAreAllFoundAndTheRemovedOnesAreNot() {
        var registry = Registry()
        let entries = (0..<1_000).map { _ in entry() }
        for (index, entry) in entries.enumerated() { _ = registry.updateValue(entry, forKey: key(index)) }

        for index in stride(from: 0, to: 1_000, by: 3) {
            #expect(registry.removeValue(forKey: key(index)) === entries[index])
        }

        #expect(registry.count == 1_000 - 334)
        for index in 0..<1_000 {
            let found = registry[key(index)]
            #expect(index.isMultiple(of: 3) ? found == nil : found === entries[index])
        }
        #expect(registry.removeValue(forKey: key(0)) == nil)
    }

    @Test func aRemovedKeyAddedAgainIsFoundOnce() {
        var registry = Registry()
        let first = entry()
        let second = entry()
        for index in 0..<40 { _ = registry.updateValue(entry(), forKey: key(index)) }
        _ = registry.updateValue(first, forKey: key(99))
        _ = registry.removeValue(forKey: key(99))
        _ = registry.updateValue(second, forKey: key(99))

        #expect(registry[key(99)] === second)
        #expect(registry.count == 41)
        #expect(registry.values.filter { $0 === second }.count == 1)
    }
}

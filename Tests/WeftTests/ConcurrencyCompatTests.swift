import Dispatch
import Foundation
import Testing
import Weft

/// Swinject's `synchronize()` keeps working, and a plain `Container` (which Weft makes thread-safe without it)
/// can be resolved from many threads at once, as can the synchronized resolver.
@Suite struct ConcurrencySynchronizeTests {
    protocol Animal: AnyObject {
        var name: String { get }
    }

    final class Dog: Animal {
        let name: String
        init(name: String = "Hachi") {
            self.name = name
        }
    }

    final class Food {}

    /// Asks for `Food` twice within one graph.
    final class Meal {
        let main: Food
        let side: Food
        init(main: Food, side: Food) {
            self.main = main
            self.side = side
        }
    }

    final class Kitchen {}

    /// Collects object identities from any thread.
    final class Identities: @unchecked Sendable {
        private let lock = NSLock()
        private var seen: Set<ObjectIdentifier> = []

        var count: Int {
            lock.lock()
            defer { lock.unlock() }
            return seen.count
        }

        func insert(_ object: AnyObject) {
            lock.lock()
            seen.insert(ObjectIdentifier(object))
            lock.unlock()
        }
    }

    /// Resolves in all: `threads` real threads, each resolving `iterations / threads` times.
    private static let iterations = 200
    private static let threads = 20

    /// Runs `body(index)` for every index below `iterations`, spread over `threads` threads started together.
    private static func onManyThreads(_ body: @escaping @Sendable (Int) -> Void) {
        let perThread = iterations / threads
        runOnThreads(threads) { thread in
            for step in 0..<perThread { body(thread * perThread + step) }
        }
    }

    /// `Meal` (graph scope) over `Food` (graph scope), `Kitchen` as a singleton and named and argument
    /// registrations of `Animal`.
    private func kitchenContainer() -> Container {
        let container = Container()
        container.register(Food.self) { _ in Food() }
        container.register(Meal.self) { r in Meal(main: r.resolve(Food.self)!, side: r.resolve(Food.self)!) }
        container.register(Kitchen.self) { _ in Kitchen() }.inObjectScope(.container)
        container.register(Animal.self, name: "dog") { _ in Dog() }
        container.register(Animal.self) { (_, name: String) in Dog(name: name) }
        return container
    }

    // MARK: synchronize()

    @Test func synchronizedResolverResolvesTheSameServices() throws {
        let container = kitchenContainer()
        let resolver = container.synchronize()

        let meal = try #require(resolver.resolve(Meal.self))
        #expect(meal.main === meal.side)
        #expect(resolver.resolve(Animal.self, name: "dog") is Dog)
        #expect(resolver.resolve(Animal.self, argument: "Pochi")?.name == "Pochi")
        #expect(try resolver.require(Animal.self, name: "dog").name == "Hachi")
        #expect(resolver.resolve(Animal.self) == nil)
    }

    @Test func synchronizedResolverSharesTheContainersSingletons() throws {
        let container = kitchenContainer()
        let resolver = container.synchronize()

        let kitchen: Kitchen = try resolver.require(Kitchen.self)
        #expect(kitchen === container.resolve(Kitchen.self))
        #expect(kitchen === resolver.resolve(Kitchen.self))
    }

    @Test func synchronizedResolverSeesRegistrationsAddedLaterToTheContainer() {
        let container = Container()
        let resolver = container.synchronize()

        container.register(Food.self) { _ in Food() }

        #expect(resolver.resolve(Food.self) != nil)
    }

    @Test func synchronizedResolverGivesNewGraphInstancesForEachResolve() throws {
        let resolver = kitchenContainer().synchronize()

        let first: Food = try resolver.require(Food.self)
        #expect(first !== resolver.resolve(Food.self))
    }

    // MARK: Many threads

    /// Resolves from many threads at once and counts the meals that came back whole.
    private func resolveMealsConcurrently(through resolver: any Resolver) -> (meals: Int, kitchens: Identities) {
        let meals = Counter()
        let kitchens = Identities()
        Self.onManyThreads { index in
            if let meal = resolver.resolve(Meal.self), meal.main === meal.side {
                meals.increment()
            }
            if let kitchen = resolver.resolve(Kitchen.self) {
                kitchens.insert(kitchen)
            }
            _ = resolver.resolve(Animal.self, argument: "dog \(index)")
        }
        return (meals.value, kitchens)
    }

    @Test func plainContainerResolvesFromManyThreadsAtOnce() {
        let container = kitchenContainer()

        let (meals, kitchens) = resolveMealsConcurrently(through: container)

        #expect(meals == Self.iterations)
        #expect(kitchens.count == 1)
    }

    @Test func synchronizedResolverResolvesFromManyThreadsAtOnce() {
        let resolver = kitchenContainer().synchronize()

        let (meals, kitchens) = resolveMealsConcurrently(through: resolver)

        #expect(meals == Self.iterations)
        #expect(kitchens.count == 1)
    }

    @Test func argumentsReachTheirOwnResolveOnEveryThread() {
        let container = kitchenContainer()
        let matches = Counter()

        Self.onManyThreads { index in
            if container.resolve(Animal.self, argument: "dog \(index)")?.name == "dog \(index)" {
                matches.increment()
            }
        }

        #expect(matches.value == Self.iterations)
    }

    @Test func registeringWhileOtherThreadsResolveIsSafe() {
        let container = kitchenContainer()
        let resolved = Counter()

        Self.onManyThreads { index in
            if index.isMultiple(of: 2) {
                container.register(Food.self, name: "dish \(index)") { _ in Food() }
            } else if container.resolve(Meal.self) != nil {
                resolved.increment()
            }
        }

        #expect(resolved.value == Self.iterations / 2)
        #expect(container.resolve(Food.self, name: "dish 0") != nil)
        #expect(container.resolve(Food.self, name: "dish \(Self.iterations - 2)") != nil)
    }
}

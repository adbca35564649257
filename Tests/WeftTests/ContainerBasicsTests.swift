import Testing
import Weft

/// Registering and resolving by type and name, replacing and removing registrations, and the container's
/// description, as Swinject's `Container` does them.
@Suite struct ContainerBasicsTests {
    protocol Animal: AnyObject {
        var name: String { get }
    }

    final class Cat: Animal {
        let name: String
        init(name: String = "Mimi") {
            self.name = name
        }
    }

    final class Dog: Animal {
        let name: String
        init(name: String = "Hachi") {
            self.name = name
        }
    }

    /// A class hierarchy: `Vehicle` is registered, a subclass is made.
    class Vehicle {
        var wheels: Int { 0 }
    }

    final class Bicycle: Vehicle {
        override var wheels: Int { 2 }
    }

    struct Settings: Equatable {
        var retries: Int
        var host: String
    }

    // MARK: Register and resolve

    @Test func resolvesTheRegisteredImplementationOfAProtocol() throws {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }

        let animal = try #require(container.resolve(Animal.self))
        #expect(animal is Cat)
    }

    @Test func resolveReturnsNilForAnUnregisteredType() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }

        #expect(container.resolve(Dog.self) == nil)
    }

    @Test func factoriesResolveTheirDependenciesThroughTheResolverTheyReceive() throws {
        final class Owner {
            let pet: Animal
            init(pet: Animal) {
                self.pet = pet
            }
        }
        let container = Container()
        container.register(Animal.self) { _ in Dog(name: "Rex") }
        container.register(Owner.self) { r in Owner(pet: r.resolve(Animal.self)!) }

        let owner = try #require(container.resolve(Owner.self))
        #expect(owner.pet.name == "Rex")
    }

    @Test func namedRegistrationsAreSeparateFromEachOtherAndFromTheUnnamedOne() throws {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "unnamed") }
        container.register(Animal.self, name: "cat") { _ in Cat(name: "Mimi") }
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Hachi") }

        #expect(container.resolve(Animal.self)?.name == "unnamed")
        #expect(container.resolve(Animal.self, name: "cat")?.name == "Mimi")
        #expect(container.resolve(Animal.self, name: "dog")?.name == "Hachi")
        #expect(container.resolve(Animal.self, name: "dog") is Dog)
        #expect(container.resolve(Animal.self, name: "bird") == nil)
    }

    @Test func aNamedRegistrationIsNotFoundWithoutItsName() {
        let container = Container()
        container.register(Animal.self, name: "cat") { _ in Cat() }

        #expect(container.resolve(Animal.self) == nil)
        #expect(container.resolve(Animal.self, name: nil) == nil)
    }

    @Test func registeringTheSameTypeAndNameAgainReplacesTheFactory() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "first") }
        container.register(Animal.self) { _ in Dog(name: "second") }
        container.register(Animal.self, name: "n") { _ in Cat(name: "first named") }
        container.register(Animal.self, name: "n") { _ in Cat(name: "second named") }

        #expect(container.resolve(Animal.self)?.name == "second")
        #expect(container.resolve(Animal.self) is Dog)
        #expect(container.resolve(Animal.self, name: "n")?.name == "second named")
    }

    @Test func replacingARegistrationKeepsOnlyOneEntryInTheDescription() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(Animal.self) { _ in Dog() }.inObjectScope(.container)

        #expect(
            container.description
                == "[\n    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: container }\n]"
        )
    }

    @Test func resolvesASubclassRegisteredUnderItsSuperclass() throws {
        let container = Container()
        container.register(Vehicle.self) { _ in Bicycle() }

        let vehicle = try #require(container.resolve(Vehicle.self))
        #expect(vehicle is Bicycle)
        #expect(vehicle.wheels == 2)
        #expect(container.resolve(Bicycle.self) == nil)
    }

    @Test func resolvesValueTypes() {
        let container = Container()
        container.register(Int.self) { _ in 42 }
        container.register(String.self, name: "greeting") { _ in "hello" }
        container.register(Settings.self) { r in
            Settings(retries: r.resolve(Int.self)!, host: "example.org")
        }

        #expect(container.resolve(Int.self) == 42)
        #expect(container.resolve(String.self, name: "greeting") == "hello")
        #expect(container.resolve(Settings.self) == Settings(retries: 42, host: "example.org"))
    }

    @Test func containerScopeKeepsAValueTypeSoItsFactoryRunsOnce() {
        let container = Container()
        let calls = Counter()
        container.register(Settings.self) { _ in
            calls.increment()
            return Settings(retries: calls.value, host: "h")
        }
        .inObjectScope(.container)

        #expect(container.resolve(Settings.self)?.retries == 1)
        #expect(container.resolve(Settings.self)?.retries == 1)
        #expect(calls.value == 1)
    }

    @Test func requireReturnsTheRegisteredInstance() throws {
        let container = Container()
        container.register(Animal.self, name: "dog") { _ in Dog(name: "Pochi") }

        let animal = try container.require(Animal.self, name: "dog")
        #expect(animal.name == "Pochi")
    }

    @Test func requireIsSpelledLikeResolveOnTheContainerAndOnAnyResolver() throws {
        // Compiling this is half the test: `require(_:)` without a name or arguments must not be ambiguous.
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Tama") }
        let resolver: any Resolver = container

        #expect(try container.require(Animal.self).name == "Tama")
        #expect(try resolver.require(Animal.self).name == "Tama")
        let inferred: Animal = try container.require()
        #expect(inferred.name == "Tama")
        #expect(throws: ResolutionError.self) { try container.require(Dog.self) }
        #expect(throws: ResolutionError.self) { try resolver.require(Dog.self) }
    }

    // MARK: removeAll and hasAnyRegistration

    @Test func removeAllForgetsEveryRegistration() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(Animal.self, name: "dog") { _ in Dog() }
        container.register(Int.self) { (_, base: Int) in base + 1 }

        container.removeAll()

        #expect(container.resolve(Animal.self) == nil)
        #expect(container.resolve(Animal.self, name: "dog") == nil)
        #expect(container.resolve(Int.self, argument: 1) == nil)
        #expect(container.description == "[\n]")
    }

    @Test func removeAllDropsContainerScopedInstances() throws {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        let before = try #require(container.resolve(Animal.self))

        container.removeAll()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.container)

        let after = try #require(container.resolve(Animal.self))
        #expect(before !== after)
    }

    @Test func hasAnyRegistrationMatchesTypeAndNameWhateverTheArguments() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.register(Dog.self, name: "big") { (_, name: String) in Dog(name: name) }

        #expect(container.hasAnyRegistration(of: Animal.self))
        #expect(container.hasAnyRegistration(of: Dog.self, name: "big"))
        #expect(!container.hasAnyRegistration(of: Dog.self))
        #expect(!container.hasAnyRegistration(of: Dog.self, name: "small"))
        #expect(!container.hasAnyRegistration(of: Cat.self))
        #expect(!container.hasAnyRegistration(of: Animal.self, name: "big"))
    }

    @Test func hasAnyRegistrationIsFalseAfterRemoveAll() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
        container.removeAll()

        #expect(!container.hasAnyRegistration(of: Animal.self))
    }

    // MARK: Initializers

    @Test func registeringClosureRegistersIntoTheNewContainer() throws {
        let container = Container { container in
            container.register(Animal.self) { _ in Dog(name: "from the closure") }
        }

        let animal = try #require(container.resolve(Animal.self))
        #expect(animal.name == "from the closure")
    }

    @Test func registeringClosureRunsOnceBeforeTheInitializerReturns() {
        let calls = Counter()
        let container = Container { _ in calls.increment() }

        #expect(calls.value == 1)
        #expect(container.resolve(Animal.self) == nil)
    }

    // MARK: Description

    @Test func descriptionOfAnEmptyContainer() {
        #expect(Container().description == "[\n]")
    }

    @Test func descriptionOfOneRegistration() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }

        let expected = "[\n    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: graph }\n]"
        #expect(container.description == expected)
    }

    @Test func descriptionShowsTheName() {
        let container = Container()
        container.register(Animal.self, name: "My Cat") { _ in Cat() }

        #expect(
            container.description
                == "[\n    { Service: Animal, Name: \"My Cat\", Factory: Resolver -> Animal, ObjectScope: graph }\n]"
        )
    }

    @Test func descriptionShowsTheArgumentTypes() {
        let container = Container()
        container.register(Animal.self) { (_, name: String, _: Bool) in Cat(name: name) }

        #expect(
            container.description
                == "[\n    { Service: Animal, Factory: (Resolver, String, Bool) -> Animal, ObjectScope: graph }\n]"
        )
    }

    @Test func descriptionShowsTheObjectScope() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        container.register(Int.self) { _ in 1 }.inObjectScope(.transient)
        container.register(Dog.self) { _ in Dog() }.inObjectScope(.weak)

        #expect(
            container.description
                == "[\n"
                + "    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: container },\n"
                + "    { Service: Dog, Factory: Resolver -> Dog, ObjectScope: weak },\n"
                + "    { Service: Int, Factory: Resolver -> Int, ObjectScope: transient }\n"
                + "]"
        )
    }

    @Test func descriptionCountsInitCompletedClosures() {
        let container = Container()
        container.register(Animal.self) { _ in Cat() }
            .initCompleted { _, _ in }
            .initCompleted { _, _ in }

        #expect(
            container.description
                == "[\n    { Service: Animal, Factory: Resolver -> Animal, ObjectScope: graph, "
                + "InitCompleted: Specified 2 closures }\n]"
        )
    }

    @Test func descriptionListsSeveralRegistrationsSorted() {
        let container = Container()
        container.register(Animal.self, name: "2") { _ in Cat() }
        container.register(Animal.self, name: "1") { _ in Cat() }

        #expect(
            container.description
                == "[\n"
                + "    { Service: Animal, Name: \"1\", Factory: Resolver -> Animal, ObjectScope: graph },\n"
                + "    { Service: Animal, Name: \"2\", Factory: Resolver -> Animal, ObjectScope: graph }\n"
                + "]"
        )
    }

    @Test func descriptionListsOnlyTheContainersOwnRegistrations() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)
        child.register(Dog.self) { _ in Dog() }

        #expect(child.description == "[\n    { Service: Dog, Factory: Resolver -> Dog, ObjectScope: graph }\n]")
    }

    @Test func aContainersMirrorShowsItsRegistrationsAndParent() {
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Dog.self) { _ in Dog() }
        child.register(Dog.self, name: "rex") { _ in Dog() }

        let children = Dictionary(
            uniqueKeysWithValues: Mirror(reflecting: child).children.compactMap { child in
                child.label.map { ($0, child.value) }
            })
        let registrations = children["registrations"].map { Mirror(reflecting: $0) }
        #expect(registrations?.displayStyle == .dictionary)
        #expect(registrations?.children.count == 2)
        #expect((children["parent"] as? Container) === parent)
    }
}

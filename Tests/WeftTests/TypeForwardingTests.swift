import Testing
import Weft

/// Type forwarding (`implements`, `forward(_:name:to:)`): one registration answering for several types,
/// sharing its factory, scope and instances; and resolving `Optional` of a registered type.
@Suite struct TypeForwardingTests {
    protocol Animal: AnyObject {
        var name: String { get }
    }

    protocol Pet: AnyObject {}
    protocol Guard: AnyObject {}

    final class Dog: Animal, Pet, Guard {
        let name: String
        var trained = false
        init(name: String = "Hachi") {
            self.name = name
        }
    }

    final class Cat: Animal {
        var name: String { "Mimi" }
    }

    /// Asks for the same registration under two of its types within one graph.
    final class Kennel {
        let dog: Dog
        let animal: Animal
        init(dog: Dog, animal: Animal) {
            self.dog = dog
            self.animal = animal
        }
    }

    // MARK: implements

    @Test func implementsMakesTheRegistrationAnswerForAnotherType() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)

        let animal = try #require(container.resolve(Animal.self))
        #expect(animal is Dog)
        #expect(container.resolve(Dog.self) != nil)
    }

    @Test func implementsChainedForSeveralTypes() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
            .implements(Animal.self)
            .implements(Pet.self)
            .implements(Guard.self)

        #expect(container.resolve(Animal.self) is Dog)
        #expect(container.resolve(Pet.self) is Dog)
        #expect(container.resolve(Guard.self) is Dog)
    }

    @Test func implementsWithSeveralTypesAtOnce() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self, Pet.self, Guard.self)

        #expect(container.resolve(Animal.self) is Dog)
        #expect(container.resolve(Pet.self) is Dog)
        #expect(container.resolve(Guard.self) is Dog)
    }

    @Test func implementsWithANameAnswersOnlyUnderThatName() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
            .implements(Animal.self, name: "animal")
            .implements(Pet.self, name: "pet")

        #expect(container.resolve(Animal.self, name: "animal") is Dog)
        #expect(container.resolve(Pet.self, name: "pet") is Dog)
        #expect(container.resolve(Animal.self) == nil)
        #expect(container.resolve(Pet.self, name: "animal") == nil)
    }

    // MARK: forward(_:name:to:)

    @Test func forwardMakesTheRegistrationAnswerForAnotherType() {
        let container = Container()
        let dog = container.register(Dog.self) { _ in Dog(name: "Pochi") }
        container.forward(Animal.self, to: dog)

        #expect(container.resolve(Animal.self)?.name == "Pochi")
    }

    @Test func forwardWithANameAnswersOnlyUnderThatName() {
        let container = Container()
        let dog = container.register(Dog.self) { _ in Dog() }
        container.forward(Animal.self, name: "Hachi", to: dog)

        #expect(container.resolve(Animal.self, name: "Hachi") is Dog)
        #expect(container.resolve(Animal.self, name: "Mimi") == nil)
        #expect(container.resolve(Animal.self) == nil)
    }

    @Test func implementsAddsToTheContainerTheRegistrationWasMadeInEvenAfterAnotherForwardedToIt() {
        let home = Container()
        let other = Container()
        let dog = home.register(Dog.self) { _ in Dog() }
        other.forward(Animal.self, to: dog)
        dog.implements(Pet.self)

        #expect(other.resolve(Animal.self) is Dog)
        #expect(home.resolve(Pet.self) is Dog)
        #expect(other.resolve(Pet.self) == nil)
    }

    @Test func aRegistrationKeptAfterItsContainerIsGoneDoesNotKeepItAliveAndImplementsDoesNothing() {
        weak var released: Container?
        let dog: ServiceEntry<Dog> = {
            let container = Container()
            released = container
            return container.register(Dog.self) { _ in Dog() }
        }()

        #expect(released == nil)
        dog.implements(Animal.self).implements(Pet.self, Guard.self)
        #expect(released == nil)
    }

    @Test func forwardedTypesKeepTheRegistrationsArguments() {
        let container = Container()
        let dog = container.register(Dog.self) { (_, name: String) in Dog(name: name) }
        container.forward(Animal.self, to: dog)

        #expect(container.resolve(Animal.self, argument: "Shiro")?.name == "Shiro")
        #expect(container.resolve(Animal.self) == nil)
    }

    @Test func forwardingAProtocolRegistrationToItsImplementationTypeWorks() {
        let container = Container()
        let animal = container.register(Animal.self) { _ in Dog() }
        container.forward(Dog.self, to: animal)

        #expect(container.resolve(Dog.self) != nil)
    }

    // MARK: Shared instances and callbacks

    @Test func forwardedTypesShareTheGraphInstance() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)
        container.register(Kennel.self) { r in Kennel(dog: r.resolve(Dog.self)!, animal: r.resolve(Animal.self)!) }

        let kennel = try #require(container.resolve(Kennel.self))
        #expect(kennel.dog === kennel.animal)
    }

    @Test func forwardedTypesShareTheContainerInstance() throws {
        let container = Container()
        let calls = Counter()
        container.register(Dog.self) { _ in
            calls.increment()
            return Dog()
        }
        .inObjectScope(.container)
        .implements(Animal.self, Pet.self)

        let animal = try #require(container.resolve(Animal.self))
        let dog = try #require(container.resolve(Dog.self))
        let pet = try #require(container.resolve(Pet.self))
        #expect(animal === dog)
        #expect(pet === dog)
        #expect(calls.value == 1)
    }

    @Test func forwardedTypesInTransientScopeGetNewInstances() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.inObjectScope(.transient).implements(Animal.self)
        container.register(Kennel.self) { r in Kennel(dog: r.resolve(Dog.self)!, animal: r.resolve(Animal.self)!) }

        let kennel = try #require(container.resolve(Kennel.self))
        #expect(kennel.dog !== kennel.animal)
    }

    @Test func resolvingAForwardedTypeRunsTheRegistrationsInitCompleted() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }
            .initCompleted { _, dog in dog.trained = true }
            .implements(Animal.self)

        let animal = try #require(container.resolve(Animal.self) as? Dog)
        #expect(animal.trained)
    }

    @Test func scopeSetAfterImplementsAppliesToTheForwardedTypeToo() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self).inObjectScope(.container)

        #expect(try container.require(Animal.self) === container.resolve(Dog.self))
    }

    // MARK: Incompatible forwarding

    @Test func forwardingToAnIncompatibleTypeResolvesToNil() {
        let container = Container()
        let dog = container.register(Dog.self) { _ in Dog() }
        container.forward(Cat.self, to: dog)

        #expect(container.resolve(Cat.self) == nil)
    }

    @Test func forwardingToAnIncompatibleTypeWithArgumentsResolvesToNil() {
        let container = Container()
        container.register(Dog.self) { (_, name: String) in Dog(name: name) }.implements(Cat.self)

        #expect(container.resolve(Cat.self, argument: "Tama") == nil)
    }

    @Test func requiringAnIncompatibleForwardedTypeThrowsTypeMismatch() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Cat.self)

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Cat.self)
        }
        #expect(error.reason == .typeMismatch)
        #expect(error.serviceType == "Cat")
        #expect(error.path.last == "Cat")
    }

    // MARK: Optional

    @Test func optionalOfAnUnregisteredTypeResolvesToSomeNil() throws {
        let container = Container()

        // `resolve(Dog?.self)` is a `Dog??`: the outer level says the resolve worked, the inner one is empty.
        let dog = try #require(container.resolve(Dog?.self))
        #expect(dog == nil)
    }

    @Test func optionalOfARegisteredTypeResolvesToTheInstance() throws {
        let container = Container()
        container.register(Dog.self) { _ in Dog(name: "Kuro") }

        let dog = try #require(container.resolve(Dog?.self))
        #expect(dog?.name == "Kuro")
    }

    @Test func optionalResolutionHonoursNamesAndArguments() throws {
        let container = Container()
        container.register(Dog.self, name: "Hachi") { _ in Dog(name: "Hachi") }
        container.register(Dog.self) { (_, name: String) in Dog(name: name) }

        #expect(container.resolve(Dog?.self, name: "Hachi")??.name == "Hachi")
        #expect(container.resolve(Dog?.self, argument: "Shiro")??.name == "Shiro")
        let wrongName = try #require(container.resolve(Dog?.self, name: "Mimi"))
        #expect(wrongName == nil)
    }

    @Test func optionalOfAForwardedTypeResolvesToTheInstance() {
        let container = Container()
        container.register(Dog.self) { _ in Dog() }.implements(Animal.self)

        #expect((container.resolve(Animal?.self) ?? nil) is Dog)
    }

    @Test func requireOfAnOptionalOfAnUnregisteredTypeGivesNilWithoutThrowing() throws {
        let container = Container()

        let dog = try container.require(Dog?.self)
        #expect(dog == nil)
    }
}

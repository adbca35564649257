import Testing
import Weft

/// Every example of the seed page "Injection Patterns" (Swinject's documentation), compiled as written
/// with `import Weft` instead of `import Swinject`.
///
/// The page's protocols and classes are declared inside the suite so that their names (`Cat`, `PetOwner`)
/// stay out of the way of other test files.
@Suite struct SeedInjectionPatternsTests {
    // MARK: The page's types, as written

    protocol AnimalType {
        func sound() -> String
    }

    class Cat: AnimalType {
        init() {}

        func sound() -> String {
            return "Meow"
        }
    }

    protocol PersonType {}

    class PetOwner: PersonType {
        let pet: AnimalType

        init(pet: AnimalType) {
            self.pet = pet
        }
    }

    class PetOwner2: PersonType {
        var pet: AnimalType?

        init() {}
    }

    class PetOwner3: PersonType {
        var pet: AnimalType?

        init() {}

        func setPet(pet: AnimalType) {
            self.pet = pet
        }
    }

    // MARK: Initializer Injection

    @Test func initializerInjectionGivesTheOwnerACatThatMeows() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { r in
            PetOwner(pet: r.resolve(AnimalType.self)!)
        }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner)
        #expect(owner.pet is Cat)
        #expect(owner.pet.sound() == "Meow")
    }

    @Test func initializerInjectionResolvesTheDependencyAnewForEachOwner() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { r in
            PetOwner(pet: r.resolve(AnimalType.self)!)
        }

        let first = try #require(container.resolve(PersonType.self) as? PetOwner)
        let second = try #require(container.resolve(PersonType.self) as? PetOwner)
        #expect(first !== second)
        #expect((first.pet as? Cat) !== (second.pet as? Cat))
    }

    // MARK: Property Injection

    @Test func propertyInjectionInTheFactorySetsTheCat() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { r in
            let owner = PetOwner2()
            owner.pet = r.resolve(AnimalType.self)
            return owner
        }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner2)
        let pet = try #require(owner.pet)
        #expect(pet is Cat)
        #expect(pet.sound() == "Meow")
    }

    @Test func propertyInjectionInInitCompletedSetsTheCatBeforeResolveReturns() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { _ in PetOwner2() }
            .initCompleted { r, p in
                let owner = p as! PetOwner2
                owner.pet = r.resolve(AnimalType.self)
            }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner2)
        let pet = try #require(owner.pet)
        #expect(pet is Cat)
        #expect(pet.sound() == "Meow")
    }

    @Test func propertyInjectionLeavesAnOptionalDependencyNilWhenItIsNotRegistered() throws {
        // The page: "Property Injection is appropriate if the dependency is optional to the dependent instance."
        let container = Container()
        container.register(PersonType.self) { r in
            let owner = PetOwner2()
            owner.pet = r.resolve(AnimalType.self)
            return owner
        }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner2)
        #expect(owner.pet == nil)
    }

    // MARK: Method Injection

    @Test func methodInjectionInTheFactorySetsTheCat() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { r in
            let owner = PetOwner3()
            // The page writes `owner.setPet(r.resolve(AnimalType.self)!)`, which does not compile against its
            // own `func setPet(pet: AnimalType)` (in Swinject either); the closest compiling form adds the label.
            owner.setPet(pet: r.resolve(AnimalType.self)!)
            return owner
        }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner3)
        let pet = try #require(owner.pet)
        #expect(pet is Cat)
        #expect(pet.sound() == "Meow")
    }

    @Test func methodInjectionInInitCompletedSetsTheCatBeforeResolveReturns() throws {
        let container = Container()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { _ in PetOwner3() }
            .initCompleted { r, p in
                let owner = p as! PetOwner3
                // As in the factory form: the page's unlabelled `owner.setPet(...)` needs the `pet:` label.
                owner.setPet(pet: r.resolve(AnimalType.self)!)
            }

        let owner = try #require(container.resolve(PersonType.self) as? PetOwner3)
        let pet = try #require(owner.pet)
        #expect(pet is Cat)
        #expect(pet.sound() == "Meow")
    }

    @Test func initCompletedRunsOncePerNewOwner() throws {
        let container = Container()
        let calls = Counter()
        container.register(AnimalType.self) { _ in Cat() }
        container.register(PersonType.self) { _ in PetOwner3() }
            .initCompleted { r, p in
                calls.increment()
                let owner = p as! PetOwner3
                owner.setPet(pet: r.resolve(AnimalType.self)!)
            }

        _ = try #require(container.resolve(PersonType.self))
        _ = try #require(container.resolve(PersonType.self))
        #expect(calls.value == 2)
    }
}

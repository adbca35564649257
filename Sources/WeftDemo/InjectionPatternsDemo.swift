// Section 1: the five ways of handing a pet to its owner, from Swinject's "Injection Patterns" page.

import Weft

/// The types of the "Injection Patterns" page: people who own an animal.
enum InjectionPatterns {
    /// Something that makes a sound.
    protocol AnimalType {
        func sound() -> String
    }

    /// The only animal registered in this section.
    final class Cat: AnimalType {
        init() {}

        func sound() -> String {
            "Meow"
        }
    }

    /// A person; the container hands out owners under this protocol.
    protocol PersonType {}

    /// Gets its pet through the initializer: it cannot exist without one.
    final class PetOwner: PersonType {
        let pet: any AnimalType

        init(pet: any AnimalType) {
            self.pet = pet
        }
    }

    /// Gets its pet through a settable property, after it was made.
    final class PetOwner2: PersonType {
        var pet: (any AnimalType)?

        init() {}
    }

    /// Gets its pet through a method call, after it was made.
    final class PetOwner3: PersonType {
        private(set) var pet: (any AnimalType)?

        init() {}

        func setPet(_ pet: any AnimalType) {
            self.pet = pet
        }
    }
}

private typealias AnimalType = InjectionPatterns.AnimalType
private typealias Cat = InjectionPatterns.Cat
private typealias PersonType = InjectionPatterns.PersonType
private typealias PetOwner = InjectionPatterns.PetOwner
private typealias PetOwner2 = InjectionPatterns.PetOwner2
private typealias PetOwner3 = InjectionPatterns.PetOwner3

/// Runs the five injection scenarios; each gets a fresh container with `AnimalType` registered as `Cat`.
func runInjectionPatternsDemo() throws {
    heading("1. Injection patterns: how PetOwner gets its AnimalType")
    say("Every scenario registers AnimalType as Cat, then registers PersonType in a different way.")

    try show(
        "Initializer injection: PetOwner(pet:)",
        how: "The PersonType factory asks the resolver for an AnimalType and passes it to the initializer.",
        as: PetOwner.self
    ) { container in
        container.register(PersonType.self) { r in
            PetOwner(pet: try r.require(AnimalType.self))
        }
    }

    try show(
        "Property injection in the factory: PetOwner2.pet",
        how: "The factory makes PetOwner2() and sets its optional pet with r.resolve(AnimalType.self).",
        as: PetOwner2.self
    ) { container in
        container.register(PersonType.self) { r in
            let owner = PetOwner2()
            owner.pet = r.resolve(AnimalType.self)
            return owner
        }
    }

    try show(
        "Property injection in initCompleted: PetOwner2.pet",
        how: "The factory only makes PetOwner2(); an initCompleted callback sets the pet afterwards.",
        as: PetOwner2.self
    ) { container in
        container.register(PersonType.self) { _ in PetOwner2() }
            .initCompleted { r, person in
                guard let owner = person as? PetOwner2 else { return }
                owner.pet = r.resolve(AnimalType.self)
            }
    }

    try show(
        "Method injection in the factory: PetOwner3.setPet(_:)",
        how: "The factory makes PetOwner3() and calls setPet with the resolved animal before returning it.",
        as: PetOwner3.self
    ) { container in
        container.register(PersonType.self) { r in
            let owner = PetOwner3()
            owner.setPet(try r.require(AnimalType.self))
            return owner
        }
    }

    try show(
        "Method injection in initCompleted: PetOwner3.setPet(_:)",
        how: "The factory only makes PetOwner3(); initCompleted calls setPet afterwards.",
        as: PetOwner3.self
    ) { container in
        container.register(PersonType.self) { _ in PetOwner3() }
            .initCompleted { r, person in
                guard let owner = person as? PetOwner3 else { return }
                owner.setPet(try r.require(AnimalType.self))
            }
    }
}

/// Registers `Cat`, lets `registerOwner` register `PersonType`, resolves a person and says what it got.
private func show<Owner: PersonType>(
    _ title: String,
    how: String,
    as ownerType: Owner.Type,
    registerOwner: (Container) -> Void
) throws {
    let container = Container()
    container.register(AnimalType.self) { _ in Cat() }
    registerOwner(container)

    scenario(title)
    say(how)
    let person = try container.require(PersonType.self)
    guard let owner = person as? Owner else {
        say("Unexpected: got a \(type(of: person)) instead of a \(Owner.self).")
        return
    }
    guard let animal = pet(of: owner) else {
        say("Result: a \(Owner.self) without a pet.")
        return
    }
    say("Result: a \(Owner.self) whose pet is a \(type(of: animal)), which says \"\(animal.sound())\".")
}

/// The pet of any of the three owner types.
private func pet(of person: any PersonType) -> (any AnimalType)? {
    switch person {
    case let owner as PetOwner: return owner.pet
    case let owner as PetOwner2: return owner.pet
    case let owner as PetOwner3: return owner.pet
    default: return nil
    }
}

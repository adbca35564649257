import Foundation
import Testing
import Weft

/// In the Swift 6 language mode, an existential passed to a generic parameter is opened (SE-0352): a runtime
/// argument held as `any Animal` reaches the container as its concrete type. A registration that declared the
/// protocol still takes it, from sync and async code, as Swinject's users expect of `resolve(_:argument:)`.
@Suite struct OpenedExistentialArgumentTests {
    protocol Animal: AnyObject, Sendable {}
    protocol Named: AnyObject, Sendable {}
    final class Cat: Animal, Named {}
    final class Dog: Animal {}

    final class Owner: Sendable {
        let pet: any Animal
        let tag: Int
        init(pet: any Animal, tag: Int = 0) {
            self.pet = pet
            self.tag = tag
        }
    }

    final class Household: Sendable {
        let owner: Owner
        init(owner: Owner) { self.owner = owner }
    }

    @Test func aProtocolArgumentReachesTheRegistrationThatDeclaredTheProtocol() throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet) }
        let pet: any Animal = Cat()

        let owner = try container.require(Owner.self, argument: pet)

        #expect(owner.pet === pet)
        #expect(container.resolve(Owner.self, argument: pet)?.pet === pet)
    }

    @Test func anAsyncFactoryTakesAProtocolArgumentFromAsyncCode() async throws {
        let container = Container()
        container.register(Owner.self) { (_: AsyncResolver, pet: any Animal) async in Owner(pet: pet) }
        let pet: any Animal = Dog()

        let owner = try await container.async.require(Owner.self, arguments: pet)

        #expect(owner.pet === pet)
        #expect(await container.async.resolve(Owner.self, arguments: pet)?.pet === pet)
    }

    @Test func asyncCodeSpellsOneArgumentAsSynchronousCodeDoes() async throws {
        let container = Container()
        container.register(Owner.self, name: "tagged") { (_: AsyncResolver, pet: any Animal) async in
            Owner(pet: pet, tag: 3)
        }
        let pet: any Animal = Dog()

        let owner = try await container.async.require(Owner.self, name: "tagged", argument: pet)
        let resolved = await container.async.resolve(Owner.self, name: "tagged", argument: pet)
        let missing = await container.async.resolve(Owner.self, argument: pet)

        #expect(owner.pet === pet)
        #expect(owner.tag == 3)
        #expect(resolved?.pet === pet)
        #expect(missing == nil)
    }

    @Test func aSynchronousFactoryTakesAProtocolArgumentFromAsyncCode() async throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal, tag: Int) in Owner(pet: pet, tag: tag) }
        let pet: any Animal = Cat()

        let owner = try await container.async.require(Owner.self, arguments: pet, 7)

        #expect(owner.pet === pet)
        #expect(owner.tag == 7)
    }

    @Test func aFactoryPassesAProtocolArgumentOnToTheRegistrationThatDeclaredIt() throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet) }
        container.register(Household.self) { (r: Resolver, pet: any Animal) in
            Household(owner: try r.require(Owner.self, argument: pet))
        }
        let pet: any Animal = Cat()

        let household = try container.require(Household.self, argument: pet)

        #expect(household.owner.pet === pet)
    }

    @Test func aChildContainerFindsTheDeclaringRegistrationInItsParent() throws {
        let parent = Container()
        parent.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet) }
        let child = Container(parent: parent)
        let pet: any Animal = Dog()

        #expect(try child.require(Owner.self, argument: pet).pet === pet)
    }

    @Test func theRegistrationOfTheArgumentsConcreteTypeIsPreferred() throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet, tag: 1) }
        container.register(Owner.self) { (_: Resolver, cat: Cat) in Owner(pet: cat, tag: 2) }
        let pet: any Animal = Cat()

        #expect(try container.require(Owner.self, argument: pet).tag == 2)
        #expect(try container.require(Owner.self, argument: pet as any Animal).tag == 1)
    }

    @Test func twoRegistrationsThatBothTakeTheArgumentLeaveTheRequestMissingAndNameBoth() throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet, tag: 1) }
        container.register(Owner.self) { (_: Resolver, named: any Named) in Owner(pet: Dog(), tag: 2) }
        let pet: any Animal = Cat()

        let error = try #require(throws: ResolutionError.self) { try container.require(Owner.self, argument: pet) }

        #expect(error.reason == .missingRegistration)
        #expect(
            error.description.contains(
                "Each of Owner with arguments (Animal) and Owner with arguments (Named) takes these arguments"))
        #expect(error.description.contains("as any Protocol"))
    }

    @Test func anArgumentOfAnotherTypeIsStillMissing() async throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Owner.self, argument: "Tom") }
        let asyncError = await #expect(throws: ResolutionError.self) {
            try await container.async.require(Owner.self, arguments: "Tom")
        }

        #expect(error.reason == .missingRegistration)
        #expect(asyncError?.reason == .missingRegistration)
    }

    @Test func aSharedRegistrationKeepsTheInstanceItMadeWithAProtocolArgument() throws {
        let container = Container()
        container.register(Owner.self) { (_: Resolver, pet: any Animal) in Owner(pet: pet) }
            .inObjectScope(.container)
        let pet: any Animal = Cat()

        let first = try container.require(Owner.self, argument: pet)
        let second = try container.require(Owner.self, argument: Dog() as any Animal)

        #expect(first === second)
    }
}

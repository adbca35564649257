import Testing
import Weft

/// Parent and child containers: a child sees its parent's registrations (and shares its singletons),
/// a parent does not see its children's.
@Suite struct ContainerHierarchyTests {
    protocol Animal: AnyObject {
        var sound: String { get }
    }

    final class Cat: Animal {
        var sound: String { "Meow" }
    }

    final class Dog: Animal {
        var sound: String { "Woof" }
    }

    final class Food {}

    final class Owner {
        let pet: Animal
        let food: Food
        init(pet: Animal, food: Food) {
            self.pet = pet
            self.food = food
        }
    }

    final class Bowl {
        let food: Food
        init(food: Food) {
            self.food = food
        }
    }

    // MARK: Visibility

    @Test func childResolvesWhatItsParentRegistered() throws {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)

        let animal = try #require(child.resolve(Animal.self))
        #expect(animal is Cat)
    }

    @Test func grandchildResolvesWhatItsGrandparentRegistered() {
        let grandparent = Container()
        grandparent.register(Animal.self, name: "old") { _ in Dog() }
        let grandchild = Container(parent: Container(parent: grandparent))

        #expect(grandchild.resolve(Animal.self, name: "old") is Dog)
    }

    @Test func parentDoesNotResolveWhatItsChildRegistered() {
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Cat() }

        #expect(parent.resolve(Animal.self) == nil)
        #expect(child.resolve(Animal.self) != nil)
    }

    @Test func hasAnyRegistrationLooksInTheParentButNotInTheChildren() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)
        child.register(Food.self) { _ in Food() }

        #expect(child.hasAnyRegistration(of: Animal.self))
        #expect(child.hasAnyRegistration(of: Food.self))
        #expect(!parent.hasAnyRegistration(of: Food.self))
    }

    @Test func childRegistrationOverridesTheParentsForTheChildOnly() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog() }

        #expect(child.resolve(Animal.self) is Dog)
        #expect(parent.resolve(Animal.self) is Cat)
    }

    @Test func childNamedRegistrationDoesNotHideTheParentsUnnamedOne() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)
        child.register(Animal.self, name: "dog") { _ in Dog() }

        #expect(child.resolve(Animal.self) is Cat)
        #expect(child.resolve(Animal.self, name: "dog") is Dog)
    }

    @Test func removeAllOnTheChildLeavesTheParentsRegistrations() {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog() }

        child.removeAll()

        #expect(child.resolve(Animal.self) is Cat)
    }

    @Test func parentFactoryResolvedThroughTheChildSeesTheChildsRegistrations() throws {
        let parent = Container()
        parent.register(Owner.self) { r in
            Owner(pet: try r.require(Animal.self), food: try r.require(Food.self))
        }
        parent.register(Food.self) { _ in Food() }
        let child = Container(parent: parent)
        child.register(Animal.self) { _ in Dog() }

        let owner = try #require(child.resolve(Owner.self))
        #expect(owner.pet is Dog)
        #expect(parent.resolve(Owner.self) == nil)
    }

    // MARK: Sharing

    @Test func containerScopedParentSingletonIsSharedWhenTheParentResolvesFirst() throws {
        let parent = Container()
        parent.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        let child = Container(parent: parent)

        let fromParent = try #require(parent.resolve(Animal.self))
        let fromChild = try #require(child.resolve(Animal.self))
        #expect(fromParent === fromChild)
    }

    @Test func containerScopedParentSingletonIsSharedWhenTheChildResolvesFirst() throws {
        let parent = Container()
        let calls = Counter()
        parent.register(Animal.self) { _ in
            calls.increment()
            return Dog()
        }
        .inObjectScope(.container)
        let child = Container(parent: parent)

        let fromChild = try #require(child.resolve(Animal.self))
        let fromParent = try #require(parent.resolve(Animal.self))
        #expect(fromParent === fromChild)
        #expect(calls.value == 1)
    }

    @Test func siblingChildrenShareTheParentsSingleton() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Food() }.inObjectScope(.container)
        let first = Container(parent: parent)
        let second = Container(parent: parent)

        #expect(try first.require(Food.self) === second.resolve(Food.self))
    }

    @Test func graphScopedParentServiceIsSharedWithinAGraphResolvedByTheChild() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Food() }
        let child = Container(parent: parent)
        child.register(Bowl.self) { r in Bowl(food: r.resolve(Food.self)!) }
        child.register(Animal.self) { _ in Cat() }
        child.register(Owner.self) { r in
            _ = r.resolve(Bowl.self)!
            return Owner(pet: r.resolve(Animal.self)!, food: r.resolve(Food.self)!)
        }
        child.register((Owner, Bowl).self) { r in (r.resolve(Owner.self)!, r.resolve(Bowl.self)!) }

        let (owner, bowl) = try #require(child.resolve((Owner, Bowl).self))
        #expect(owner.food === bowl.food)
        #expect(try child.require(Food.self) !== owner.food)
    }

    @Test func graphScopedParentServiceResolvedThroughTheChildIsNotKeptAlive() {
        let parent = Container()
        parent.register(Food.self) { _ in Food() }
        let child = Container(parent: parent)

        var food = child.resolve(Food.self)
        weak let weakFood = food
        #expect(weakFood != nil, "the child did not resolve the parent's Food")
        food = nil
        #expect(weakFood == nil, "the parent's graph-scoped Food outlived its resolve")
    }

    // MARK: resetObjectScope

    @Test func resetObjectScopeOnTheChildReachesTheParent() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Food() }.inObjectScope(.container)
        let child = Container(parent: parent)
        let before = try #require(child.resolve(Food.self))

        child.resetObjectScope(.container)

        let fromChild = try #require(child.resolve(Food.self))
        #expect(fromChild !== before)
        #expect(parent.resolve(Food.self) === fromChild)
    }

    @Test func resetObjectScopeOnTheParentDoesNotReachTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        child.register(Food.self) { _ in Food() }.inObjectScope(.container)
        let before = try #require(child.resolve(Food.self))

        parent.resetObjectScope(.container)

        #expect(child.resolve(Food.self) === before)
    }

    @Test func resetObjectScopeForAServiceTypeOnTheChildReachesTheParent() throws {
        let parent = Container()
        parent.register(Food.self, name: "parent") { _ in Food() }.inObjectScope(.container)
        parent.register(Animal.self) { _ in Cat() }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.register(Food.self, name: "child") { _ in Food() }.inObjectScope(.container)
        let parentFood = try #require(child.resolve(Food.self, name: "parent"))
        let childFood = try #require(child.resolve(Food.self, name: "child"))
        let animal = try #require(child.resolve(Animal.self))

        child.resetObjectScope(.container, serviceType: Food.self)

        #expect(try child.require(Food.self, name: "parent") !== parentFood)
        #expect(try child.require(Food.self, name: "child") !== childFood)
        #expect(child.resolve(Animal.self) === animal)
    }

    @Test func resetObjectScopeForAServiceTypeReachesTheParentEvenWhenTheChildHasNoSuchRegistration() throws {
        let parent = Container()
        parent.register(Food.self) { _ in Food() }.inObjectScope(.container)
        let child = Container(parent: parent)
        let before = try #require(child.resolve(Food.self))

        child.resetObjectScope(.container, serviceType: Food.self)

        #expect(try child.require(Food.self) !== before)
    }
}

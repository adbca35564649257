import Testing
import Weft

/// Assemblies and the assembler (grouping registrations, `loaded(resolver:)` after everything is assembled,
/// parent assemblers) and behaviors (told about every registration and every forwarded type).
@Suite struct AssemblyBehaviorTests {
    protocol Animal: AnyObject {}
    protocol Pet: AnyObject {}
    protocol Friend: AnyObject {}
    final class Cat: Animal {}
    final class Dog: Animal, Pet, Friend {}

    final class Food {}

    /// Registers one service and records when it is assembled and loaded.
    struct RecordingAssembly: LoadAwareAssembly {
        let label: String
        let log: Collected<String>
        var register: (Container) -> Void = { _ in }
        var onLoaded: (any Resolver) -> Void = { _ in }

        func assemble(container: Container) {
            log.append("assemble \(label)")
            register(container)
        }

        func loaded(resolver: any Resolver) {
            log.append("loaded \(label)")
            onLoaded(resolver)
        }
    }

    /// A plain assembly that does not implement `loaded(resolver:)`.
    struct FoodAssembly: Assembly {
        func assemble(container: Container) {
            container.register(Food.self) { _ in Food() }
        }
    }

    // MARK: Assembler

    @Test func assemblerResolvesWhatItsAssembliesRegistered() {
        let log = Collected<String>()
        let assembler = Assembler([
            RecordingAssembly(label: "animals", log: log, register: { $0.register(Animal.self) { _ in Cat() } }),
            FoodAssembly(),
        ])

        #expect(assembler.resolver.resolve(Animal.self) is Cat)
        #expect(assembler.resolver.resolve(Food.self) != nil)
    }

    @Test func everyAssemblyIsAssembledBeforeAnyIsLoaded() {
        let log = Collected<String>()
        _ = Assembler([
            RecordingAssembly(label: "A", log: log),
            RecordingAssembly(label: "B", log: log),
            RecordingAssembly(label: "C", log: log),
        ])

        #expect(log.values == ["assemble A", "assemble B", "assemble C", "loaded A", "loaded B", "loaded C"])
    }

    @Test func loadedCanResolveWhatALaterAssemblyRegistered() {
        let log = Collected<String>()
        let resolvedInLoaded = Counter()
        _ = Assembler([
            RecordingAssembly(
                label: "first",
                log: log,
                onLoaded: { resolver in
                    if resolver.resolve(Food.self) != nil { resolvedInLoaded.increment() }
                }
            ),
            FoodAssembly(),
        ])

        #expect(resolvedInLoaded.value == 1)
    }

    @Test func applyAssemblyAddsRegistrationsAndLoadsOnlyTheNewAssembly() {
        let log = Collected<String>()
        let assembler = Assembler([RecordingAssembly(label: "A", log: log)])

        assembler.apply(
            assembly: RecordingAssembly(label: "B", log: log, register: { $0.register(Animal.self) { _ in Dog() } })
        )

        #expect(log.values == ["assemble A", "loaded A", "assemble B", "loaded B"])
        #expect(assembler.resolver.resolve(Animal.self) is Dog)
    }

    @Test func applyAssembliesAssemblesAllBeforeLoadingAny() {
        let log = Collected<String>()
        let assembler = Assembler([])

        assembler.apply(assemblies: [
            RecordingAssembly(label: "X", log: log),
            RecordingAssembly(label: "Y", log: log),
        ])

        #expect(log.values == ["assemble X", "assemble Y", "loaded X", "loaded Y"])
    }

    @Test func assemblerWithAParentResolvesTheParentsServices() {
        let parent = Assembler([FoodAssembly()])
        let log = Collected<String>()
        let child = Assembler(
            [RecordingAssembly(label: "child", log: log, register: { $0.register(Animal.self) { _ in Cat() } })],
            parent: parent
        )

        #expect(child.resolver.resolve(Food.self) != nil)
        #expect(child.resolver.resolve(Animal.self) is Cat)
        #expect(parent.resolver.resolve(Animal.self) == nil)
    }

    @Test func emptyAssemblerWithAParentAssemblerSeesTheParentsServices() {
        let parent = Assembler([FoodAssembly()])
        let child = Assembler(parentAssembler: parent)

        #expect(child.resolver.resolve(Food.self) != nil)
    }

    @Test func assemblerWithAParentSharesTheParentsSingletons() {
        let log = Collected<String>()
        let parent = Assembler([
            RecordingAssembly(
                label: "parent",
                log: log,
                register: { $0.register(Food.self) { _ in Food() }.inObjectScope(.container) }
            )
        ])
        let child = Assembler([], parent: parent)

        let fromChild: Food? = child.resolver.resolve(Food.self)
        #expect(fromChild != nil)
        #expect(fromChild === parent.resolver.resolve(Food.self))
    }

    @Test func assemblerAppliesTheDefaultObjectScopeToItsAssemblies() {
        let assembler = Assembler([FoodAssembly()], parent: nil, defaultObjectScope: .container)

        let first: Food? = assembler.resolver.resolve(Food.self)
        #expect(first != nil)
        #expect(first === assembler.resolver.resolve(Food.self))
    }

    @Test func assemblerRegistersIntoTheContainerItIsGiven() {
        let container = Container()
        _ = Assembler([FoodAssembly()], container: container)

        #expect(container.resolve(Food.self) != nil)
    }

    // MARK: Behavior

    /// Records every registration it is told about.
    final class RecordingBehavior: Behavior {
        let log = Collected<String>()
        private(set) var entries: [ObjectIdentifier] = []

        func container<Type, Service>(
            _ container: Container,
            didRegisterType type: Type.Type,
            toService entry: ServiceEntry<Service>,
            withName name: String?
        ) {
            log.append("\(type) as \(Service.self) named \(name ?? "-")")
            entries.append(ObjectIdentifier(entry))
        }
    }

    @Test func behaviorIsToldAboutEachRegistration() {
        let behavior = RecordingBehavior()
        let container = Container()
        container.addBehavior(behavior)

        container.register(Animal.self) { _ in Cat() }
        container.register(Food.self, name: "dinner") { _ in Food() }

        #expect(behavior.log.values == ["Animal as Animal named -", "Food as Food named dinner"])
    }

    @Test func behaviorIsToldAboutEachForwardedTypeWithItsName() {
        let behavior = RecordingBehavior()
        let container = Container()
        container.addBehavior(behavior)

        let entry = container.register(Dog.self) { _ in Dog() }
            .implements(Animal.self, name: "animal")
        container.forward(Pet.self, name: "pet", to: entry)

        #expect(
            behavior.log.values == [
                "Dog as Dog named -",
                "Animal as Dog named animal",
                "Pet as Dog named pet",
            ]
        )
        #expect(behavior.entries == Array(repeating: ObjectIdentifier(entry), count: 3))
    }

    @Test func behaviorIsToldAboutEveryTypeOfAMultiTypeImplements() {
        let behavior = RecordingBehavior()
        let container = Container()
        container.addBehavior(behavior)

        container.register(Dog.self) { _ in Dog() }.implements(Animal.self, Pet.self, Friend.self)

        #expect(
            behavior.log.values == [
                "Dog as Dog named -",
                "Animal as Dog named -",
                "Pet as Dog named -",
                "Friend as Dog named -",
            ]
        )
    }

    @Test func behaviorGivenToTheInitializerSeesTheRegisteringClosuresRegistrations() {
        let behavior = RecordingBehavior()
        _ = Container(behaviors: [behavior]) { container in
            container.register(Animal.self) { _ in Cat() }
        }

        #expect(behavior.log.values == ["Animal as Animal named -"])
    }

    @Test func behaviorIsNotToldAboutRegistrationsMadeBeforeItWasAdded() {
        let behavior = RecordingBehavior()
        let container = Container()
        container.register(Animal.self) { _ in Cat() }

        container.addBehavior(behavior)
        container.register(Food.self) { _ in Food() }

        #expect(behavior.log.values == ["Food as Food named -"])
    }

    @Test func assemblerPassesBehaviorsToItsContainer() {
        let behavior = RecordingBehavior()
        _ = Assembler([FoodAssembly()], parent: nil, behaviors: [behavior])

        #expect(behavior.log.values == ["Food as Food named -"])
    }
}

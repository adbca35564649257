import Testing
import Weft

/// Registering and resolving with the service type inferred: from the factory's result, and from the type
/// the resolved value is assigned to.
@Suite struct TypeInferenceTests {
    final class ClassA {
        let b: ClassB
        init(b: ClassB) {
            self.b = b
        }
    }

    final class ClassB {}

    protocol Animal: AnyObject {
        var name: String { get }
    }

    final class Cat: Animal {
        let name: String
        init(name: String = "Mimi") {
            self.name = name
        }
    }

    struct Ticket {
        let seat: Int
        let row: String
    }

    enum Broken: Error {
        case noFuel
    }

    // MARK: Registration

    @Test func registerInfersTheServiceTypeFromTheFactoryResult() throws {
        let container = Container()
        container.register { _ in ClassB() }
        container.register { r in ClassA(b: try r.require()) }

        let a: ClassA = try container.require()
        let b: ClassB? = container.resolve()

        #expect(container.hasAnyRegistration(of: ClassA.self))
        #expect(container.hasAnyRegistration(of: ClassB.self))
        #expect(b != nil && a.b !== b)  // graph scope: a new ClassB for each resolve
    }

    @Test func zeroArgumentFactoryRegistersItsResultType() throws {
        let container = Container()
        let made = ClassB()
        container.register { made }
        container.register { r in ClassA(b: try r.require()) }

        let a = try container.require(ClassA.self)

        #expect(container.hasAnyRegistration(of: ClassB.self))
        #expect(a.b === made, "ClassA did not get the instance of the zero-argument factory")
    }

    @Test func inferredRegistrationsTakeNames() throws {
        let container = Container()
        container.register(name: "short") { Ticket(seat: 1, row: "A") }
        container.register(name: "long") { _ in Ticket(seat: 40, row: "Z") }

        let short: Ticket = try container.require(name: "short")
        let long: Ticket = try container.require(name: "long")

        #expect(short.seat == 1)
        #expect(long.row == "Z")
        #expect(container.resolve(Ticket.self) == nil)
    }

    @Test func inferredRegistrationReturnsAnEntryToConfigure() throws {
        let container = Container()
        container.register { ClassB() }.inObjectScope(.container)

        let first: ClassB = try container.require()
        let second: ClassB = try container.require()

        #expect(first === second)
    }

    @Test func resultConvertedToAProtocolRegistersTheProtocol() throws {
        let container = Container()
        container.register { Cat(name: "Tom") as any Animal }

        let animal: any Animal = try container.require()

        #expect(animal.name == "Tom")
        #expect(container.resolve(Cat.self) == nil)
    }

    @Test func inferredRegistrationTakesRuntimeArguments() throws {
        let container = Container()
        container.register { (_, seat: Int, row: String) in Ticket(seat: seat, row: row) }

        let ticket: Ticket = try container.require(arguments: 12, "F")
        let optional: Ticket? = container.resolve(arguments: 3, "B")

        #expect(ticket.seat == 12 && ticket.row == "F")
        #expect(optional?.seat == 3)
        #expect(container.resolve(Ticket.self, arguments: 7, "C")?.seat == 7)
    }

    @Test func throwingInferredFactoriesReportTheirError() throws {
        let container = Container()
        container.register { () throws -> ClassB in throw Broken.noFuel }
        container.register { r in ClassA(b: try r.require()) }

        let error = try #require(throws: ResolutionError.self) {
            let _: ClassA = try container.require()
        }

        #expect(error.reason == .factoryFailed)
        #expect(error.underlyingError as? Broken == .noFuel)
        #expect(error.path == ["ClassA", "ClassB"])
    }

    // MARK: Resolution

    @Test func requireInfersTheTypeInsideFactories() throws {
        let container = Container()
        let made = ClassB()
        container.register(ClassB.self) { _ in made }
        container.register(ClassA.self) { r in
            let b: ClassB = try r.require()
            return ClassA(b: b)
        }

        let a: ClassA = try container.require()

        #expect(a.b === made, "the inferred require inside the factory did not resolve ClassB")
    }

    @Test func inferredRequireThrowsForTheInferredType() throws {
        let container = Container()

        let error = try #require(throws: ResolutionError.self) {
            let _: ClassB = try container.require(name: "missing")
        }

        #expect(error.serviceType == "ClassB")
        #expect(error.name == "missing")
    }

    @Test func inferredResolveReturnsNilWhenNothingIsRegistered() {
        let container = Container()
        container.register { ClassB() }

        let missing: ClassA? = container.resolve()
        let present: ClassB? = container.resolve()
        let wrongName: ClassB? = container.resolve(name: "other")

        #expect(missing == nil)
        #expect(present != nil)
        #expect(wrongName == nil)
    }

    @Test func swinjectSpellingsStillPickTheNamedType() throws {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "Felix") }
        container.register(Animal.self, name: "kitten") { _, name in Cat(name: name) }

        #expect(container.resolve(Animal.self)?.name == "Felix")
        #expect(container.resolve(Animal.self, name: "kitten", argument: "Kit")?.name == "Kit")
        #expect(container.resolve(Cat.self) == nil)
    }
}

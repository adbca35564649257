import Foundation
import Testing
import Weft

/// Runtime arguments, passed through parameter packs: any number of them, with the Swinject spellings
/// `resolve(_:argument:)` and `resolve(_:arguments:...)`, and the throwing `require` forms.
@Suite struct ArgumentTests {
    protocol Animal {
        var name: String { get }
    }

    struct Cat: Animal {
        var name: String
    }

    /// Records every argument it was made with.
    struct Record: Equatable {
        var values: [String]
    }

    // MARK: Arity

    @Test func oneArgument() {
        let container = Container()
        container.register(Record.self) { (_, a: Int) in Record(values: ["\(a)"]) }

        #expect(container.resolve(Record.self, argument: 1) == Record(values: ["1"]))
        #expect(container.resolve(Record.self, arguments: 1) == Record(values: ["1"]))
    }

    @Test func twoArguments() {
        let container = Container()
        container.register(Record.self) { (_, a: Int, b: String) in Record(values: ["\(a)", b]) }

        #expect(container.resolve(Record.self, arguments: 1, "two") == Record(values: ["1", "two"]))
    }

    @Test func threeArguments() {
        let container = Container()
        container.register(Record.self) { (_, a: Int, b: String, c: Bool) in Record(values: ["\(a)", b, "\(c)"]) }

        #expect(container.resolve(Record.self, arguments: 1, "two", true) == Record(values: ["1", "two", "true"]))
    }

    @Test func fourArguments() {
        let container = Container()
        container.register(Record.self) { (_, a: Int, b: String, c: Bool, d: Double) in
            Record(values: ["\(a)", b, "\(c)", "\(d)"])
        }

        #expect(
            container.resolve(Record.self, arguments: 1, "two", true, 4.5)
                == Record(values: ["1", "two", "true", "4.5"])
        )
    }

    @Test func fiveArguments() {
        let container = Container()
        container.register(Record.self) { (_, a: Int, b: Int, c: Int, d: Int, e: Int) in
            Record(values: [a, b, c, d, e].map(String.init))
        }

        #expect(container.resolve(Record.self, arguments: 1, 2, 3, 4, 5) == Record(values: ["1", "2", "3", "4", "5"]))
    }

    @Test func sixArguments() {
        let container = Container()
        container.register(Record.self) { (_, a: Int, b: String, c: Int, d: String, e: Int, f: String) in
            Record(values: ["\(a)", b, "\(c)", d, "\(e)", f])
        }

        #expect(
            container.resolve(Record.self, arguments: 1, "b", 3, "d", 5, "f")
                == Record(values: ["1", "b", "3", "d", "5", "f"])
        )
    }

    @Test func moreArgumentsThanSwinjectsGeneratedOverloads() throws {
        // Swinject stops at nine generated overloads; a parameter pack has no limit.
        let container = Container()
        container.register(Record.self) {
            (_, a: Int, b: Int, c: Int, d: Int, e: Int, f: Int, g: Int, h: Int, i: Int, j: Int, k: Int) in
            Record(values: [a, b, c, d, e, f, g, h, i, j, k].map(String.init))
        }

        let record = try container.require(Record.self, arguments: 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11)
        #expect(record.values == (1...11).map(String.init))
    }

    @Test func zeroArguments() throws {
        let container = Container()
        container.register(Record.self) { _ in Record(values: []) }

        #expect(container.resolve(Record.self) == Record(values: []))
        #expect(try container.require(Record.self) == Record(values: []))
        // `()` is one argument of type Void, not an empty list.
        #expect(container.resolve(Record.self, argument: ()) == nil)
    }

    // MARK: Spellings

    @Test func namedRegistrationsWithArguments() throws {
        let container = Container()
        container.register(Animal.self, name: "cat") { (_, name: String) in Cat(name: "cat " + name) }
        container.register(Animal.self, name: "other") { (_, name: String) in Cat(name: "other " + name) }

        #expect(container.resolve(Animal.self, name: "cat", argument: "Mimi")?.name == "cat Mimi")
        #expect(container.resolve(Animal.self, name: "other", arguments: "Mimi")?.name == "other Mimi")
        #expect(try container.require(Animal.self, name: "cat", arguments: "Tama").name == "cat Tama")
        #expect(try container.require(Animal.self, name: "other", argument: "Tama").name == "other Tama")
        #expect(container.resolve(Animal.self, argument: "Mimi") == nil)
        #expect(container.resolve(Animal.self, name: "dog", argument: "Mimi") == nil)
    }

    @Test func requireWithArgumentsReturnsTheInstance() throws {
        let container = Container()
        container.register(Animal.self) { (_, name: String, age: Int) in Cat(name: "\(name) (\(age))") }

        #expect(try container.require(Animal.self, arguments: "Mimi", 3).name == "Mimi (3)")
    }

    @Test func requireWithOneArgumentReturnsTheInstance() throws {
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }

        #expect(try container.require(Animal.self, argument: "Mimi").name == "Mimi")
    }

    @Test func factoriesPassArgumentsOnThroughTheirResolver() throws {
        struct Owner {
            var pet: Animal
        }
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }
        container.register(Owner.self) { (r, petName: String) in
            Owner(pet: try r.require(Animal.self, argument: petName))
        }

        #expect(try container.require(Owner.self, argument: "Kuro").pet.name == "Kuro")
        #expect(container.resolve(Owner.self, argument: "Shiro")?.pet.name == "Shiro")
    }

    // MARK: Keys

    @Test func registrationsThatDifferOnlyInArgumentTypesAreDifferentRegistrations() {
        let container = Container()
        container.register(Animal.self) { _ in Cat(name: "none") }
        container.register(Animal.self) { (_, name: String) in Cat(name: "string " + name) }
        container.register(Animal.self) { (_, age: Int) in Cat(name: "int \(age)") }
        container.register(Animal.self) { (_, name: String, age: Int) in Cat(name: "both \(name) \(age)") }

        #expect(container.resolve(Animal.self)?.name == "none")
        #expect(container.resolve(Animal.self, argument: "a")?.name == "string a")
        #expect(container.resolve(Animal.self, argument: 7)?.name == "int 7")
        #expect(container.resolve(Animal.self, arguments: "a", 7)?.name == "both a 7")
    }

    @Test func argumentOrderIsPartOfTheKey() {
        let container = Container()
        container.register(Animal.self) { (_, name: String, age: Int) in Cat(name: "\(name)/\(age)") }

        #expect(container.resolve(Animal.self, arguments: "Mimi", 2)?.name == "Mimi/2")
        #expect(container.resolve(Animal.self, arguments: 2, "Mimi") == nil)
    }

    @Test func wrongArgumentTypeGivesNil() {
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }

        #expect(container.resolve(Animal.self, argument: 3) == nil)
        #expect(container.resolve(Animal.self, arguments: "Mimi", 3) == nil)
        #expect(container.resolve(Animal.self) == nil)
    }

    @Test func wrongArgumentTypeMakesRequireThrowMissingRegistration() throws {
        let container = Container()
        container.register(Animal.self) { (_, name: String) in Cat(name: name) }

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Animal.self, argument: 3)
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.serviceType == "Animal")
        #expect(error.argumentTypes == ["Int"])
        #expect(error.path == ["Animal"])
        #expect(error.suggestions.contains { $0.contains("String") })
        let headline = "[Weft.missingRegistration] No registration for Animal with arguments (Int)."
        #expect(error.description.hasPrefix(headline))
    }

    @Test func anArgumentOfAnotherTypeReachesTheOneRegistrationWhoseDeclaredTypeTakesIt() {
        let container = Container()
        container.register(String.self) { (_, pet: Animal) in pet.name }
        container.register(String.self) { (_, age: Int?) in age.map(String.init) ?? "unknown" }

        #expect(container.resolve(String.self, argument: Cat(name: "Mimi")) == "Mimi")
        #expect(container.resolve(String.self, argument: Cat(name: "Mimi") as Animal) == "Mimi")
        #expect(container.resolve(String.self, argument: 3) == "3")
        #expect(container.resolve(String.self, argument: Int?.none) == "unknown")
        #expect(container.resolve(String.self, argument: Int?(3)) == "3")
        #expect(container.resolve(String.self, argument: "three") == nil)
    }

    @Test func aTupleIsOneArgumentNotSeveral() {
        let container = Container()
        container.register(String.self) { (_, pair: (Int, Int)) in "pair \(pair.0),\(pair.1)" }
        container.register(String.self) { (_, a: Int, b: Int) in "two \(a),\(b)" }

        #expect(container.resolve(String.self, argument: (1, 2)) == "pair 1,2")
        #expect(container.resolve(String.self, arguments: 1, 2) == "two 1,2")
    }

    @Test func eachResolveWithArgumentsRunsTheFactoryWithThoseArguments() {
        let container = Container()
        let calls = Counter()
        container.register(Animal.self) { (_, name: String) in
            calls.increment()
            return Cat(name: name)
        }

        #expect(container.resolve(Animal.self, argument: "a")?.name == "a")
        #expect(container.resolve(Animal.self, argument: "b")?.name == "b")
        #expect(calls.value == 2)
    }
}

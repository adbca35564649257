import Foundation
import Testing
import Weft

/// What a file written for SwinjectAutoregistration relies on: `autoregister` with dependencies of any types
/// and runtime arguments matched to parameters by type, and the `~>` operator in all its forms.
@Suite struct SwinjectAutoregistrationCompatTests {
    final class Logger {}
    final class Cache {}
    final class Unregistered {}

    protocol Titled {
        var title: String { get }
    }

    final class Book: Titled {
        let title: String
        init(title: String) { self.title = title }
    }

    final class Report {
        let logger: Logger
        let cache: Cache
        init(logger: Logger, cache: Cache) { (self.logger, self.cache) = (logger, cache) }
    }

    final class Profile {
        let logger: Logger
        let userID: String
        let cache: Cache
        init(logger: Logger, userID: String, cache: Cache) {
            (self.logger, self.userID, self.cache) = (logger, userID, cache)
        }
    }

    final class Page {
        let number: Int
        let logger: Logger
        let path: String
        let zoomed: Bool
        init(number: Int, logger: Logger, path: String, zoomed: Bool) {
            (self.number, self.logger, self.path, self.zoomed) = (number, logger, path, zoomed)
        }
    }

    final class Label {
        let text: String
        let caption: String
        init(text: String, caption: String) { (self.text, self.caption) = (text, caption) }
    }

    final class Shelf {
        let item: any Titled
        let note: String?
        init(item: any Titled, note: String?) { (self.item, self.note) = (item, note) }
    }

    final class Needy {
        init(logger: Logger, missing: Unregistered, name: String) {}
    }

    private func container() -> Container {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.autoregister(Cache.self, initializer: Cache.init).inObjectScope(.container)
        return container
    }

    // MARK: autoregister

    @Test func autoregisterResolvesDependenciesOfDifferentTypes() throws {
        let container = container()
        container.autoregister(Report.self, initializer: Report.init)

        let report = try container.require(Report.self)
        #expect(report.cache === (try container.require(Cache.self)))
    }

    @Test func autoregisterPassesAnArgumentWhereverItAppearsInTheInitializer() throws {
        let container = container()
        container.autoregister(Profile.self, argument: String.self, initializer: Profile.init)

        let profile = try container.require(Profile.self, argument: "42")
        #expect(profile.userID == "42")
        #expect(profile.cache === (try container.require(Cache.self)))
        #expect(container.resolve(Profile.self) == nil)
    }

    @Test func autoregisterTakesArgumentsInAnOrderOtherThanTheParameters() throws {
        let container = container()
        container.autoregister(Page.self, arguments: Bool.self, String.self, Int.self, initializer: Page.init)

        let page = try container.require(Page.self, arguments: true, "/intro", 7)
        #expect((page.number, page.path, page.zoomed) == (7, "/intro", true))
    }

    @Test func autoregisterTakesAnyNumberOfArguments() throws {
        let container = container()
        container.autoregister(Page.self, name: "all", arguments: Int.self, Logger.self, String.self, Bool.self) {
            (number: Int, logger: Logger, path: String, zoomed: Bool) in
            Page(number: number, logger: logger, path: path, zoomed: zoomed)
        }
        let logger = Logger()

        let page = try container.require(Page.self, name: "all", arguments: 3, logger, "/end", false)
        #expect(page.logger === logger)
        #expect((page.number, page.path, page.zoomed) == (3, "/end", false))
    }

    @Test func everyParameterOfAnArgumentsTypeReceivesThatArgument() throws {
        let container = Container()
        container.autoregister(Label.self, argument: String.self, initializer: Label.init)

        let label = try container.require(Label.self, argument: "Hello")
        #expect((label.text, label.caption) == ("Hello", "Hello"))
    }

    @Test func argumentsOfTheSameTypeGoToTheParametersOfThatTypeInOrder() throws {
        let container = Container()
        container.autoregister(Label.self, arguments: String.self, String.self, initializer: Label.init)

        let label = try container.require(Label.self, arguments: "Title", "Subtitle")
        #expect((label.text, label.caption) == ("Title", "Subtitle"))
    }

    @Test func anArgumentFitsAProtocolOrOptionalParameter() throws {
        let container = Container()
        container.autoregister(Shelf.self, arguments: Book.self, String.self, initializer: Shelf.init)

        let shelf = try container.require(Shelf.self, arguments: Book(title: "Dune"), "signed")
        #expect(shelf.item.title == "Dune")
        #expect(shelf.note == "signed")
    }

    @Test func aMissingDependencyOfAServiceWithArgumentsThrowsAResolutionErrorWithItsPath() throws {
        let container = container()
        container.autoregister(Needy.self, argument: String.self, initializer: Needy.init)

        let error = try #require(throws: ResolutionError.self) {
            try container.require(Needy.self, argument: "x")
        }
        #expect(error.reason == .missingRegistration)
        #expect(error.path == ["Needy", "Unregistered"])
        #expect(container.resolve(Needy.self, argument: "x") == nil)
    }

    @Test func verifyKnowsTheResolvedParametersAndLeavesOutTheArguments() throws {
        let container = container()
        container.autoregister(Profile.self, argument: String.self, initializer: Profile.init)
        container.autoregister(Needy.self, argument: String.self, initializer: Needy.init)

        let report = container.verificationReport()
        let problem = try #require(report.problems.only)
        #expect(problem.kind == .missingRegistration)
        #expect(problem.service == "Unregistered")

        let profile = try #require(report.graph.nodes.first { $0.serviceType == "Profile" })
        #expect(profile.argumentTypes == ["String"])
        let needed = report.graph.dependencies(of: profile.id).compactMap { report.graph.node(id: $0.to)?.serviceType }
        #expect(needed.sorted() == ["Cache", "Logger"])
    }

    @Test func verifyLeavesOutAProtocolArgumentDeclaredWithTheParametersType() throws {
        let container = Container()
        container.autoregister(Shelf.self, arguments: (any Titled).self, String.self, initializer: Shelf.init)

        #expect(container.verificationReport().isValid)
        let shelf = try container.require(Shelf.self, arguments: Book(title: "Emma") as any Titled, "note")
        #expect(shelf.item.title == "Emma")
    }

    // MARK: The ~> operator

    final class Engine {}

    final class Car {
        let engine: Engine
        let spare: Engine
        init(engine: Engine, spare: Engine) { (self.engine, self.spare) = (engine, spare) }
    }

    final class Trip {
        let from: String
        let miles: Int
        let car: Car
        init(from: String, miles: Int, car: Car) { (self.from, self.miles, self.car) = (from, miles, car) }
    }

    private func garage() -> Container {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
        container.register(Engine.self, name: "spare") { _ in Engine() }.inObjectScope(.container)
        container.register(Car.self) { r in Car(engine: r~>, spare: r ~> (Engine.self, name: "spare")) }
        container.register(Trip.self) { r, from, miles in Trip(from: from, miles: miles, car: r~>) }
        container.register(Trip.self, name: "named") { r, from in Trip(from: from, miles: 0, car: r ~> Car.self) }
        container.register(Trip.self, name: "named") { r, from, miles in Trip(from: from, miles: miles, car: r~>) }
        return container
    }

    @Test func postfixOperatorResolvesTheTypeTheResultIsUsedAs() {
        let container = garage()

        let car: Car = container~>
        #expect(car.engine === (container ~> Engine.self))
        #expect(car.spare === (container ~> (Engine.self, name: "spare")))
        #expect(car.engine !== car.spare)
    }

    @Test func operatorPassesOneArgumentWithOrWithoutAName() {
        let container = garage()
        container.register(Trip.self) { r, from in Trip(from: from, miles: 1, car: r~>) }

        let trip = container ~> (Trip.self, argument: "Oslo")
        let named = container ~> (Trip.self, name: "named", argument: "Bergen")
        #expect((trip.from, trip.miles, named.from, named.miles) == ("Oslo", 1, "Bergen", 0))
    }

    @Test func operatorPassesATupleOfArgumentsOfAnyArity() {
        let container = garage()
        container.register(Page.self) { r, number, path, zoomed, logger in
            Page(number: number, logger: logger, path: path, zoomed: zoomed)
        }

        let trip = container ~> (Trip.self, arguments: ("Oslo", 120))
        let named = container ~> (Trip.self, name: "named", arguments: ("Bergen", 80))
        let page = container ~> (Page.self, arguments: (4, "/four", true, Logger()))
        #expect((trip.from, trip.miles, named.from, named.miles) == ("Oslo", 120, "Bergen", 80))
        #expect((page.number, page.path, page.zoomed) == (4, "/four", true))
    }

    @Test func operatorResolvesAnOptionalTypeToNilWhenNothingIsRegistered() {
        let container = garage()

        let missing = container ~> Unregistered?.self
        let present: Engine? = container~>
        #expect(missing == nil)
        #expect(present != nil)
    }

    @Test func operatorResolvesAServiceAutoregisteredWithArguments() {
        let container = container()
        container.autoregister(Profile.self, argument: String.self, initializer: Profile.init)
        container.autoregister(Page.self, arguments: Int.self, String.self, Bool.self, initializer: Page.init)

        let profile = container ~> (Profile.self, argument: "7")
        let page = container ~> (Page.self, arguments: (2, "/two", false))
        #expect((profile.userID, page.number, page.path) == ("7", 2, "/two"))
    }

    @Test func operatorStopsTheProgramWithTheResolutionErrorWhenTheServiceCannotBeMade() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let container = Container()
            container.register(Car.self) { r in Car(engine: r~>, spare: r~>) }
            let car = container ~> Car.self
            print("made", car)
        }
        let output = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)

        #expect(output.contains("~> could not resolve Engine."))
        #expect(output.contains("[Weft.missingRegistration] No registration for"))
        #expect(output.contains("Resolution path: Car -> Engine"))
    }
}

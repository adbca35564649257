// Section 4: a short tour of object scopes and of what `require` says when a registration is missing.

import Weft

/// The types of the closing section.
enum ScopesAndErrors {
    /// A service whose identity the scope decides.
    final class Token {}

    /// Asks for the same `Token` registration twice while it is being built.
    final class Pair {
        let first: Token
        let second: Token

        init(first: Token, second: Token) {
            self.first = first
            self.second = second
        }
    }

    final class Engine {}

    final class Car {
        let engine: Engine

        init(engine: Engine) {
            self.engine = engine
        }
    }

    final class Garage {
        let car: Car

        init(car: Car) {
            self.car = car
        }
    }
}

private typealias Token = ScopesAndErrors.Token
private typealias Pair = ScopesAndErrors.Pair

/// Compares instance identity in the three main scopes, then prints a missing-registration error.
func runScopesAndErrorsDemo() throws {
    heading("4. Scopes, and what a missing registration looks like")

    let scopes: [(ObjectScope, String)] = [
        (.transient, "a new Token every time it is asked for"),
        (.graph, "one Token per object graph, i.e. per top-level resolve (the default)"),
        (.container, "one Token for the container's lifetime (a singleton)"),
    ]
    for (scope, meaning) in scopes {
        let container = Container()
        container.register(Token.self) { _ in Token() }.inObjectScope(scope)
        container.register(Pair.self) { r in
            Pair(first: try r.require(Token.self), second: try r.require(Token.self))
        }
        let pair = try container.require(Pair.self)
        let again = try container.require(Pair.self)

        scenario(".\(scope): \(meaning)")
        say("inside one Pair, first === second: \(yesNo(pair.first === pair.second))")
        say("two separate resolves share the Token: \(yesNo(pair.first === again.first))")
    }

    try missingRegistration()
}

private func missingRegistration() throws {
    typealias Engine = ScopesAndErrors.Engine
    typealias Car = ScopesAndErrors.Car
    typealias Garage = ScopesAndErrors.Garage

    let container = Container()
    container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }
    container.register(Car.self) { r in Car(engine: try r.require(Engine.self)) }
    container.register(Engine.self, name: "v6") { _ in Engine() }

    scenario("Garage needs a Car, Car needs an Engine, but only an Engine named \"v6\" is registered:")
    do {
        let garage = try container.require(Garage.self)
        say("Unexpected: got \(garage).")
    } catch {
        printIndented(String(describing: error), indent: "    | ")
    }
    say("The path shows which factory asked for the missing service, and the last line what exists instead.")
}

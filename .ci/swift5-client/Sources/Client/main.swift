import Weft

// The README's example, then the rest of the everyday API, as a Swift 5 module writes it.
protocol Greeter { func greet(_ name: String) -> String }
struct English: Greeter { func greet(_ name: String) -> String { "Hello, \(name)!" } }
struct Welcome {
    let greeter: any Greeter
    let guest: String
}

let container = Container()
container.register(Greeter.self) { _ in English() }.inObjectScope(.container)
container.register(Welcome.self) { r, guest in Welcome(greeter: try r.require(Greeter.self), guest: guest) }

let welcome = try container.require(Welcome.self, arguments: "Ada")
print(welcome.greeter.greet(welcome.guest))

final class Engine {}
final class Car {
    let engine: Engine
    init(engine: Engine) { self.engine = engine }
}
final class Garage {
    @LazyInjected var car: Car
    init(container: Container) { _car = LazyInjected(container: container) }
}
container.register(Engine.self) { _ in Engine() }.inObjectScope(.container)
container.autoregister(Car.self, initializer: Car.init)
container.decorate(Car.self) { _, car in car }
let car: Car = container ~> Car.self
let lazyCar = try container.require(Lazy<Car>.self)
print(lazyCar.instance.engine === car.engine, Garage(container: container).car.engine === car.engine)

container.register(Double.self) { (_: AsyncResolver) async in 2.5 }
let scope = container.makeScope()
let report = container.verificationReport()
print(report.isValid)

func asynchronous() async throws {
    print(try await container.async.require(Double.self))
    try await scope.end()
}

import Testing
import Weft

/// A registration whose service type is given as a metatype value of a subclass (`register(type(of: base))`)
/// makes instances of its static type: a request for the subclass never gets a base instance as the subclass.
@Suite struct MetatypeValueRegistrationTests {
    class Vehicle {}
    final class Truck: Vehicle {
        let axles = 6
    }

    @Test func aRequestForTheSubclassOfARegistrationMadeWithItsMetatypeValueGetsNoBaseInstance() throws {
        let container = Container()
        let sample: Vehicle = Truck()
        container.register(type(of: sample)) { _ in Vehicle() }
        for _ in 0..<3 {
            let truck = container.resolve(Truck.self)
            #expect(truck == nil || type(of: truck!) == Truck.self)
            if let truck { #expect(truck.axles == 6) }
        }
    }
}

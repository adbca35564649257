import Foundation
import Testing
import Weft

/// Registrations that outlive the container they were made in: they refer to it without keeping it alive, and
/// what they would hand it (a type to answer for, an instance to tear down) goes nowhere once it is gone, also
/// when it goes on another thread at the same moment.
@Suite struct ContainerReferenceTests {
    protocol Animal: AnyObject {}
    final class Dog: Animal {}

    /// A singleton that must be closed when its container ends.
    final class Connection: Teardown, @unchecked Sendable {
        let closes: Counter
        init(closes: Counter) { self.closes = closes }
        func tearDown() { closes.increment() }
    }

    @Test func implementsRacingTheContainersReleaseNeitherCrashesNorKeepsTheContainerAlive() {
        let rounds = lighterUnderSanitizer(2_000)
        var containers: [Container] = (0..<rounds).map { _ in Container() }
        let entries = containers.map { $0.register(Dog.self) { _ in Dog() } }
        let watched = Watched(containers)
        let box = Box(containers)
        containers = []
        runOnThreads(2) { thread in
            if thread == 0 {
                box.releaseAll()
            } else {
                for entry in entries { entry.implements(Animal.self) }
            }
        }
        #expect(watched.alive == 0)
    }

    @Test func aForwardedSingletonWhoseHomeContainerIsGoneIsMadeAndHandedToNoOneForTeardown() async throws {
        let closes = Counter()
        let other = Container()
        do {
            let home = Container()
            let entry = home.register(Connection.self) { _ in Connection(closes: closes) }.inObjectScope(.container)
            other.forward(Connection.self, to: entry)
        }
        let connection = try other.require(Connection.self)
        #expect(try other.require(Connection.self) === connection)
        try await other.end()
        #expect(closes.value == 0)
    }

    @Test func aSingletonMadeWhileItsHomeContainerIsReleasedOnAnotherThreadIsStillHandedOut() {
        let resolved = Counter()
        let rounds = lighterUnderSanitizer(300)
        for _ in 0..<rounds {
            let other = Container()
            var home: Container? = Container()
            let entry = home!.register(Connection.self) { _ in Connection(closes: Counter()) }
                .inObjectScope(.container)
            other.forward(Connection.self, to: entry)
            let box = Box([home!])
            home = nil
            runOnThreads(2) { thread in
                if thread == 0 {
                    box.releaseAll()
                } else if other.resolve(Connection.self) != nil {
                    resolved.increment()
                }
            }
        }
        #expect(resolved.value == rounds)
    }
}

/// Holds containers until one thread lets them all go.
private final class Box: @unchecked Sendable {
    private let lock = NSLock()
    private var containers: [Container]

    init(_ containers: [Container]) {
        self.containers = containers
    }

    func releaseAll() {
        let released = lock.withLock {
            defer { containers = [] }
            return containers
        }
        withExtendedLifetime(released) {}
    }

}

/// Watches containers without keeping them alive.
private final class Watched: @unchecked Sendable {
    private let references: [WeakContainer]

    init(_ containers: [Container]) {
        references = containers.map(WeakContainer.init)
    }

    var alive: Int { references.filter { $0.container != nil }.count }
}

private final class WeakContainer {
    weak var container: Container?
    init(_ container: Container) { self.container = container }
}

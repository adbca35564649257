import Testing

@testable import Weft

/// A graph-scoped instance of an async factory, whatever the shape of its type, is shared within its async graph
/// and released exactly once when the graph ends: a class or an existential only classes adopt has its reference
/// released directly, any other type goes through its value witnesses, whether an `Any` keeps it in its buffer
/// or, too large for it, in a box. The same holds when the thread's spare graph and its builds are reused by the
/// next resolves.
@Suite struct AsyncGraphInstanceReleaseTests {
    /// Records its deinit, so that a test sees how many of its instances were released.
    final class Tracked: ReleaseTracked, First, Second, Third, AnyTracked, @unchecked Sendable {
        let released: Collected<Int>

        init(released: Collected<Int>) { self.released = released }

        deinit { released.append(1) }
    }

    protocol ReleaseTracked: AnyObject, Sendable {}
    protocol First: AnyObject, Sendable {}
    protocol Second: AnyObject, Sendable {}
    protocol Third: AnyObject, Sendable {}
    /// Adopted by classes and values alike: its existential is not class-bound.
    protocol AnyTracked: Sendable {}

    final class Consumer: Sendable {
        let sameInstance: Bool
        init(sameInstance: Bool) { self.sameInstance = sameInstance }
    }

    /// Resolves, `rounds` times, a consumer asking twice for the graph-scoped `Service` made by `make`, and returns
    /// whether each consumer got one shared instance, with how many instances were released.
    private func resolve<Service: Sendable>(
        _: Service.Type,
        rounds: Int,
        make: @escaping @Sendable (Collected<Int>) -> Service,
        tracked: @escaping @Sendable (Service) -> Tracked
    ) async throws -> (shared: Bool, released: Int) {
        let released = Collected<Int>()
        let container = Container()
        container.register(Service.self) { (_: AsyncResolver) async in make(released) }
        container.register(Consumer.self) { (r: AsyncResolver) async throws in
            let first = tracked(try await r.require(Service.self))
            let second = tracked(try await r.require(Service.self))
            return Consumer(sameInstance: first === second)
        }
        var shared = true
        for _ in 0..<rounds {
            shared = try await container.async.require(Consumer.self).sameInstance && shared
        }
        return (shared, released.values.count)
    }

    @Test func aClassInstanceIsSharedAndReleasedOncePerGraph() async throws {
        let outcome = try await resolve(
            Tracked.self, rounds: 3, make: { Tracked(released: $0) }, tracked: { $0 })
        #expect(outcome.shared)
        #expect(outcome.released == 3)
    }

    @Test func aClassBoundExistentialIsSharedAndReleasedOncePerGraph() async throws {
        let outcome = try await resolve(
            (any ReleaseTracked).self, rounds: 3, make: { Tracked(released: $0) }, tracked: { $0 as! Tracked })
        #expect(outcome.shared)
        #expect(outcome.released == 3)
    }

    /// Three witness tables make the existential larger than an `Any`'s buffer: the `Any` boxes it.
    @Test func aClassBoundExistentialTooLargeForAnAnyIsSharedAndReleasedOncePerGraph() async throws {
        let outcome = try await resolve(
            (any First & Second & Third).self, rounds: 3, make: { Tracked(released: $0) },
            tracked: { $0 as! Tracked })
        #expect(outcome.shared)
        #expect(outcome.released == 3)
    }

    /// An existential that values may adopt too is larger than an `Any`'s buffer: the `Any` boxes it.
    @Test func anExistentialNotBoundToClassesIsSharedAndReleasedOncePerGraph() async throws {
        let outcome = try await resolve(
            (any AnyTracked).self, rounds: 3, make: { Tracked(released: $0) }, tracked: { $0 as! Tracked })
        #expect(outcome.shared)
        #expect(outcome.released == 3)
    }
}

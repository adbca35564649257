import Foundation
import Testing

@testable import Weft

/// Replaced and removed registrations are released once no resolve can still be using them, and not before:
/// a resolve in flight (synchronous or async) keeps what it found.
@Suite struct RegistrationReclamationTests {
    final class Payload: Sendable {}

    /// A weak reference to a registration, to see when it is released.
    final class Watched: @unchecked Sendable {
        weak var entry: ServiceEntry<Payload>?
        init(_ entry: ServiceEntry<Payload>) { self.entry = entry }
    }

    typealias Gate = AsyncWaitingTests.Gate

    /// Whether `condition` holds within `seconds`, asking `container` to release what it retired between
    /// tries. Releases are process-wide: a resolve another test began earlier (a 5,000-deep chain under the
    /// thread sanitizer takes a while) holds them back until it ends, never for good; only a resolve that
    /// never ends would make this fail. Sleeps without blocking a thread, so that the tests it waits for run.
    func eventually(_ container: Container, seconds: Double = 300, _ condition: () -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition() {
            guard Date() < deadline else { return false }
            container.releaseRetired()
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return true
    }

    @Test func replacedRegistrationsAreReleasedOnceNoResolveCanUseThem() async {
        let container = Container()
        let payload = Payload()
        let first = Watched(container.register(Payload.self) { _ in payload })
        _ = container.resolve(Payload.self)
        for _ in 0..<lighterUnderSanitizer(10_000) {
            container.register(Payload.self) { _ in payload }
        }
        #expect(container.resolve(Payload.self) === payload)
        #expect(await eventually(container) { first.entry == nil }, "the first registration was never released")
        #expect(await eventually(container) { container.retiredCount <= RetiredRegistrations.firstCheck })
    }

    @Test func registrationsRemovedByRemoveAllAreReleased() async {
        let container = Container()
        let payload = Payload()
        var sampled: [Watched] = []
        for round in 0..<lighterUnderSanitizer(500) {
            container.removeAll()
            for name in 0..<50 {
                let entry = container.register(Payload.self, name: "p\(name)") { _ in payload }
                if name == 0, round % 10 == 0 { sampled.append(Watched(entry)) }
            }
            _ = container.resolve(Payload.self, name: "p0")
        }
        container.removeAll()
        #expect(await eventually(container) { sampled.allSatisfy { $0.entry == nil } })
        #expect(await eventually(container) { container.retiredCount <= RetiredRegistrations.firstCheck })
    }

    @Test func aRegistrationIsKeptWhileAResolveOnAnotherThreadRunsItsFactory() async throws {
        let container = Container()
        let started = Gate()
        let proceed = DispatchSemaphore(value: 0)
        let payload = Payload()
        let original = Watched(
            container.register(Payload.self) { _ in
                started.openGate()
                proceed.wait()
                return payload
            })
        let made = Collected<Payload?>()
        // On a thread of its own: its factory blocks, which must not take a thread from the task pool.
        let resolving = runOnThread { made.append(container.resolve(Payload.self)) }
        await started.wait()
        for _ in 0..<(RetiredRegistrations.firstCheck * 4) {
            container.register(Payload.self) { _ in Payload() }
        }
        container.releaseRetired()
        #expect(original.entry != nil, "released while its factory was running on another thread")
        proceed.signal()
        while !resolving.wait(seconds: 0) { try await Task.sleep(nanoseconds: 2_000_000) }
        #expect(made.values.first.flatMap { $0 } === payload)
        #expect(await eventually(container) { original.entry == nil }, "never released after the resolve ended")
    }

    @Test func aRegistrationIsKeptWhileAnAsyncResolveThatFoundItIsSuspended() async throws {
        let container = Container()
        let started = Gate()
        let proceed = Gate()
        let payload = Payload()
        let original = Watched(
            container.register(Payload.self) { _ async in
                started.openGate()
                await proceed.wait()
                return payload
            })
        let resolving = Task { try await container.async.require(Payload.self) }
        await started.wait()
        for _ in 0..<(RetiredRegistrations.firstCheck * 4) {
            container.register(Payload.self) { _ in Payload() }
        }
        container.releaseRetired()
        #expect(original.entry != nil, "released while an async resolve held it across a suspension")
        proceed.openGate()
        #expect(try await resolving.value === payload)
        #expect(await eventually(container) { original.entry == nil }, "never released after the async resolve ended")
    }

    @Test func aRegistrationForwardedUnderOtherKeysStaysInUseUntilEveryKeyIsReplaced() async {
        let container = Container()
        let payload = Payload()
        let watched: Watched = {
            let shared = container.register(Payload.self) { _ in payload }
            shared.implements(AnyObject.self)
            container.forward(Sendable.self, name: "any", to: shared)
            return Watched(shared)
        }()
        container.register(Payload.self) { _ in Payload() }
        #expect(container.retiredCount == 0, "retired while forwarded under two more keys")
        #expect(container.resolve(AnyObject.self) === payload)
        container.register(AnyObject.self) { _ in Payload() }
        #expect(container.retiredCount == 0)
        #expect(container.resolve(Sendable.self, name: "any") as? Payload === payload)
        container.register(Sendable.self, name: "any") { _ in Payload() }
        #expect(container.retiredCount == 1)
        #expect(await eventually(container) { watched.entry == nil })
    }

    final class Clock: Sendable {}
    final class Scheduler: Sendable {
        let clock: Clock
        init(clock: Clock) { self.clock = clock }
    }

    /// A parent with a `.container` Clock and a `.container` Scheduler made with it, and a child that forwards
    /// `AnyObject` to the parent's Clock registration.
    func parentAndChildSharingAClock() -> (parent: Container, child: Container) {
        let parent = Container()
        let clock = parent.register(Clock.self) { _ in Clock() }.inObjectScope(.container)
        parent.register(Scheduler.self) { r in Scheduler(clock: try r.require(Clock.self)) }.inObjectScope(.container)
        let child = Container(parent: parent)
        child.forward(AnyObject.self, to: clock)
        return (parent, child)
    }

    /// The parent still hands out its clock, and a scheduler made with it is kept: the parent's registration
    /// was not retired by the child. (The scheduler made before may be made anew: what was made with a
    /// registration the child stopped using is not kept.)
    func expectTheParentUnaffected(_ parent: Container, clock: Clock) throws {
        #expect(try parent.require(Clock.self) === clock)
        let scheduler = try parent.require(Scheduler.self)
        #expect(scheduler.clock === clock)
        #expect(try parent.require(Scheduler.self) === scheduler, "a scheduler made with the clock was not kept")
    }

    @Test func replacingAKeyForwardedFromAnotherContainerLeavesTheOwnersRegistrationAlone() throws {
        let (parent, child) = parentAndChildSharingAClock()
        let scheduler = try parent.require(Scheduler.self)
        #expect(try child.require(AnyObject.self) === scheduler.clock)
        child.register(AnyObject.self) { _ in Clock() }
        try expectTheParentUnaffected(parent, clock: scheduler.clock)
    }

    @Test func removeAllOfAContainerWithAForwardedKeyLeavesTheOwnersRegistrationAlone() throws {
        let (parent, child) = parentAndChildSharingAClock()
        let scheduler = try parent.require(Scheduler.self)
        child.removeAll()
        #expect(child.resolve(AnyObject.self) == nil)
        try expectTheParentUnaffected(parent, clock: scheduler.clock)
    }
}

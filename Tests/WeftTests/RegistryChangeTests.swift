import Testing
import Weft

/// Resolves read registrations through a per-thread lookup cache; these tests change the registry between
/// resolves on the same thread and check that the next resolve sees the change.
@Suite struct RegistryChangeTests {
    protocol Greeter: AnyObject {
        var word: String { get }
    }

    final class Hello: Greeter {
        let word = "hello"
    }

    final class Hi: Greeter {
        let word = "hi"
    }

    final class Tracked {
        let deinits: Counter

        init(deinits: Counter) {
            self.deinits = deinits
        }

        deinit { deinits.increment() }
    }

    @Test func reRegisteringAfterAResolveIsSeenByTheNextResolve() throws {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        #expect(try container.require(Greeter.self).word == "hello")

        container.register(Greeter.self) { _ in Hi() }

        #expect(try container.require(Greeter.self).word == "hi")
    }

    @Test func changingTheScopeAfterAResolveTakesEffect() throws {
        let container = Container()
        let entry = container.register(Greeter.self) { _ in Hello() }.inObjectScope(.transient)
        #expect(try container.require(Greeter.self) !== container.require(Greeter.self))

        entry.inObjectScope(.container)

        #expect(try container.require(Greeter.self) === container.require(Greeter.self))
    }

    @Test func addingACallbackAfterAResolveTakesEffect() throws {
        let container = Container()
        let calls = Counter()
        let entry = container.register(Greeter.self) { _ in Hello() }
        _ = try container.require(Greeter.self)

        entry.initCompleted { _, _ in calls.increment() }
        _ = try container.require(Greeter.self)

        #expect(calls.value == 1)
    }

    @Test func removeAllAfterAResolveMakesTheServiceMissing() throws {
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        _ = try container.require(Greeter.self)

        container.removeAll()

        #expect(container.resolve(Greeter.self) == nil)
    }

    @Test func replacingASingletonRegistrationReleasesTheOldSingleton() throws {
        let deinits = Counter()
        let container = Container()
        container.register(Tracked.self) { _ in Tracked(deinits: deinits) }.inObjectScope(.container)
        _ = try container.require(Tracked.self)
        #expect(deinits.value == 0)

        container.register(Tracked.self) { _ in Tracked(deinits: deinits) }.inObjectScope(.container)

        #expect(deinits.value == 1)
        _ = try container.require(Tracked.self)
        #expect(deinits.value == 1)
    }

    @Test func aForwardedRegistrationKeepsItsSingletonWhenOneOfItsTypesIsRegisteredAgain() throws {
        let container = Container()
        let hello = container.register(Hello.self) { _ in Hello() }.inObjectScope(.container)
        container.forward(Greeter.self, to: hello)
        let first = try container.require(Hello.self)

        container.register(Greeter.self) { _ in Hi() }

        #expect(try container.require(Hello.self) === first)
        #expect(try container.require(Greeter.self).word == "hi")
    }

    @Test func siblingContainersKeepTheirOwnRegistrationsOfTheSameType() throws {
        let parent = Container()
        let first = Container(parent: parent)
        let second = Container(parent: parent)
        first.register(Greeter.self) { _ in Hello() }
        second.register(Greeter.self) { _ in Hi() }

        for _ in 0..<3 {
            #expect(try first.require(Greeter.self).word == "hello")
            #expect(try second.require(Greeter.self).word == "hi")
        }
    }

    @Test func aParentRegistrationMadeAfterAChildsFailedResolveIsSeenThroughTheChild() throws {
        let parent = Container()
        let child = Container(parent: parent)
        #expect(child.resolve(Greeter.self) == nil)

        parent.register(Greeter.self) { _ in Hello() }

        #expect(try child.require(Greeter.self).word == "hello")
    }

    @Test func aContainerMadeAndDroppedInsideAFactoryLeavesTheGraphIntact() throws {
        final class Holder {
            let greeter: any Greeter
            let other: any Greeter

            init(greeter: any Greeter, other: any Greeter) {
                self.greeter = greeter
                self.other = other
            }
        }
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        // Unowned: a factory holding its own container strongly would keep the container alive for good.
        container.register(Holder.self) { [unowned container] r in
            // A throwaway child container, gone before the outer resolve ends; the graph still refers to
            // the registration it made its instance from.
            let inner = try Container(parent: container) { $0.register(Greeter.self) { _ in Hi() } }
                .require(Greeter.self)
            return Holder(greeter: try r.require(Greeter.self), other: inner)
        }

        let holder = try container.require(Holder.self)

        #expect(holder.greeter.word == "hello")
        #expect(holder.other.word == "hi")
    }

    @Test func aGraphScopedInstanceIsSharedWithALazyResolvedAfterTheGraphEnded() throws {
        final class Holder {
            let greeter: any Greeter
            let later: Lazy<any Greeter>

            init(greeter: any Greeter, later: Lazy<any Greeter>) {
                self.greeter = greeter
                self.later = later
            }
        }
        let container = Container()
        container.register(Greeter.self) { _ in Hello() }
        container.register(Holder.self) { r in
            Holder(greeter: try r.require(Greeter.self), later: try r.require(Lazy<any Greeter>.self))
        }

        let holder = try container.require(Holder.self)

        #expect(try holder.later.get() === holder.greeter)
    }
}

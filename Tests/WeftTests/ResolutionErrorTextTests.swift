import Foundation
import Testing
import Weft

/// The whole text of every `ResolutionError` reason, and of `TeardownError`, compared exactly: these texts
/// are what a developer reads in a log, so a changed word is a changed interface. The variants that need a
/// race to appear are compared exactly where that race is set up: a cycle across threads and a `Lazy` read in
/// its factory (CrossThreadCycleTests), an async singleton still completing (AsyncCompletionTests), a
/// teardown past its timeout or cancelled (TeardownTimeoutTests).
@Suite struct ResolutionErrorTextTests {
    final class Engine {}

    final class Car {
        init(engine: Engine) {}
    }

    final class Garage {
        init(car: Car) {}
    }

    final class Pump: @unchecked Sendable {}

    @MainActor final class Dashboard {}

    final class Work: Sendable {}

    final class Cache: Sendable {
        init(work: Work) {}
    }

    struct Broke: Error, CustomStringConvertible {
        var description: String { "out of fuel" }
    }

    /// The reasons that have an exact-text test in this suite.
    private static let reasonsWithExactTexts: Set<ResolutionError.Reason> = [
        .missingRegistration, .circularDependency, .factoryFailed, .initCompletedFailed, .typeMismatch,
        .notOnMainActor, .requiresAsync, .outsideScope, .scopeEnded, .captiveDependency, .tooDeep,
    ]

    @Test func everyReasonHasAnExactTextTest() {
        // A new reason needs its own exact-text test below, then its place in this list.
        #expect(Set(ResolutionError.Reason.allCases) == Self.reasonsWithExactTexts)
    }

    @Test func missingRegistrationNamesThePathAndWhatIsRegisteredInstead() throws {
        let container = Container()
        container.register(Engine.self, name: "v6") { _ in Engine() }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self, name: "v8")) }
        container.register(Garage.self) { r in Garage(car: try r.require(Car.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(
            error.description == """
                [Weft.missingRegistration] No registration for Engine named "v8".
                Resolution path: Garage -> Car -> Engine["v8"]
                Registered instead: Engine named "v6"
                """
        )
    }

    @Test func missingRegistrationOfATopLevelRequestHasNoPathLine() throws {
        let error = try #require(throws: ResolutionError.self) { try Container().require(Engine.self) }

        #expect(error.description == "[Weft.missingRegistration] No registration for Engine.")
    }

    @Test func circularDependencyBetweenFactoriesAdvisesInitCompletedOrLazy() throws {
        final class Left {
            init(right: Right) {}
        }
        final class Right {
            init(left: Left) {}
        }
        let container = Container()
        container.register(Left.self) { r in Left(right: try r.require(Right.self)) }
        container.register(Right.self) { r in Right(left: try r.require(Left.self)) }
        container.register(Garage.self) { r in
            _ = try r.require(Left.self)
            return Garage(car: Car(engine: Engine()))
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: Left -> Right -> Left.
                Each factory on this cycle needs the next service before it can return, so none of them can be \
                made first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let \
                Right take Lazy<Left> or Provider<Left>.
                Resolution path: Garage -> Left -> Right -> Left
                """
        )
    }

    @Test func circularDependencyThroughCallbacksOfTransientServicesSaysNothingIsShared() throws {
        final class Ping {
            var pong: Pong?
        }
        final class Pong {
            var ping: Ping?
        }
        let container = Container()
        container.register(Ping.self) { _ in Ping() }.inObjectScope(.transient)
            .initCompleted { r, ping in ping.pong = try r.require(Pong.self, name: "back") }
        container.register(Pong.self, name: "back") { _ in Pong() }.inObjectScope(.transient)
            .initCompleted { r, pong in pong.ping = try r.require(Ping.self) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Ping.self) }

        // Each callback asks for a new instance, so the loop shows on the second time round.
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: Ping -> Pong["back"] -> Ping.
                These services ask for each other again and again: none of them is shared within the object \
                graph, so every request makes a new instance that asks once more.
                Break it by giving one of them a shared scope (.graph, the default, or .container), or let \
                Pong["back"] take Lazy<Ping> or Provider<Ping>.
                Resolution path: Ping -> Pong["back"] -> Ping -> Pong["back"] -> Ping
                """
        )
    }

    @Test func factoryFailedQuotesTheThrownError() throws {
        let container = Container()
        container.register(Engine.self, name: "v8") { _ in throw Broke() }
        container.register(Car.self) { r in Car(engine: try r.require(Engine.self, name: "v8")) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }

        #expect(
            error.description == """
                [Weft.factoryFailed] The factory of Engine named "v8" threw: out of fuel
                Resolution path: Car -> Engine["v8"]
                """
        )
    }

    @Test func initCompletedFailedQuotesTheThrownError() throws {
        let container = Container()
        container.register(Engine.self) { _ in Engine() }.initCompleted { _, _ in throw Broke() }

        let error = try #require(throws: ResolutionError.self) { try container.require(Engine.self) }

        #expect(
            error.description == "[Weft.initCompletedFailed] An initCompleted callback of Engine threw: out of fuel")
    }

    @Test func typeMismatchNamesTheTypeThatWasMade() throws {
        let container = Container()
        container.forward(Car.self, to: container.register(Engine.self) { _ in Engine() })

        let error = try #require(throws: ResolutionError.self) { try container.require(Car.self) }

        #expect(
            error.description
                == "[Weft.typeMismatch] The registration used for Car made an instance of Engine, which is not a Car."
        )
    }

    @Test func notOnMainActorSaysWhereToResolveIt() throws {
        let container = Container()
        container.register(Dashboard.self) { @MainActor _ in Dashboard() }
        let errors = Collected<ResolutionError>()

        let thread = runOnThread {
            do { _ = try container.require(Dashboard.self) } catch let error as ResolutionError {
                errors.append(error)
            } catch {}
        }

        #expect(thread.wait(seconds: 10))
        #expect(
            errors.values.map(\.description) == [
                """
                [Weft.notOnMainActor] The factory of Dashboard is @MainActor, but it was resolved off the main \
                actor, where it cannot run.
                Resolve it from main-actor code (a @MainActor function, or inside `await MainActor.run { }`), or \
                inject Lazy<Dashboard> and read it on the main actor.
                """
            ]
        )
    }

    @Test func requiresAsyncSaysHowToResolveItFromAsyncCode() throws {
        let container = Container()
        container.register(Pump.self) { _ in
            await Task.yield()
            return Pump()
        }

        let error = try #require(throws: ResolutionError.self) { try container.require(Pump.self) }

        #expect(
            error.description == """
                [Weft.requiresAsync] The factory of Pump is async, and a synchronous resolve needed a new instance \
                of it.
                Resolve it from async code: `try await container.async.require(Pump.self)`, or in an async factory \
                `try await r.require(Pump.self)`. (Once an async resolve has made a .container instance, \
                synchronous code can use that instance.)
                """
        )
    }

    @Test func outsideScopeSaysHowToMakeAScope() throws {
        let container = Container()
        container.register(Work.self) { _ in Work() }.inObjectScope(.scoped)

        let error = try #require(throws: ResolutionError.self) { try container.require(Work.self) }

        #expect(
            error.description == """
                [Weft.outsideScope] Work is .scoped (one instance per scope), and it was resolved outside any scope.
                Resolve it from a scope: `let scope = container.makeScope()`, then `scope.require(...)` or \
                `try await scope.async.require(...)`, and `try await scope.end()` when the unit of work is done.
                """
        )
    }

    @Test func scopeEndedSaysToMakeANewScope() async throws {
        let container = Container()
        container.register(Work.self) { _ in Work() }.inObjectScope(.scoped)
        let scope = container.makeScope()
        try await scope.end()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Work.self) }

        #expect(
            error.description == """
                [Weft.scopeEnded] Work is .scoped, and the scope it was resolved from has ended (its instances are \
                torn down). Make a new scope for new work.
                """
        )
    }

    @Test func captiveDependencyAtResolutionNamesTheHolderAndTheScopedService() throws {
        let container = Container()
        container.register(Work.self) { _ in Work() }.inObjectScope(.scoped)
        container.register(Cache.self) { r in Cache(work: try r.require(Work.self)) }.inObjectScope(.container)
        let scope = container.makeScope()

        let error = try #require(throws: ResolutionError.self) { try scope.require(Cache.self) }

        #expect(
            error.description == """
                [Weft.captiveDependency] Cache is kept beyond one scope (it is shared, e.g. .container), and it \
                was being made with Work, which is .scoped: it would keep the instance of one scope after that \
                scope ends.
                Make Cache .scoped or .transient too, or pass it what it needs per call instead of at creation.
                Resolution path: Cache -> Work
                """
        )
    }

    @Test func tooDeepSaysHowDeepHowMuchStackAndWhatToDo() throws {
        final class Link: Sendable {
            init(next: Link?) {}
        }
        let container = Container()
        for index in 0..<3_000 {
            container.register(Link.self, name: "l\(index)") { r in
                Link(next: index < 2_999 ? try r.require(Link.self, name: "l\(index + 1)") : nil)
            }
        }
        let errors = Collected<ResolutionError>()

        let thread = runOnThread(stackSize: 512 << 10) {
            do { _ = try container.require(Link.self, name: "l0") } catch let error as ResolutionError {
                errors.append(error)
            } catch {}
        }

        #expect(thread.wait(seconds: 60))
        let error = try #require(errors.values.first)
        let depth = error.path.count
        // The stack in use is measured, so it is read from the text and checked for sense, then put back.
        let beforeUse = try #require(error.description.range(of: "stack is nearly used up ("))
        let afterUse = try #require(error.description.range(of: " KiB of its 512 KiB)"))
        let used = try #require(Int(error.description[beforeUse.upperBound..<afterUse.lowerBound]))
        #expect((1...512).contains(used))
        let path =
            (0..<5).map { "Link[\"l\($0)\"]" }.joined(separator: " -> ") + " -> ... (\(depth - 10) more) ... -> "
            + (depth - 5..<depth).map { "Link[\"l\($0)\"]" }.joined(separator: " -> ")
        #expect(
            error.description == """
                [Weft.tooDeep] Resolving Link named "l\(depth - 1)" went \(depth) services deep, and this thread's \
                stack is nearly used up (\(used) KiB of its 512 KiB): going deeper would crash the program, so the \
                resolve stops here.
                Each service on the path is made by a factory that asks for the next one. If the depth is meant, \
                resolve on a thread with a larger stack, or build the chain in a loop rather than one factory per \
                link; if not, look for registrations that keep asking for one more.
                Resolution path: \(path)
                """
        )
    }

    // MARK: TeardownError

    final class Socket: Teardown, Sendable {
        let failure: String
        init(failure: String) { self.failure = failure }
        func tearDown() throws { throw CoreTestError.other(failure) }
    }

    final class Pool: Teardown, Sendable {
        func tearDown() throws { throw Broke() }
    }

    @Test func teardownErrorOfOneFailureNamesTheServiceAndTheError() async throws {
        let container = Container()
        container.register(Socket.self) { _ in Socket(failure: "reset") }.inObjectScope(.container)
        _ = try container.require(Socket.self)

        let error = try await #require(throws: TeardownError.self) { try await container.end() }

        #expect(error.description == #"[Weft.teardownFailed] 1 teardown threw: Socket: other("reset")"#)
    }

    @Test func teardownErrorOfSeveralFailuresListsThemNewestFirst() async throws {
        let container = Container()
        container.register(Socket.self) { _ in Socket(failure: "reset") }.inObjectScope(.container)
        container.register(Pool.self) { _ in Pool() }.inObjectScope(.container)
        _ = try container.require(Socket.self)
        _ = try container.require(Pool.self)

        let error = try await #require(throws: TeardownError.self) { try await container.end() }

        #expect(
            error.description == #"[Weft.teardownFailed] 2 teardowns threw: Pool: out of fuel; Socket: other("reset")"#
        )
    }
}

import Testing
import Weft

/// Exact cycle detection: an initializer cycle is an error that names every step in order, however deep it
/// starts and however long it is, while deep legitimate graphs still resolve (cycles closed through
/// `initCompleted`: `InitCompletedCycleTests`).
///
/// Serialized because one test replaces the global `Container.loggingFunction`.
@Suite(.serialized) struct CycleTests {
    // MARK: - Fixtures

    /// A service whose factory takes another service through its initializer.
    final class CycA {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class CycB {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class CycC {
        let next: AnyObject
        init(next: AnyObject) { self.next = next }
    }

    final class Garage {
        let car: AnyObject
        init(car: AnyObject) { self.car = car }
    }

    /// Only the logging test uses these two, so its spy can recognise its own messages by their names.
    final class CycleLoggedNorth {
        let south: CycleLoggedSouth
        init(south: CycleLoggedSouth) { self.south = south }
    }

    final class CycleLoggedSouth {
        let north: CycleLoggedNorth
        init(north: CycleLoggedNorth) { self.north = north }
    }

    /// Reaches `CycC` twice: through `CycA` and through `CycB`.
    final class Diamond {
        let left: CycA
        let right: CycB
        init(left: CycA, right: CycB) {
            self.left = left
            self.right = right
        }
    }

    /// One link of a long chain; the links are registrations of this one type under the names "0", "1", ...
    final class Link {
        let next: Link?
        init(next: Link?) { self.next = next }
    }

    /// The three-way initializer cycle `CycA -> CycB -> CycC -> CycA`.
    private func threeWayCycle() -> Container {
        let container = Container()
        container.register(CycA.self) { r in CycA(next: try r.require(CycB.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycC.self)) }
        container.register(CycC.self) { r in CycC(next: try r.require(CycA.self)) }
        return container
    }

    /// `count` registrations of `Link` named "0" ... "count - 1", each requiring the next; the last one requires
    /// "0" when `closed`, and nothing otherwise.
    private static func chain(of count: Int, closed: Bool) -> Container {
        let container = Container()
        for index in 0..<count {
            let isLast = index == count - 1
            let next = isLast ? (closed ? "0" : nil) : String(index + 1)
            container.register(Link.self, name: String(index)) { r in
                Link(next: try next.map { try r.require(Link.self, name: $0) })
            }
        }
        return container
    }

    // MARK: - Initializer cycles are errors that name every step

    @Test func initializerCycleNamesEveryStepInOrder() throws {
        let container = threeWayCycle()

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.reason == .circularDependency)
        #expect(error.identifier == "Weft.circularDependency")
        #expect(error.path == ["CycA", "CycB", "CycC", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycB -> CycC -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycC \
                take Lazy<CycA> or Provider<CycA>.
                """
        )
    }

    @Test func initializerCycleStartsWhereTheRequestEnteredIt() throws {
        let container = threeWayCycle()

        let error = try #require(throws: ResolutionError.self) { try container.require(CycB.self) }

        #expect(error.path == ["CycB", "CycC", "CycA", "CycB"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycB -> CycC -> CycA -> CycB.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycA \
                take Lazy<CycB> or Provider<CycB>.
                """
        )
    }

    @Test func cycleThatStartsDeeperShowsTheWholePath() throws {
        let container = Container()
        container.register(Garage.self) { r in Garage(car: try r.require(CycA.self)) }
        container.register(CycA.self) { r in CycA(next: try r.require(CycB.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycA.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Garage.self) }

        #expect(error.path == ["Garage", "CycA", "CycB", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycB -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycB \
                take Lazy<CycA> or Provider<CycA>.
                Resolution path: Garage -> CycA -> CycB -> CycA
                """
        )
    }

    @Test func serviceWhoseFactoryRequiresItselfIsACycleOfOne() throws {
        let container = Container()
        container.register(CycA.self) { r in CycA(next: try r.require(CycA.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.reason == .circularDependency)
        #expect(error.path == ["CycA", "CycA"])
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: CycA -> CycA.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let CycA \
                take Lazy<CycA> or Provider<CycA>.
                """
        )
    }

    @Test func containerScopedServicesOnAnInitializerCycleAreStillACycle() throws {
        let calls = Counter()
        let container = Container()
        container.register(CycA.self) { r in
            calls.increment()
            return CycA(next: try r.require(CycB.self))
        }
        .inObjectScope(.container)
        container.register(CycB.self) { r in
            calls.increment()
            return CycB(next: try r.require(CycA.self))
        }
        .inObjectScope(.container)

        let error = try #require(throws: ResolutionError.self) { try container.require(CycA.self) }

        #expect(error.path == ["CycA", "CycB", "CycA"])
        #expect(calls.value == 2)
    }

    @Test func resolveReturnsNilForACycleAndLogsTheSameTextAsRequire() throws {
        let container = Container()
        container.register(CycleLoggedNorth.self) { r in
            CycleLoggedNorth(south: try r.require(CycleLoggedSouth.self))
        }
        container.register(CycleLoggedSouth.self) { r in
            CycleLoggedSouth(north: try r.require(CycleLoggedNorth.self))
        }
        let thrown = try #require(throws: ResolutionError.self) { try container.require(CycleLoggedNorth.self) }

        var resolved: CycleLoggedNorth?
        let messages = messagesLogged(containing: "CycleLoggedNorth") {
            resolved = container.resolve(CycleLoggedNorth.self)
        }

        #expect(resolved == nil)
        #expect(messages == [thrown.description])
        #expect(
            thrown.description == """
                [Weft.circularDependency] Circular dependency: CycleLoggedNorth -> CycleLoggedSouth -> \
                CycleLoggedNorth.
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let \
                CycleLoggedSouth take Lazy<CycleLoggedNorth> or Provider<CycleLoggedNorth>.
                """
        )
    }

    // MARK: - No depth limit

    @Test func chainOfAThousandDistinctServicesResolves() {
        let container = Self.chain(of: 1_000, closed: false)
        let lengths = Collected<Int>()
        let failures = Collected<String>()

        let thread = runOnThread {
            do {
                var link: Link? = try container.require(Link.self, name: "0")
                var length = 0
                while let current = link {
                    length += 1
                    link = current.next
                }
                lengths.append(length)
            } catch {
                failures.append("\(error)")
            }
        }

        #expect(thread.wait(seconds: 60))
        #expect(failures.values == [])
        #expect(lengths.values == [1_000])
    }

    @Test func cycleThroughAThousandServicesNamesEveryStep() throws {
        // Under a sanitizer every step costs many times more: the cycle is shorter there, the text the same.
        let length = underSanitizer ? 200 : 1_000
        let container = Self.chain(of: length, closed: true)
        let errors = Collected<ResolutionError>()

        let thread = runOnThread {
            do {
                _ = try container.require(Link.self, name: "0")
            } catch let error as ResolutionError {
                errors.append(error)
            } catch {}
        }

        #expect(thread.wait(seconds: 60))
        let error = try #require(errors.values.first)
        let steps = (0..<length).map { "Link[\"\($0)\"]" } + ["Link[\"0\"]"]
        #expect(error.reason == .circularDependency)
        #expect(error.path == steps)
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: \(steps.joined(separator: " -> ")).
                Each factory on this cycle needs the next service before it can return, so none of them can be made \
                first.
                Break it by setting one of these references in initCompleted instead of in the factory, or let \
                Link["\(length - 1)"] take Lazy<Link> or Provider<Link> (named "0").
                """
        )
    }

    @Test func sameServiceReachedTwiceThroughADiamondIsNotACycle() throws {
        let bottomCalls = Counter()
        let container = Container()
        container.register(Diamond.self) { r in
            Diamond(left: try r.require(CycA.self), right: try r.require(CycB.self))
        }
        container.register(CycA.self) { r in CycA(next: try r.require(CycC.self)) }
        container.register(CycB.self) { r in CycB(next: try r.require(CycC.self)) }
        container.register(CycC.self) { _ in
            bottomCalls.increment()
            return CycC(next: Link(next: nil))
        }

        let diamond = try container.require(Diamond.self)

        let left = try #require(diamond.left.next as? CycC)
        let right = try #require(diamond.right.next as? CycC)
        #expect(left === right)
        #expect(bottomCalls.value == 1)
    }
}

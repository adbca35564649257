import Testing
import Weft
import WeftTesting

/// Swift Testing runs these in parallel; each registers its own `Clock` (a `.container` singleton) in its own
/// isolated container and must only ever see that one, also from child tasks and through `@Injected`. Named
/// with "Concurrency" so that the thread-sanitizer run includes it.
@Suite struct IsolationConcurrencyTests {
    /// Resolves the clock many times, from this task and from child tasks, and counts the clocks that are not
    /// named `name` (or, for a singleton, not the first one resolved).
    private static func sightingsOfOtherClocks(expected name: String, singleton: Bool = true) async throws -> Int {
        let first = try Container.shared.require((any Clock).self)
        let isExpected: @Sendable (any Clock) -> Bool = { clock in
            clock.name == name && (!singleton || clock === first)
        }
        var others = 0
        for _ in 0..<100 {
            await Task.yield()
            if !isExpected(try Container.shared.require((any Clock).self)) { others += 1 }
            if !isExpected(Alarm().clock) { others += 1 }
        }
        others += await withTaskGroup(of: Int.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    guard let seen = try? Container.shared.require((any Clock).self) else { return 1 }
                    return isExpected(seen) ? 0 : 1
                }
            }
            return await group.reduce(0, +)
        }
        return others
    }

    @Test(
        .isolatedContainer { c in
            c.register((any Clock).self) { _ in FakeClock(name: "first") }.inObjectScope(.container)
        })
    func firstTestSeesOnlyItsClock() async throws {
        #expect(try await Self.sightingsOfOtherClocks(expected: "first") == 0)
    }

    @Test(
        .isolatedContainer { c in
            c.register((any Clock).self) { _ in FakeClock(name: "second") }.inObjectScope(.container)
        })
    func secondTestSeesOnlyItsClock() async throws {
        #expect(try await Self.sightingsOfOtherClocks(expected: "second") == 0)
    }

    @Test(.isolatedContainer(assemblies: [ClockAssembly()]))
    func testWithTheAppAssemblySeesTheSystemClock() async throws {
        #expect(try await Self.sightingsOfOtherClocks(expected: "system") == 0)
    }

    @Test(.isolatedContainer(assemblies: [ClockAssembly()]), arguments: 0..<8)
    func eachCaseOverridesTheClockInOneLine(index: Int) async throws {
        Container.shared.register((any Clock).self) { _ in FakeClock(name: "case \(index)") }

        #expect(try await Self.sightingsOfOtherClocks(expected: "case \(index)", singleton: false) == 0)
    }

    @Test func siblingTasksWithSharedContainersOfTheirOwnSeeOnlyTheirOwn() async {
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for index in 0..<16 {
                group.addTask {
                    let container = Container()
                    container.register((any Clock).self) { _ in FakeClock(name: "task \(index)") }
                    return await Container.withShared(container) {
                        var wrong = 0
                        for _ in 0..<50 {
                            await Task.yield()
                            if Alarm().clock.name != "task \(index)" { wrong += 1 }
                        }
                        return wrong
                    }
                }
            }
            return await group.reduce(0, +)
        }

        #expect(mismatches == 0)
    }

    @Test(.isolatedContainer)
    func childTasksRegisterIntoTheTestContainerAtOnce() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<16 {
                group.addTask {
                    Container.shared.register((any Clock).self, name: "\(index)") { _ in
                        FakeClock(name: "child \(index)")
                    }
                }
            }
        }

        let names = (0..<16).map { Container.shared.resolve((any Clock).self, name: "\($0)")?.name }
        #expect(names == (0..<16).map { "child \($0)" })
    }

    @Test(.isolatedContainer(assemblies: [ClockAssembly()]), arguments: 0..<8)
    func eachCaseGetsFreshSingletons(index _: Int) async throws {
        let visits = try Container.shared.require(Visits.self)
        visits.record()
        await Task.yield()

        #expect(try Container.shared.require(Visits.self) === visits)
        #expect(visits.value == 1)
    }
}

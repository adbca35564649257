import Foundation
import Testing

@testable import Weft

/// Every async teardown's time-out is kept by one clock thread: it ends each race at its deadline, is woken when
/// a deadline earlier than the one it sleeps until arrives, and forgets a race that ended in time.
@Suite struct TeardownClockTests {
    /// An async teardown that returns at once.
    actor Quick: AsyncTeardown {
        func tearDown() async {}
    }

    /// An async teardown that waits until it is released.
    actor Stuck: AsyncTeardown {
        let release: AsyncWaitingTests.Gate
        init(release: AsyncWaitingTests.Gate) { self.release = release }
        func tearDown() async { await release.wait() }
    }

    /// The teardown of `instance`, named `name`.
    static func box(_ instance: AnyObject, _ name: String) -> OwnedInstance {
        OwnedInstance(finding: instance, name: TeardownName(name))
    }

    @Test func theHeapHandsOutRacesEarliestFirstAfterRemovals() {
        let clock = TeardownClock()
        var generator = SystemRandomNumberGenerator()
        var heap = DeadlineHeap()
        var races: [TeardownRace] = []
        for _ in 0..<300 {
            let race = TeardownRace(clock: clock)
            race.deadline = UInt64.random(in: 1...1_000, using: &generator)
            heap.insert(race)
            races.append(race)
        }
        races.shuffle(using: &generator)
        let removed = races.prefix(120)
        for race in removed { heap.remove(race) }
        #expect(heap.count == 180)
        #expect(removed.allSatisfy { $0.heapIndex == nil })

        let early = heap.removeExpired(at: 500)
        let late = heap.removeExpired(at: .max)
        #expect(early.allSatisfy { $0.deadline <= 500 })
        #expect(late.allSatisfy { $0.deadline > 500 })
        let deadlines = (early + late).map(\.deadline)
        #expect(deadlines == deadlines.sorted())
        let kept = Set(races.dropFirst(120).map(ObjectIdentifier.init))
        #expect(Set((early + late).map(ObjectIdentifier.init)) == kept)
        #expect(heap.count == 0)
        #expect(heap.earliest == nil)
    }

    @Test(hangLimit)
    func anEarlierDeadlineWakesTheClockSleepingUntilALaterOne() async throws {
        let clock = TeardownClock()
        let release = AsyncWaitingTests.Gate()
        defer { release.openGate() }
        // The clock's thread now sleeps until this teardown's deadline, an hour away.
        let long = Task {
            await Self.box(Stuck(release: release), "long").tearDown(
                within: 3_600, clock: clock)
        }
        while clock.scheduledCount == 0 { try await Task.sleep(nanoseconds: 1_000_000) }

        let short = await Self.box(Stuck(release: release), "short").tearDown(
            within: 0.05, clock: clock)
        let error = try #require(short?.error as? TeardownInterruption)
        #expect(error.description == TeardownInterruption.timedOut(seconds: 0.05).description)
        #expect(clock.scheduledCount == 1)

        release.openGate()
        #expect(await long.value == nil)
        #expect(clock.scheduledCount == 0)
    }

    @Test(hangLimit)
    func aTimeOutHoldsWhenTheClockCannotStartItsThread() async throws {
        let clock = TeardownClock(mayStartThread: false)
        let release = AsyncWaitingTests.Gate()
        defer { release.openGate() }
        let failure = await Self.box(Stuck(release: release), "stuck").tearDown(within: 0.05, clock: clock)
        let error = try #require(failure?.error as? TeardownInterruption)
        #expect(error.description == TeardownInterruption.timedOut(seconds: 0.05).description)
        #expect(clock.scheduledCount == 0)
    }

    @Test func aTeardownThatEndsInTimeLeavesTheClock() async {
        let clock = TeardownClock()
        for index in 0..<100 {
            let failure = await Self.box(Quick(), "quick").tearDown(
                within: Double(3_600 + index), clock: clock)
            #expect(failure == nil)
        }
        #expect(clock.scheduledCount == 0)
    }

    @Test(hangLimit)
    func aTeardownWithoutABoundIsNotScheduled() async throws {
        let clock = TeardownClock()
        let (started, release) = (Counter(), AsyncWaitingTests.Gate())
        defer { release.openGate() }
        let stuck = TeardownTimeoutTests.Stuck(started: started, release: release)
        let ending = Task {
            await Self.box(stuck, "unbounded").tearDown(within: .infinity, clock: clock)
        }
        while started.value == 0 { try await Task.sleep(nanoseconds: 1_000_000) }
        #expect(clock.scheduledCount == 0)
        release.openGate()
        #expect(await ending.value == nil)
    }
}

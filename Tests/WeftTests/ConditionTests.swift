import Foundation
import Testing

@testable import Weft

/// The condition threads and tasks wait on for each other's builds counts its waiters: a build that finishes
/// while nobody waits broadcasts nothing (it does not even take the mutex), and every waiter is still woken by
/// the broadcast that follows the change it waits for.
@Suite struct ConditionTests {
    /// A change the waiters wait for, guarded by a lock of its own (as a registration's build is).
    final class Change: @unchecked Sendable {
        private let lock = NSLock()
        private var done = false
        var isDone: Bool { lock.withLock { done } }
        func make() { lock.withLock { done = true } }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(10)
        while !condition() {
            guard Date() < deadline else { throw Timeout() }
            try await Task.sleep(nanoseconds: 1_000_000)
        }
    }

    struct Timeout: Error {}

    @Test func aWaitingThreadIsCountedAndWokenByTheBroadcastAfterTheChange() async throws {
        let condition = Condition()
        let change = Change()
        let waiter = runOnThread {
            condition.withWaitingLock {
                while !change.isDone { condition.wait() }
            }
        }
        try await waitUntil { condition.waiters == 1 }
        change.make()
        condition.broadcast()
        #expect(waiter.wait(seconds: 10))
        #expect(condition.waiters == 0)
    }

    @Test func aBroadcastThatNobodyWaitsForLeavesTheMutexAlone() async throws {
        let condition = Condition()
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        // Another thread holds the mutex without waiting (as a thread checking for a cycle of waits does).
        let holder = runOnThread {
            condition.withLock {
                holding.signal()
                release.wait()
            }
        }
        holding.wait()
        let broadcaster = runOnThread { condition.broadcast() }
        let returned = broadcaster.wait(seconds: 5)
        release.signal()
        #expect(returned)
        #expect(holder.wait(seconds: 10))
        #expect(broadcaster.wait(seconds: 10))
    }

    @Test func aSuspendedTaskIsCountedUntilTheBroadcastAfterTheChangeResumesIt() async throws {
        let condition = Condition()
        let change = Change()
        let task = Task { await condition.suspend(while: { !change.isDone }) }
        try await waitUntil { condition.waiters == 1 }
        change.make()
        condition.broadcast()
        #expect(await task.value)
        #expect(condition.waiters == 0)
    }

    @Test func aCancelledSuspendedTaskStopsBeingCounted() async throws {
        let condition = Condition()
        let task = Task { await condition.suspend(while: { true }) }
        try await waitUntil { condition.waiters == 1 }
        task.cancel()
        #expect(await task.value == false)
        #expect(condition.waiters == 0)
    }
}

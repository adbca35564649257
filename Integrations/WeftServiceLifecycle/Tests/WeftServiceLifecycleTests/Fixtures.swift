import Foundation
import ServiceLifecycle
import Weft

/// What happened, in order, across the services and teardowns of one test.
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [String] = []

    var events: [String] { lock.withLock { items } }

    func record(_ event: String) { lock.withLock { items.append(event) } }
}

/// A singleton with a synchronous teardown.
final class Journal: Teardown, @unchecked Sendable {
    let name: String
    let log: EventLog
    let fails: Bool

    init(_ name: String, log: EventLog, fails: Bool = false) {
        (self.name, self.log, self.fails) = (name, log, fails)
    }

    func tearDown() throws {
        log.record("tore down \(name)")
        if fails { throw JournalFailure.flushFailed }
    }
}

/// A singleton with an async teardown that takes `seconds`.
final class Pool: AsyncTeardown, @unchecked Sendable {
    let log: EventLog
    let seconds: Double

    init(log: EventLog, seconds: Double = 0.05) {
        (self.log, self.seconds) = (log, seconds)
    }

    func tearDown() async throws {
        try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
        log.record("tore down pool")
    }
}

enum JournalFailure: Error {
    case flushFailed
}

/// A service standing for a server or a worker: it resolves what it uses from the container when it starts,
/// and records when it stops at the group's graceful shutdown.
struct Worker: Service {
    let container: Container
    let uses: [String]
    let log: EventLog

    func run() async throws {
        for name in uses {
            if name == "pool" {
                _ = try container.require(Pool.self)
            } else {
                _ = try container.require(Journal.self, name: name)
            }
        }
        log.record("worker started")
        try? await gracefulShutdown()
        log.record("worker stopped")
    }
}

/// Waits until `condition` holds, checking every few milliseconds, for at most `seconds`.
func eventually(within seconds: Double = 10, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

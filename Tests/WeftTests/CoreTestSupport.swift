import Foundation

/// Counts calls (of a factory, a callback, a resolve) from any thread.
final class CoreCallCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    /// The number of calls so far.
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }

    /// Records one call.
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
}

/// Records events (strings) in the order they happen, from any thread.
final class CoreEventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [String] = []

    /// The events so far, oldest first.
    var events: [String] {
        lock.lock()
        defer { lock.unlock() }
        return recorded
    }

    /// Records `event`.
    func record(_ event: String) {
        lock.lock()
        recorded.append(event)
        lock.unlock()
    }
}

/// An error that test factories and callbacks throw.
enum CoreTestError: Error, Equatable {
    case factoryBroke
    case callbackBroke
    case other(String)
}

/// A record of when the server's long- and short-lived services were made and ended.
///
/// The container holds one `LifecycleLog` (it is registered `.inObjectScope(.container)`); the ``Database``
/// reports opening and closing to it, and every ``UnitOfWork`` reports beginning and ending with the id of its
/// request. The tests read it to prove the lifetimes Weft promises: one database for the whole server, one unit
/// of work per request, and every unit of work ended before its response goes out; the load script reads its
/// counts.
///
/// A server runs for a long time: the log keeps counts of everything and only the most recent events (a fixed
/// number), so its memory stays the same however many requests it serves.
public actor LifecycleLog {
    /// How a unit of work ended.
    public enum Outcome: String, Sendable, Equatable, Hashable, CaseIterable {
        /// The request succeeded and its transaction was committed.
        case committed
        /// The request failed (or never said it succeeded) and its transaction was rolled back.
        case rolledBack
        /// Committing or rolling back failed; the scope's teardown reported the error.
        case failed
    }

    /// One thing that happened to a service.
    public enum Event: Sendable, Equatable {
        /// The database file at `path` was opened (by the database's async factory).
        case databaseOpened(path: String)
        /// The database was closed (by the container's teardown).
        case databaseClosed
        /// A unit of work began a transaction for the request with this id.
        case unitOfWorkBegan(requestID: String)
        /// The unit of work of the request with this id ended, as `outcome` says.
        case unitOfWorkEnded(requestID: String, outcome: Outcome)
    }

    /// How many events the log keeps.
    public nonisolated let capacity: Int
    /// The most recent events (at most ``capacity``), a ring: `recent[next]` is the oldest once it is full.
    private var recent: [Event] = []
    private var next = 0

    /// How many times a database was opened.
    public private(set) var databaseOpenCount = 0
    /// How many times a database was closed.
    public private(set) var databaseCloseCount = 0
    /// How many units of work began, in all.
    public private(set) var unitsOfWorkBegan = 0
    /// How many units of work ended, in all, by outcome.
    public private(set) var unitsOfWorkEnded: [Outcome: Int] = [:]

    /// Makes an empty log that keeps the `capacity` most recent events.
    public init(capacity: Int = 4096) {
        precondition(capacity > 0, "A lifecycle log keeps at least one event")
        self.capacity = capacity
    }

    /// Counts an event and keeps it among the recent ones.
    public func record(_ event: Event) {
        switch event {
        case .databaseOpened: databaseOpenCount += 1
        case .databaseClosed: databaseCloseCount += 1
        case .unitOfWorkBegan: unitsOfWorkBegan += 1
        case .unitOfWorkEnded(_, let outcome): unitsOfWorkEnded[outcome, default: 0] += 1
        }
        if recent.count < capacity {
            recent.append(event)
        } else {
            recent[next] = event
            next = (next + 1) % capacity
        }
    }

    /// The most recent events (at most ``capacity``), in the order they happened.
    public var events: [Event] {
        Array(recent[next...] + recent[..<next])
    }

    /// How many units of work began and have not ended yet.
    public var unitsOfWorkOpen: Int {
        unitsOfWorkBegan - unitsOfWorkEnded.values.reduce(0, +)
    }

    /// The request ids of the units of work that began, in order, among the recent events.
    public var requestsThatBegan: [String] {
        events.compactMap { event in
            if case .unitOfWorkBegan(let requestID) = event { requestID } else { nil }
        }
    }

    /// The request ids of the units of work that ended, with how they ended, in order, among the recent events.
    public var requestsThatEnded: [(requestID: String, outcome: Outcome)] {
        events.compactMap { event in
            if case .unitOfWorkEnded(let requestID, let outcome) = event { (requestID, outcome) } else { nil }
        }
    }

    /// How the unit of work of one request ended, or `nil` if it has not ended (or never began).
    public func outcome(ofRequest requestID: String) -> Outcome? {
        requestsThatEnded.last { $0.requestID == requestID }?.outcome
    }

    /// How many units of work began for one request; Weft's `.scoped` lifetime makes this 0 or 1.
    public func beginCount(ofRequest requestID: String) -> Int {
        requestsThatBegan.count { $0 == requestID }
    }
}

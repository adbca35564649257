/// A record of when the server's long- and short-lived services were made and ended.
///
/// The container holds one `LifecycleLog` (it is registered `.inObjectScope(.container)`); the ``Database``
/// reports opening and closing to it, and every ``UnitOfWork`` reports beginning and ending with the id of its
/// request. The tests read it to prove the lifetimes Weft promises: one database for the whole server, one unit
/// of work per request, and every unit of work ended before its response goes out.
public actor LifecycleLog {
    /// How a unit of work ended.
    public enum Outcome: String, Sendable, Equatable {
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

    /// Everything recorded, in the order it happened.
    public private(set) var events: [Event] = []

    /// Makes an empty log.
    public init() {}

    /// Appends an event.
    public func record(_ event: Event) {
        events.append(event)
    }

    /// How many times a database was opened.
    public var databaseOpenCount: Int {
        events.count { if case .databaseOpened = $0 { true } else { false } }
    }

    /// How many times a database was closed.
    public var databaseCloseCount: Int {
        events.count { $0 == .databaseClosed }
    }

    /// The request ids of the units of work that began, in order.
    public var requestsThatBegan: [String] {
        events.compactMap { event in
            if case .unitOfWorkBegan(let requestID) = event { requestID } else { nil }
        }
    }

    /// The request ids of the units of work that ended, with how they ended, in order.
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

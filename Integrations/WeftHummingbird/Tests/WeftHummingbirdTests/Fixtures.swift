import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Weft
import WeftHummingbird

/// A count read and written from any thread.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0

    var value: Int { lock.withLock { count } }

    func increment() { lock.withLock { count += 1 } }
}

/// A per-request service whose teardown is counted, and which says whether it has been torn down.
final class RequestJournal: Teardown, @unchecked Sendable {
    let tornDown: Counter
    let fails: Bool
    private let lock = NSLock()
    private var finished = false

    init(tornDown: Counter, fails: Bool = false) {
        (self.tornDown, self.fails) = (tornDown, fails)
    }

    var isFinished: Bool { lock.withLock { finished } }

    func tearDown() throws {
        lock.withLock { finished = true }
        tornDown.increment()
        if fails { throw JournalFailure() }
    }
}

struct JournalFailure: Error, CustomStringConvertible {
    var description: String { "the journal would not close" }
}

/// Keeps every message logged through its loggers.
final class LogCapture: @unchecked Sendable {
    struct Entry {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let lock = NSLock()
    private var items: [Entry] = []

    var entries: [Entry] { lock.withLock { items } }

    func logger() -> Logger {
        var logger = Logger(label: "weft-hummingbird-tests") { _ in Handler(capture: self) }
        logger.logLevel = .info
        return logger
    }

    fileprivate func append(_ entry: Entry) { lock.withLock { items.append(entry) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            capture.append(
                Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" }))
        }
    }
}

/// A container with a `.scoped` journal whose teardowns `tornDown` counts.
func journalContainer(tornDown: Counter, failing: Bool = false) -> Container {
    let container = Container()
    container.register(RequestJournal.self) { _ in RequestJournal(tornDown: tornDown, fails: failing) }
        .inObjectScope(.scoped)
    return container
}

/// An application whose router has the scope middleware in front of the routes `routes` adds.
func application(
    container: Container,
    ending: WeftScopeMiddleware<BasicWeftRequestContext>.Ending = .afterResponse,
    logs: LogCapture = LogCapture(),
    before: [any MiddlewareProtocol<Request, Response, BasicWeftRequestContext>] = [],
    routes: (Router<BasicWeftRequestContext>) -> Void
) -> some ApplicationProtocol {
    let router = Router(context: BasicWeftRequestContext.self)
    for middleware in before { router.add(middleware: middleware) }
    router.add(middleware: WeftScopeMiddleware(container: container, ending: ending))
    routes(router)
    return Application(router: router, logger: logs.logger())
}

/// Waits until `condition` holds, for at most ten seconds.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(10)
    while !condition() {
        if Date() > deadline { return false }
        try? await Task.sleep(nanoseconds: 5_000_000)
    }
    return true
}

extension TestResponse {
    /// The body as text.
    var text: String { String(buffer: body) }
}

import Foundation
import Logging

/// A swift-log handler that keeps every entry it receives, for tests to read.
struct CollectingLogHandler: LogHandler {
    /// One entry as the handler received it.
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: Logger.Metadata
    }

    /// The entries of every handler made from one store, shared across the copies swift-log makes.
    final class Store: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [Entry] = []

        var entries: [Entry] { lock.withLock { items } }

        func append(_ entry: Entry) { lock.withLock { items.append(entry) } }
    }

    let store: Store
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        store.append(Entry(level: event.level, message: "\(event.message)", metadata: event.metadata ?? [:]))
    }
}

extension Logger {
    /// A logger whose entries go to `store`, at `level` and above.
    static func collecting(into store: CollectingLogHandler.Store, level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: "weft-service-lifecycle-tests") { _ in CollectingLogHandler(store: store) }
        logger.logLevel = level
        return logger
    }
}

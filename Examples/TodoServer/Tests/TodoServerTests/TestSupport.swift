import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOConcurrencyHelpers
import SQLiteNIO
import Testing
import TodoServer
import Weft

/// A to-do server for one test: its own database file in a new temporary directory, its own container, and
/// a logger whose messages the test can read.
struct TodoServerFixture: Sendable {
    let directory: URL
    let configuration: TodoServerConfiguration
    let container: Container
    let logs: LogCapture
    /// The container's lifecycle log, resolved up front: after the server stops, the container has ended.
    let lifecycleLog: LifecycleLog

    /// Makes the fixture; `prepare` may register replacements into the container before the server is built.
    init(databasePath: String? = nil, prepare: (Container) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("weft-todo-server-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        logs = LogCapture()
        configuration = TodoServerConfiguration(
            hostname: "127.0.0.1",
            port: 0,
            databasePath: databasePath ?? directory.appendingPathComponent("todos.sqlite").path,
            logger: logs.logger(label: "todo-server-tests")
        )
        container = makeTodoContainer(configuration: configuration)
        prepare(container)
        // Its factory is synchronous, so the synchronous `require` works.
        lifecycleLog = try container.require(LifecycleLog.self)
    }

    /// Starts the server, runs `test` with a client connected to it over real HTTP, then shuts the server
    /// down, which ends the container.
    func run<Value: Sendable>(
        _ test: @Sendable (any TestClientProtocol) async throws -> Value
    ) async throws -> Value {
        try await buildApplication(configuration: configuration, container: container).test(.live, test)
    }

    /// Reads rows straight from the database file, through a connection of its own.
    func rows(_ sql: String) async throws -> [SQLiteRow] {
        let connection = try await SQLiteConnection.open(storage: .file(path: configuration.databasePath))
        do {
            let rows = try await connection.query(sql)
            try await connection.close()
            return rows
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Removes the temporary directory.
    func removeFiles() {
        try? FileManager.default.removeItem(at: directory)
    }
}

/// Runs `body` with a new fixture and removes its files afterwards, whether or not `body` throws.
func withTodoServer<Value>(
    prepare: (Container) -> Void = { _ in },
    _ body: (TodoServerFixture) async throws -> Value
) async throws -> Value {
    let fixture = try TodoServerFixture(prepare: prepare)
    do {
        let value = try await body(fixture)
        fixture.removeFiles()
        return value
    } catch {
        fixture.removeFiles()
        throw error
    }
}

/// Keeps every message logged through its loggers, so that tests can check what the server reported.
final class LogCapture: Sendable {
    /// One logged message.
    struct Entry: Sendable {
        let level: Logger.Level
        let message: String
        let metadata: [String: String]
    }

    private let store = NIOLockedValueBox<[Entry]>([])

    /// Every message so far.
    var entries: [Entry] { store.withLockedValue { $0 } }

    /// The messages at level error or above.
    var errors: [Entry] { entries.filter { $0.level >= .error } }

    /// Makes a logger that writes here.
    func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = .info
        return logger
    }

    fileprivate func append(_ entry: Entry) {
        store.withLockedValue { $0.append(entry) }
    }

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
                Entry(level: event.level, message: "\(event.message)", metadata: merged.mapValues { "\($0)" })
            )
        }
    }
}

extension TestClientProtocol {
    /// Sends a request with `body` encoded as JSON.
    func send(_ method: HTTPRequest.Method, _ uri: String, json body: some Encodable) async throws -> TestResponse {
        try await executeRequest(
            uri: uri,
            method: method,
            headers: [.contentType: "application/json"],
            body: ByteBuffer(bytes: try JSONEncoder().encode(body))
        )
    }

    /// Sends a request without a body.
    func send(_ method: HTTPRequest.Method, _ uri: String) async throws -> TestResponse {
        try await executeRequest(uri: uri, method: method, headers: [:], body: nil)
    }
}

extension TestResponse {
    /// The body decoded from JSON.
    func decoded<Value: Decodable>(as type: Value.Type = Value.self) throws -> Value {
        try JSONDecoder().decode(type, from: Data(body.readableBytesView))
    }

    /// The id the server gave the request, from the `X-Request-ID` header.
    var requestID: String? { headers[.requestID] }
}

import Foundation
import Logging
import TodoServer

/// Reads the server's settings from the command line, falling back to the environment, then to defaults.
///
/// ```
/// todo-server [--hostname 127.0.0.1] [--port 8080] [--database todos.sqlite] [--log-level info]
/// ```
/// The environment variables `TODO_SERVER_HOSTNAME`, `TODO_SERVER_PORT`, `TODO_SERVER_DATABASE` and
/// `LOG_LEVEL` stand in for options that are not given.
struct CommandLineSettings {
    var hostname = "127.0.0.1"
    var port = 8080
    var databasePath = "todos.sqlite"
    var logLevel = Logger.Level.info
    var handWired = false

    static let usage = """
        Usage: todo-server [--hostname HOST] [--port PORT] [--database PATH] [--log-level LEVEL] [--wiring WIRING]

          --hostname   address to listen on (TODO_SERVER_HOSTNAME; default 127.0.0.1)
          --port       port to listen on (TODO_SERVER_PORT; default 8080)
          --database   SQLite file, made if missing (TODO_SERVER_DATABASE; default todos.sqlite)
          --log-level  trace, debug, info, notice, warning, error or critical (LOG_LEVEL; default info)
          --wiring     weft (the server) or hand (its load routes wired by hand, the load script's baseline)
        """

    /// What went wrong reading the settings; printed with the usage.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    init(arguments: [String], environment: [String: String]) throws {
        var values: [String: String] = [
            "hostname": environment["TODO_SERVER_HOSTNAME"],
            "port": environment["TODO_SERVER_PORT"],
            "database": environment["TODO_SERVER_DATABASE"],
            "log-level": environment["LOG_LEVEL"],
        ].compactMapValues { $0 }

        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            if argument == "--help" || argument == "-h" {
                throw Problem(description: "")
            }
            guard argument.hasPrefix("--") else {
                throw Problem(description: "Unexpected argument '\(argument)'.")
            }
            let name = String(argument.dropFirst(2))
            guard ["hostname", "port", "database", "log-level", "wiring"].contains(name) else {
                throw Problem(description: "Unknown option '\(argument)'.")
            }
            guard let value = remaining.popFirst() else {
                throw Problem(description: "The option '\(argument)' needs a value.")
            }
            values[name] = value
        }

        if let hostname = values["hostname"] { self.hostname = hostname }
        if let database = values["database"] { self.databasePath = database }
        if let port = values["port"] {
            guard let number = Int(port), (0...65_535).contains(number) else {
                throw Problem(description: "The port '\(port)' is not a number from 0 to 65535.")
            }
            self.port = number
        }
        if let wiring = values["wiring"] {
            guard ["weft", "hand"].contains(wiring) else {
                throw Problem(description: "The wiring '\(wiring)' is not weft or hand.")
            }
            self.handWired = wiring == "hand"
        }
        if let level = values["log-level"] {
            guard let parsed = Logger.Level(rawValue: level) else {
                throw Problem(description: "The log level '\(level)' is not one of those listed.")
            }
            self.logLevel = parsed
        }
    }
}

let settings: CommandLineSettings
do {
    settings = try CommandLineSettings(
        arguments: Array(CommandLine.arguments.dropFirst()),
        environment: ProcessInfo.processInfo.environment
    )
} catch {
    // `--help` comes here with an empty message: print the usage alone and succeed.
    let message = String(describing: error)
    let text = (message.isEmpty ? "" : message + "\n\n") + CommandLineSettings.usage + "\n"
    FileHandle.standardError.write(Data(text.utf8))
    exit(message.isEmpty ? 0 : 64)
}

var logger = Logger(label: "todo-server")
logger.logLevel = settings.logLevel
let configuration = TodoServerConfiguration(
    hostname: settings.hostname,
    port: settings.port,
    databasePath: settings.databasePath,
    logger: logger
)
if settings.handWired {
    try await buildHandWiredApplication(configuration: configuration).runService()
} else {
    // The application ends its container, and so closes the database, when SIGINT or SIGTERM stops it.
    let app = buildApplication(configuration: configuration)
    try await app.runService()
}

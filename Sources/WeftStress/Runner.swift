import Foundation
import Weft

/// How long past its time a scenario may run before the watchdog calls it hung.
func watchdogSeconds(for seconds: Double) -> Double { seconds * 3 + 60 }

/// Runs `scenario` in this process (a child): prints `RESULT PASS n` or one `RESULT FAIL ...` line per broken
/// invariant; returns the exit status. A watchdog thread ends the process when the scenario hangs.
func runChild(_ scenario: Scenario, seed: UInt64, seconds: Double) -> Int32 {
    // Failed resolves are expected in several scenarios; their messages would only be noise here.
    Container.loggingFunction = nil
    let limit = watchdogSeconds(for: seconds)
    let watchdog = Thread {
        Thread.sleep(forTimeInterval: limit)
        let line = "RESULT FAIL hung: still running \(Int(limit)) s after it started (watchdog)\n"
        FileHandle.standardOutput.write(Data(line.utf8))
        _exit(3)
    }
    watchdog.start()
    var context = Context(seed: seed, seconds: seconds)
    do {
        try scenario.run(&context)
    } catch {
        context.violation("threw \(error)")
    }
    var lines = context.violations.map { "RESULT FAIL \($0)\n" }
    if lines.isEmpty {
        lines = ["RESULT PASS \(([" \(context.iterations) iterations"] + context.measured).joined(separator: ","))\n"]
    }
    FileHandle.standardOutput.write(Data(lines.joined().utf8))
    return context.violations.isEmpty ? 0 : 1
}

/// The verdict on one scenario, from its child process.
struct Outcome {
    let passed: Bool
    let line: String
}

/// Runs `scenario` in a child process of this executable and reads its verdict: its `RESULT` lines, or how it
/// died (a signal, a sanitizer report, the watchdog).
func runInChildProcess(_ scenario: Scenario, seed: UInt64, seconds: Double) -> Outcome {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executablePath())
    process.arguments = ["--child", scenario.name, "--seed", "\(seed)", "--seconds", "\(seconds)"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    do {
        try process.run()
    } catch {
        return Outcome(passed: false, line: "FAIL \(scenario.name): could not start a child process: \(error)")
    }
    // Read while it runs, so that a full pipe never blocks the child.
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    let lines = text.split(separator: "\n").map(String.init)
    let results = lines.filter { $0.hasPrefix("RESULT ") }.map { String($0.dropFirst(7)) }
    let label = "\(scenario.name) (seed \(seed))"
    if process.terminationReason == .uncaughtSignal {
        let cause = lines.first { $0.contains("Fatal error") || $0.contains("ERROR:") } ?? ""
        return Outcome(passed: false, line: "FAIL \(label): crashed with signal \(process.terminationStatus) \(cause)")
    }
    if let sanitizer = lines.first(where: {
        $0.contains("WARNING: ThreadSanitizer") || $0.contains("ERROR: AddressSanitizer")
    }) {
        return Outcome(passed: false, line: "FAIL \(label): \(sanitizer.trimmingCharacters(in: .whitespaces))")
    }
    let failures = results.filter { $0.hasPrefix("FAIL ") }.map { String($0.dropFirst(5)) }
    if process.terminationStatus == 0, failures.isEmpty, let pass = results.first(where: { $0.hasPrefix("PASS") }) {
        let what = pass.dropFirst(6)
        return Outcome(passed: true, line: "PASS \(scenario.name) (\(what), seed \(seed))")
    }
    let what = failures.isEmpty ? "exited with status \(process.terminationStatus)" : failures.joined(separator: "; ")
    return Outcome(passed: false, line: "FAIL \(label): \(what)")
}

/// The path of this executable, to start children of it.
func executablePath() -> String {
    #if os(Linux)
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return resolved
        }
    #endif
    return Bundle.main.executablePath ?? CommandLine.arguments[0]
}

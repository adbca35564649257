import Foundation
import Weft

// weft-stress: Weft's own stress and adversarial suite. Each scenario runs in a child process of its own (so
// that a crash is reported as that scenario's failure and the rest still run), under a watchdog (so that a
// hang is a failure too), for a bounded time, with a seed.

let usage = """
    Usage: weft-stress [--seconds N] [--seed S] [--scenario NAME]... [--list]

      --seconds N     total time to spend, shared by the scenarios (default 60)
      --seed S        seed for the scenarios' random choices (default: from the clock, printed)
      --scenario NAME run only this scenario (may be repeated)
      --list          list the scenarios and what each checks

    The same seed gives the same choices of operations, names and sizes; how threads interleave is up to the
    system and differs from run to run. Exit status 0 when every scenario passed.
    """

struct Options {
    var seconds = 60.0
    var seed = UInt64(Date().timeIntervalSince1970 * 1000)
    var scenarios: [String] = []
    var list = false
    var child: String?
}

func parse(_ arguments: [String]) -> Options? {
    var options = Options()
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        let value = index + 1 < arguments.count ? arguments[index + 1] : nil
        switch argument {
        case "--seconds":
            guard let value, let seconds = Double(value), seconds > 0 else { return nil }
            options.seconds = seconds
            index += 1
        case "--seed":
            guard let value, let seed = UInt64(value) else { return nil }
            options.seed = seed
            index += 1
        case "--scenario":
            guard let value else { return nil }
            options.scenarios.append(value)
            index += 1
        case "--child":
            guard let value else { return nil }
            options.child = value
            index += 1
        case "--list":
            options.list = true
        default:
            return nil
        }
        index += 1
    }
    return options
}

guard let options = parse(Array(CommandLine.arguments.dropFirst())) else {
    print(usage)
    exit(2)
}

if options.list {
    for scenario in allScenarios { print("\(scenario.name): \(scenario.summary)") }
    exit(0)
}

if let name = options.child {
    guard let scenario = allScenarios.first(where: { $0.name == name }) else {
        print("RESULT FAIL no scenario named \(name)")
        exit(2)
    }
    exit(runChild(scenario, seed: options.seed, seconds: options.seconds))
}

let unknown = options.scenarios.filter { name in !allScenarios.contains { $0.name == name } }
guard unknown.isEmpty else {
    print("No scenario named \(unknown.joined(separator: ", ")); --list lists them.")
    exit(2)
}
let selected = options.scenarios.isEmpty ? allScenarios : allScenarios.filter { options.scenarios.contains($0.name) }
let share = max(1, options.seconds / Double(selected.count))
print("weft-stress: \(selected.count) scenarios, \(Int(options.seconds)) s, seed \(options.seed)")
var passed = 0
var failed = 0
for (offset, scenario) in selected.enumerated() {
    let outcome = runInChildProcess(scenario, seed: options.seed &+ UInt64(offset), seconds: share)
    print(outcome.line)
    if outcome.passed { passed += 1 } else { failed += 1 }
}
print("\(passed) passed, \(failed) failed")
exit(failed == 0 ? 0 : 1)

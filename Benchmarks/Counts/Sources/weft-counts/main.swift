import CountsModel
import Dispatch
import Weft

// weft-counts SCENARIO hand|weft COUNT: does the scenario's operation COUNT times after its setup, so that
// callgrind's count for COUNT minus its count for 0, divided by COUNT, is the cost of one operation.
// weft-counts --list: the scenarios count.sh runs by default; the wide ones (`wide`) are run by name, with a
// small N, to check that the cost per service stays flat as a graph grows.

let arguments = CommandLine.arguments
if arguments.count == 2, arguments[1] == "--list" {
    for scenario in scenarios { print("\(scenario.name)\t\(scenario.what)") }
} else if arguments.count == 4, let scenario = (scenarios + wide).first(where: { $0.name == arguments[1] }),
    let count = Int(arguments[3]), ["hand", "weft"].contains(arguments[2])
{
    // A synchronous main that waits for a task: valgrind cannot run an async top-level main.
    let done = DispatchSemaphore(value: 0)
    let run = arguments[2] == "hand" ? scenario.hand : scenario.weft
    Task.detached {
        try await run(count)
        done.signal()
    }
    done.wait()
} else {
    print("usage: weft-counts SCENARIO hand|weft COUNT, or weft-counts --list")
}

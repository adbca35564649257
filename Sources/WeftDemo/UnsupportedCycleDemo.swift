// Section 3: the initializer/initializer cycle, which no container can build. Swinject recurses until
// it crashes; Weft notices the cycle the moment a factory asks for a service whose factory is running.

import Weft

/// Two services whose initializers each need the other.
enum TwoWayCycle {
    final class CycA {
        let b: CycB

        init(b: CycB) {
            self.b = b
        }
    }

    final class CycB {
        let a: CycA

        init(a: CycA) {
            self.a = a
        }
    }
}

/// Three services whose initializers need the next one, the last one needing the first.
enum ThreeWayCycle {
    final class CycA {
        let b: CycB

        init(b: CycB) {
            self.b = b
        }
    }

    final class CycB {
        let c: CycC

        init(c: CycC) {
            self.c = c
        }
    }

    final class CycC {
        let a: CycA

        init(a: CycA) {
            self.a = a
        }
    }
}

/// The same two services, with the cycle broken the way the error suggests: CycB takes a `Lazy<CycA>`.
enum LazyBrokenCycle {
    final class CycA {
        let b: CycB

        init(b: CycB) {
            self.b = b
        }
    }

    final class CycB {
        let a: Lazy<CycA>

        init(a: Lazy<CycA>) {
            self.a = a
        }
    }
}

/// Shows the error `require` throws for initializer cycles, and that `resolve` returns nil for them.
func runUnsupportedCycleDemo() throws {
    heading("3. The unsupported cycle: initializer/initializer")
    say(
        "If CycA's initializer needs a CycB and CycB's initializer needs a CycA, neither can be built first. "
            + "The factories below use `try r.require(...)`, so nothing is force-unwrapped."
    )

    let calls = CallCounter()
    let container = Container()
    container.register(TwoWayCycle.CycA.self) { r in
        calls.record("CycA factory")
        return TwoWayCycle.CycA(b: try r.require(TwoWayCycle.CycB.self))
    }
    container.register(TwoWayCycle.CycB.self) { r in
        calls.record("CycB factory")
        return TwoWayCycle.CycB(a: try r.require(TwoWayCycle.CycA.self))
    }

    scenario("try container.require(CycA.self) throws a ResolutionError:")
    do {
        let made = try container.require(TwoWayCycle.CycA.self)
        say("Unexpected: got \(made).")
    } catch {
        printIndented(String(describing: error), indent: "    | ")
    }
    say("Runs: \(calls.summary).")
    say("Weft refused CycB's request for CycA at once, because CycA's factory was still running.")

    scenario("container.resolve(CycA.self) for the same request:")
    let previousLogger = Container.loggingFunction
    Container.loggingFunction = { message in
        let firstLine = message.split(separator: "\n").first.map(String.init) ?? message
        print("    logging hook received: " + firstLine.prefix(70) + "...")
    }
    let resolved = container.resolve(TwoWayCycle.CycA.self)
    Container.loggingFunction = previousLogger
    say("resolve returned \(resolved.map { "\($0)" } ?? "nil"): no crash, no endless recursion.")

    let three = Container()
    three.register(ThreeWayCycle.CycA.self) { r in ThreeWayCycle.CycA(b: try r.require(ThreeWayCycle.CycB.self)) }
    three.register(ThreeWayCycle.CycB.self) { r in ThreeWayCycle.CycB(c: try r.require(ThreeWayCycle.CycC.self)) }
    three.register(ThreeWayCycle.CycC.self) { r in ThreeWayCycle.CycC(a: try r.require(ThreeWayCycle.CycA.self)) }

    scenario("A longer cycle names every step; asking for CycB starts the loop at CycB:")
    do {
        _ = try three.require(ThreeWayCycle.CycB.self)
    } catch let error as ResolutionError {
        say("reason: \(error.reason), path: \(error.path.joined(separator: " -> "))")
    } catch {
        say("Unexpected error: \(error)")
    }

    try lazyFix()
}

/// Builds the two-way cycle with a `Lazy` on one side, and checks that it reaches the very same CycA.
private func lazyFix() throws {
    typealias CycA = LazyBrokenCycle.CycA
    typealias CycB = LazyBrokenCycle.CycB

    let calls = CallCounter()
    let container = Container()
    container.register(CycA.self) { r in
        calls.record("CycA factory")
        return CycA(b: try r.require(CycB.self))
    }
    container.register(CycB.self) { r in
        calls.record("CycB factory")
        return CycB(a: try r.require(Lazy<CycA>.self))
    }

    scenario("The fix the message suggests: CycB takes a Lazy<CycA> and reads it later")
    let a = try container.require(CycA.self)
    let later = try a.b.a.get()
    say("a.b.a.get() === the CycA that require returned: \(yesNo(later === a)).")
    say("Runs: \(calls.summary); CycB's factory got the Lazy without making a CycA.")
}

import Foundation
import Testing
import Weft

/// Cycles that close between threads: each thread waits for what another one makes. They are reported as
/// circular dependencies that name every step, on every thread, instead of hanging.
@Suite struct CrossThreadCycleTests {
    final class Spool: Sendable {
        let x: Bobbin
        init(x: Bobbin) { self.x = x }
    }
    final class Bobbin: Sendable {
        let s: Spool
        init(s: Spool) { self.s = s }
    }
    final class Warp {
        let weft: Shuttle
        init(weft: Shuttle) { self.weft = weft }
    }
    final class Shuttle {
        let warp: Warp
        init(warp: Warp) { self.warp = warp }
    }

    /// A gate each thread passes once: the first `parties` arrivals wait for each other, later ones pass.
    final class Rendezvous: @unchecked Sendable {
        private let condition = NSCondition()
        private var arrived = 0
        private let parties: Int
        init(parties: Int) { self.parties = parties }

        func arrive() {
            condition.lock()
            defer { condition.unlock() }
            arrived += 1
            guard arrived <= parties else { return }
            condition.broadcast()
            while arrived < parties { condition.wait() }
        }
    }

    final class Box<Value>: @unchecked Sendable {
        var value: Value?
    }

    @Test(arguments: ["Lazy", "LazyInjected"])
    func lazyCycleClosedOnASecondThreadFailsOnBothThreadsInsteadOfHanging(kind: String) throws {
        let container = Container()
        let readBobbin = Box<@Sendable () throws -> Bobbin>()
        // The reader keeps the container that keeps the reader: the test breaks that cycle when it ends.
        defer { readBobbin.value = nil }
        let entered = DispatchSemaphore(value: 0)
        let proceed = DispatchSemaphore(value: 0)
        let spools = Counter()
        container.register(Spool.self) { _ in
            if spools.increment() == 1 {
                entered.signal()
                proceed.wait()
            }
            return Spool(x: try readBobbin.value!())
        }
        .inObjectScope(.container)
        container.register(Bobbin.self) { r in Bobbin(s: try r.require(Spool.self)) }
        if kind == "Lazy" {
            let lazy = try container.require(Lazy<Bobbin>.self)
            readBobbin.value = { try lazy.get() }
        } else {
            let property = LazyInjected<Bobbin>(container: container)
            readBobbin.value = { try property.get() }
        }

        let errors = Collected<String>()
        let builder = runOnThread {
            do { _ = try container.require(Spool.self) } catch { errors.append("\(error)") }
        }
        entered.wait()
        let reader = runOnThread {
            do { _ = try readBobbin.value!() } catch { errors.append("\(error)") }
        }
        // The reader makes the Bobbin and waits for the Spool; then the builder of the Spool reads the Bobbin.
        Thread.sleep(forTimeInterval: 0.1)
        proceed.signal()

        #expect(builder.wait(seconds: 20), "the thread building Spool hung")
        #expect(reader.wait(seconds: 20), "the thread reading the Bobbin hung")
        #expect(errors.values.count == 2)
        for error in errors.values {
            #expect(error.hasPrefix("[Weft.circularDependency] Circular dependency: "))
            #expect(!error.contains("Circular dependency: ."))
            #expect(error.contains("Spool") && error.contains("Bobbin"))
        }
    }

    @Test func initializerCycleSplitOverTwoThreadsNamesTheWholeCycle() {
        let container = Container()
        let both = Rendezvous(parties: 2)
        container.register(Warp.self) { r in
            both.arrive()
            return Warp(weft: try r.require(Shuttle.self))
        }
        .inObjectScope(.container)
        container.register(Shuttle.self) { r in
            both.arrive()
            return Shuttle(warp: try r.require(Warp.self))
        }
        .inObjectScope(.container)

        let errors = Collected<String>()
        let first = runOnThread {
            do { _ = try container.require(Warp.self) } catch { errors.append("\(error)") }
        }
        let second = runOnThread {
            do { _ = try container.require(Shuttle.self) } catch { errors.append("\(error)") }
        }
        #expect(first.wait(seconds: 20) && second.wait(seconds: 20))

        let factoriesLine =
            "Each factory on this cycle needs the next service before it can return, so none of them can be made first."
        let threadsLine =
            "The cycle closes across threads: each thread was making one of these services and waiting for another "
            + "thread to finish the next."
        func text(_ cycle: String, closing: String, wanted: String, path: String?, acrossThreads: Bool) -> String {
            var lines = ["[Weft.circularDependency] Circular dependency: \(cycle)."]
            if acrossThreads { lines.append(threadsLine) }
            lines.append(factoriesLine)
            lines.append(
                "Break it by setting one of these references in initCompleted instead of in the factory, or let "
                    + "\(closing) take Lazy<\(wanted)> or Provider<\(wanted)>."
            )
            if let path { lines.append("Resolution path: \(path)") }
            return lines.joined(separator: "\n")
        }
        let acrossFromWarp = text(
            "Shuttle -> Warp -> Shuttle", closing: "Warp", wanted: "Shuttle",
            path: "Warp -> Shuttle -> Warp -> Shuttle", acrossThreads: true)
        let acrossFromShuttle = text(
            "Warp -> Shuttle -> Warp", closing: "Shuttle", wanted: "Warp",
            path: "Shuttle -> Warp -> Shuttle -> Warp", acrossThreads: true)
        let alone = [
            text("Shuttle -> Warp -> Shuttle", closing: "Warp", wanted: "Shuttle", path: nil, acrossThreads: false),
            text("Warp -> Shuttle -> Warp", closing: "Shuttle", wanted: "Warp", path: nil, acrossThreads: false),
        ]
        let messages = errors.values
        #expect(messages.count == 2)
        // One thread finds the cycle of waits; the other then makes the rest of the cycle itself.
        #expect(messages.filter { $0 == acrossFromWarp || $0 == acrossFromShuttle }.count == 1, "\(messages)")
        #expect(messages.filter { alone.contains($0) }.count == 1, "\(messages)")
    }

    final class Heddle: @unchecked Sendable {
        var reed: Reed?
    }
    final class Reed: @unchecked Sendable {
        var heddle: Heddle?
    }

    @Test(arguments: ["container", "scoped"])
    func servicesThatCompleteEachOtherInCallbacksOnTwoThreadsAreBothMade(scope: String) throws {
        let container = Container()
        let objectScope: ObjectScope = scope == "scoped" ? .scoped : .container
        let both = Rendezvous(parties: 2)
        // Each thread makes one service and, in its callback, asks for the other: each waits for the other
        // thread, which has its instance made already, so each takes that instance instead of failing.
        container.register(Heddle.self) { _ in Heddle() }
            .initCompleted { r, heddle in
                both.arrive()
                heddle.reed = try r.require(Reed.self)
            }
            .inObjectScope(objectScope)
        container.register(Reed.self) { _ in Reed() }
            .initCompleted { r, reed in
                both.arrive()
                reed.heddle = try r.require(Heddle.self)
            }
            .inObjectScope(objectScope)
        let resolver = scope == "scoped" ? container.makeScope() : container

        let errors = Collected<String>()
        let heddles = Collected<Heddle>()
        let first = runOnThread {
            do { heddles.append(try resolver.require(Heddle.self)) } catch { errors.append("\(error)") }
        }
        let second = runOnThread {
            do { _ = try resolver.require(Reed.self) } catch { errors.append("\(error)") }
        }
        #expect(first.wait(seconds: 20) && second.wait(seconds: 20))
        #expect(errors.values.isEmpty, "\(errors.values)")
        let heddle = try #require(heddles.values.first)
        #expect(heddle.reed?.heddle === heddle)
        #expect(try resolver.require(Reed.self) === heddle.reed)
        heddle.reed = nil
    }

    @Test(arguments: ["Lazy", "Provider"])
    func cycleClosedThroughAWrapperReadInTheFactoryDoesNotAdviseTakingTheWrapper(kind: String) throws {
        let container = Container()
        container.register(Warp.self) { r in Warp(weft: try r.require(Shuttle.self)) }
        container.register(Shuttle.self) { r in
            let warp =
                kind == "Lazy"
                ? try r.require(Lazy<Warp>.self).get()
                : try r.require(Provider<Warp>.self).get()
            return Shuttle(warp: warp)
        }
        let error = try #require(throws: ResolutionError.self) { try container.require(Warp.self) }
        #expect(
            error.description == """
                [Weft.circularDependency] Circular dependency: Warp -> Shuttle -> Warp.
                Shuttle already takes \(kind)<Warp>, but reads it (`instance` or `get()`) before its factory returns, \
                so the cycle is still closed in the factory.
                Break it by reading \(kind)<Warp> later, after Shuttle is made (on first use), or by setting that \
                reference in initCompleted.
                """
        )
    }
}

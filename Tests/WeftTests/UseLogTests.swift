import Testing

@testable import Weft

/// The log of registrations that graph-scoped builds used, which both engines keep (a thread's resolve one for all
/// its builds, an async build one of its own): uses come back in the order they were logged, whatever the log grew
/// through, and a stretch of one log copied into another keeps its order.
@Suite struct UseLogTests {
    /// `count` registrations of one container, each its own.
    static func registrations(_ count: Int) -> (Container, [EntryReference]) {
        let container = Container()
        let entries = (0..<count).map { index in
            EntryReference.passUnretained(container.register(Int.self, name: "\(index)") { _ in index })
        }
        return (container, entries)
    }

    @Test(arguments: [0, 1, 16])
    func usesComeBackInTheOrderTheyWereLoggedAsTheLogGrows(capacity: Int) {
        let (container, entries) = Self.registrations(100)
        var log = UseLog(capacity: capacity)
        defer { log.deallocate() }
        #expect(log.isEmpty)

        for entry in entries { log.append(entry) }

        #expect(log.count == 100)
        var read: [EntryReference] = []
        let collect = { (entry: EntryReference) in read.append(entry) }
        log.forEach(collect)
        #expect(zip(read, entries).allSatisfy { $0 === $1 })
        #expect(read.count == entries.count)
        withExtendedLifetime(container) {}
    }

    @Test func aStretchCopiedIntoAnotherLogKeepsItsOrderAfterWhatThatLogHeld() {
        let (container, entries) = Self.registrations(10)
        var thread = UseLog(capacity: 4)
        var build = UseLog()
        defer {
            thread.deallocate()
            build.deallocate()
        }
        for entry in entries { thread.append(entry) }
        build.append(entries[9])

        build.append(contentsOf: thread, 2..<6)

        #expect(build.count == 5)
        #expect(build[0] === entries[9])
        #expect((1..<5).allSatisfy { build[$0] === entries[$0 + 1] })
        withExtendedLifetime(container) {}
    }

    @Test func anEmptiedLogStartsAgainFromItsFirstPosition() {
        let (container, entries) = Self.registrations(6)
        var log = UseLog()
        defer { log.deallocate() }
        for entry in entries { log.append(entry) }

        log.removeAll()
        log.append(entries[5])

        #expect(log.count == 1)
        #expect(log[0] === entries[5])
        withExtendedLifetime(container) {}
    }
}

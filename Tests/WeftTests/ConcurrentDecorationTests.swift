import Dispatch
import Testing
import Weft

/// `decorate` called from several threads at once, with itself and with what changes the registration it
/// decorates (a replacement, a forward, `removeAll()`): every decorator applies exactly once to what is
/// registered once the calls have returned, whatever order the threads ran in.
@Suite struct ConcurrentDecorationTests {
    final class Trail: Sendable {
        let tags: [String]
        init(_ tags: [String]) { self.tags = tags }
        func with(_ tag: String) -> Trail { Trail(tags + [tag]) }
    }

    static let threads = 4
    /// How many decorators each thread declares, one after the other.
    static let each = 4

    /// Checks that `tags` starts with `first` and holds each of `decorators` exactly once after it, nothing else,
    /// those of one thread in the order it declared them.
    private func expectDecoratedOnce(_ tags: [String], first: String, by decorators: [String]) {
        #expect(tags.first == first)
        #expect(tags.dropFirst().sorted() == decorators.sorted(), "\(tags)")
        for thread in 0..<Self.threads {
            let own = tags.filter { $0.hasPrefix("d\(thread).") }
            #expect(own == own.sorted(), "\(tags)")
        }
    }

    /// The tags of `count` threads' decorators, `each` a thread.
    private func tags(_ count: Int, each: Int = Self.each) -> [String] {
        (0..<count).flatMap { thread in (0..<each).map { "d\(thread).\($0)" } }
    }

    @Test func threadsDecoratingOneServiceEachApplyTheirDecoratorOnce() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                }
            }
            expectDecoratedOnce(try container.require(Trail.self).tags, first: "made", by: tags(Self.threads))
        }
    }

    @Test func threadsDecoratingAContainerSingletonShareOneDecoratedInstance() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }.inObjectScope(.container)
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                }
            }
            let trail = try container.require(Trail.self)
            #expect(try container.require(Trail.self) === trail)
            expectDecoratedOnce(trail.tags, first: "made", by: tags(Self.threads))
        }
    }

    @Test func threadsDecoratingARegistrationWithArgumentsEachApplyTheirDecoratorOnce() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { (_, id: String) in Trail([id]) }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                }
            }
            let tags = try container.require(Trail.self, argument: "a").tags
            expectDecoratedOnce(tags, first: "a", by: self.tags(Self.threads))
        }
    }

    @Test func decoratingWhileAnotherThreadReplacesTheRegistrationDecoratesTheLastReplacementOnce() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["old"]) }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for n in 0..<Self.each {
                    if index == 0 {
                        container.decorate(Trail.self) { _, inner in inner.with("d0.\(n)") }
                    } else {
                        container.register(Trail.self) { _ in Trail(["new\(n)"]) }
                    }
                }
            }
            let tags = try container.require(Trail.self).tags
            expectDecoratedOnce(tags, first: "new\(Self.each - 1)", by: self.tags(1))
        }
    }

    @Test func threadsDecoratingWhileAnotherReplacesTheRegistrationEachApplyTheirDecoratorOnce() throws {
        for _ in 0..<lighterUnderSanitizer(1000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["old"]) }
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                for n in 0..<Self.each {
                    if index < 2 {
                        container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                    } else {
                        container.register(Trail.self) { _ in Trail(["new\(n)"]) }
                    }
                }
            }
            let tags = try container.require(Trail.self).tags
            expectDecoratedOnce(tags, first: "new\(Self.each - 1)", by: self.tags(2))
        }
    }

    @Test func decoratingWhileAnotherThreadRemovesAllDoesNotBringTheRemovedRegistrationBack() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for n in 0..<Self.each {
                    if index == 0 {
                        container.decorate(Trail.self) { _, inner in inner.with("d0.\(n)") }
                    } else {
                        container.register(Trail.self) { _ in Trail(["old\(n)"]) }
                        container.removeAll()
                    }
                }
            }
            // A decorated copy of a removed registration must not come back.
            #expect(container.resolve(Trail.self) == nil)
            container.register(Trail.self) { _ in Trail(["new"]) }
            expectDecoratedOnce(try container.require(Trail.self).tags, first: "new", by: tags(1))
        }
    }

    @Test func threadsDecoratingAForwardedRegistrationEachApplyTheirDecoratorOnceToBothTypes() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }.implements(AnyObject.self)
                .inObjectScope(.container)
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                }
            }
            let trail = try container.require(Trail.self)
            #expect(try container.require(AnyObject.self) === trail)
            expectDecoratedOnce(trail.tags, first: "made", by: tags(Self.threads))
        }
    }

    @Test func threadsDecoratingWhatTheParentRegistersEachApplyTheirDecoratorOnceInTheChild() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let parent = Container()
            parent.register(Trail.self) { _ in Trail(["made"]) }
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    child.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                }
            }
            expectDecoratedOnce(try child.require(Trail.self).tags, first: "made", by: tags(Self.threads))
            #expect(try parent.require(Trail.self).tags == ["made"])
        }
    }

    @Test func threadsDecoratingWhileTheParentReplacesTheRegistrationEachApplyTheirDecoratorOnce() throws {
        for _ in 0..<lighterUnderSanitizer(1000) {
            let parent = Container()
            parent.register(Trail.self) { _ in Trail(["old"]) }
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: 3) { index in
                for n in 0..<Self.each {
                    if index < 2 {
                        child.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                    } else {
                        parent.register(Trail.self) { _ in Trail(["new\(n)"]) }
                    }
                }
            }
            let tags = try child.require(Trail.self).tags
            expectDecoratedOnce(tags, first: "new\(Self.each - 1)", by: self.tags(2))
            #expect(try parent.require(Trail.self).tags == ["new\(Self.each - 1)"])
        }
    }

    @Test func childDecoratingWhileItsParentRegistersAndRemovesAllKeepsNoCopyOfWhatWasRemoved() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let parent = Container()
            let child = Container(parent: parent)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for n in 0..<Self.each {
                    if index == 0 {
                        child.decorate(Trail.self) { _, inner in inner.with("d0.\(n)") }
                    } else {
                        parent.register(Trail.self) { _ in Trail(["old\(n)"]) }
                        parent.removeAll()
                    }
                }
            }
            #expect(child.resolve(Trail.self) == nil)
            parent.register(Trail.self) { _ in Trail(["new"]) }
            expectDecoratedOnce(try child.require(Trail.self).tags, first: "new", by: tags(1))
        }
    }

    @Test func threadsDecoratingAForwardedTypeEachApplyTheirDecoratorOnce() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }.implements(AnyObject.self)
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(AnyObject.self) { _, inner in (inner as! Trail).with("d\(index).\(n)") }
                }
            }
            let tags = try #require(try container.require(AnyObject.self) as? Trail).tags
            expectDecoratedOnce(tags, first: "made", by: self.tags(Self.threads))
            #expect(try container.require(Trail.self).tags == ["made"])
        }
    }

    @Test func forwardingWhileAnotherThreadDecoratesTheForwardedTypeDecoratesTheForward() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            let entry = container.register(Trail.self) { _ in Trail(["made"]) }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    container.decorate(AnyObject.self) { _, inner in (inner as! Trail).with("d0.0") }
                } else {
                    entry.implements(AnyObject.self)
                }
            }
            let tags = try #require(try container.require(AnyObject.self) as? Trail).tags
            expectDecoratedOnce(tags, first: "made", by: self.tags(1, each: 1))
            #expect(try container.require(Trail.self).tags == ["made"])
        }
    }

    @Test func registeringTheForwardedTypeWhileAnotherThreadDecoratesItKeepsTheRegistration() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }.implements(AnyObject.self)
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                for n in 0..<Self.each {
                    if index == 0 {
                        container.decorate(AnyObject.self) { _, inner in (inner as! Trail).with("d0.\(n)") }
                    } else {
                        container.register(AnyObject.self) { _ in Trail(["own\(n)"]) }
                    }
                }
            }
            let tags = try #require(try container.require(AnyObject.self) as? Trail).tags
            expectDecoratedOnce(tags, first: "own\(Self.each - 1)", by: self.tags(1))
        }
    }

    @Test func forwardingAgainWhileAnotherThreadDecoratesTheForwardedTypeResolvesTheLastTarget() throws {
        for _ in 0..<lighterUnderSanitizer(3000) {
            let container = Container()
            let entries = (0..<Self.each).map { n in
                container.register(Trail.self, name: "t\(n)") { _ in Trail(["t\(n)"]) }
            }
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 {
                    for n in 0..<Self.each * 2 {
                        container.decorate(AnyObject.self) { _, inner in (inner as! Trail).with("d0.\(n)") }
                    }
                } else {
                    for entry in entries { container.forward(AnyObject.self, to: entry) }
                }
            }
            let tags = try #require(try container.require(AnyObject.self) as? Trail).tags
            #expect(tags.first == "t\(Self.each - 1)", "\(tags)")
            #expect(tags.dropFirst().sorted() == self.tags(1, each: Self.each * 2).sorted(), "\(tags)")
            #expect(Array(tags.dropFirst()) == tags.dropFirst().sorted(), "\(tags)")
        }
    }

    @Test func threadsWithAsyncDecoratorsEachApplyTheirDecoratorOnce() async throws {
        for _ in 0..<lighterUnderSanitizer(1000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    if n.isMultiple(of: 2) {
                        container.decorate(Trail.self) { _, inner in
                            await Task.yield()
                            return inner.with("d\(index).\(n)")
                        }
                    } else {
                        container.decorate(Trail.self) { _, inner in inner.with("d\(index).\(n)") }
                    }
                }
            }
            let tags = try await container.async.require(Trail.self).tags
            expectDecoratedOnce(tags, first: "made", by: self.tags(Self.threads))
        }
    }

    @Test func threadsWithMainActorDecoratorsEachApplyTheirDecoratorOnce() async throws {
        for _ in 0..<lighterUnderSanitizer(1000) {
            let container = Container()
            container.register(Trail.self) { _ in Trail(["made"]) }
            DispatchQueue.concurrentPerform(iterations: Self.threads) { index in
                for n in 0..<Self.each {
                    container.decorate(Trail.self) { @MainActor _, inner in inner.with("d\(index).\(n)") }
                }
            }
            let tags = try await container.async.require(Trail.self).tags
            expectDecoratedOnce(tags, first: "made", by: self.tags(Self.threads))
        }
    }
}

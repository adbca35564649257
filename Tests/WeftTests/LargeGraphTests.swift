import Foundation
import Testing
import Weft

/// Graphs of thousands of services behave as small ones do: the engine's bookkeeping (the instances a graph
/// made, the callbacks it defers, the singletons it claims) switches to indexed forms past a few dozen entries,
/// and those must give the same answers.
@Suite struct LargeGraphTests {
    final class Leaf: @unchecked Sendable {
        let index: Int
        init(index: Int) { self.index = index }
    }

    struct Pair {
        let first: [Leaf]
        let second: [Leaf]
    }

    static let width = lighterUnderSanitizer(20_000)

    /// A container whose `Pair` requires every leaf twice, each leaf registered in `scope` under its own name.
    func container(width: Int, scope: ObjectScope) -> Container {
        let container = Container()
        for index in 0..<width {
            container.register(Leaf.self, name: "leaf-\(index)") { _ in Leaf(index: index) }.inObjectScope(scope)
        }
        container.register(Pair.self) { r in
            let first = try (0..<width).map { try r.require(Leaf.self, name: "leaf-\($0)") }
            let second = try (0..<width).map { try r.require(Leaf.self, name: "leaf-\($0)") }
            return Pair(first: first, second: second)
        }
        return container
    }

    @Test func graphScopeSharesEachInstanceWithinOneResolveOfAWideGraph() throws {
        let container = container(width: Self.width, scope: .graph)
        let pair = try container.require(Pair.self)
        #expect(pair.first.map(\.index) == Array(0..<Self.width))
        #expect(zip(pair.first, pair.second).allSatisfy { $0 === $1 })
        let next = try container.require(Pair.self)
        #expect(zip(pair.first, next.first).allSatisfy { $0 !== $1 }, "a later resolve reused an earlier graph's")
        #expect(zip(next.first, next.second).allSatisfy { $0 === $1 })
    }

    @Test func transientScopeMakesEveryInstanceAnewInAWideGraph() throws {
        let container = container(width: Self.width, scope: .transient)
        let pair = try container.require(Pair.self)
        #expect(zip(pair.first, pair.second).allSatisfy { $0 !== $1 })
    }

    @Test func callbacksOfAWideGraphRunOnceEachOldestFirst() throws {
        let width = Self.width
        let container = Container()
        let ran = Collected<Int>()
        for index in 0..<width {
            container.register(Leaf.self, name: "leaf-\(index)") { _ in Leaf(index: index) }
                .initCompleted { _, leaf in ran.append(leaf.index) }
        }
        container.register([Leaf].self) { r in try (0..<width).map { try r.require(Leaf.self, name: "leaf-\($0)") } }
        let leaves = try container.require([Leaf].self)
        #expect(leaves.count == width)
        #expect(ran.values == Array(0..<width))
    }

    @Test func aWideGraphThatFailsKeepsTheSingletonsItCompletedAndDropsTheRest() throws {
        let width = lighterUnderSanitizer(2_000)
        let failing = width / 2
        let container = Container()
        let builds = Collected<Int>()
        let failed = Counter()
        struct CallbackFailed: Error {}
        for index in 0..<width {
            container.register(Leaf.self, name: "leaf-\(index)") { _ in
                builds.append(index)
                return Leaf(index: index)
            }
            .inObjectScope(.container)
            .initCompleted { _, leaf in
                if leaf.index == failing, failed.increment() == 1 { throw CallbackFailed() }
            }
        }
        container.register([Leaf].self) { r in try (0..<width).map { try r.require(Leaf.self, name: "leaf-\($0)") } }
        #expect(throws: ResolutionError.self) { try container.require([Leaf].self) }
        #expect(builds.values == Array(0..<width))
        builds.removeAll()
        let leaves = try container.require([Leaf].self)
        // Callbacks run oldest first: the leaves before the failing one completed and were kept; it and the
        // ones whose callbacks never ran were discarded and are made again.
        #expect(builds.values == Array(failing..<width))
        #expect(leaves.map(\.index) == Array(0..<width))
    }
}

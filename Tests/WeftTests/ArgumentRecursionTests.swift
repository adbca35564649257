import Foundation
import Testing

@testable import Weft

/// A transient registration with runtime arguments may ask for itself with other arguments, as Swinject allows:
/// a tree built level by level ends when its factory stops asking, so it is a recursion, not a cycle. Both
/// engines build it; one that never ends stops with `tooDeep` instead of crashing or growing without bound.
@Suite struct ArgumentRecursionTests {
    final class Node: Sendable {
        let children: [Node]
        init(children: [Node]) { self.children = children }

        var count: Int { 1 + children.reduce(0) { $0 + $1.count } }
        var distinct: Int { Set(all.map(ObjectIdentifier.init)).count }
        private var all: [Node] { [self] + children.flatMap(\.all) }
    }

    final class Loop: Sendable {
        let next: Loop
        init(next: Loop) { self.next = next }
    }

    @Test func aTransientFactoryWithArgumentsBuildsATreeByAskingForItselfWithOtherArguments() throws {
        let container = Container()
        container.register(Node.self) { (r, depth: Int) in
            Node(children: try (0..<(depth > 0 ? 2 : 0)).map { _ in try r.require(Node.self, argument: depth - 1) })
        }
        .inObjectScope(.transient)

        let tree = try container.require(Node.self, argument: 4)

        #expect(tree.count == 31)
        #expect(tree.distinct == 31)
    }

    @Test func anAsyncTransientFactoryWithArgumentsBuildsATreeByAskingForItselfWithOtherArguments() async throws {
        let container = Container()
        container.register(Node.self) { (r: AsyncResolver, depth: Int) async throws in
            var children: [Node] = []
            for _ in 0..<(depth > 0 ? 2 : 0) { children.append(try await r.require(Node.self, arguments: depth - 1)) }
            return Node(children: children)
        }
        .inObjectScope(.transient)

        let tree = try await container.async.require(Node.self, arguments: 4)

        #expect(tree.count == 31)
        #expect(tree.distinct == 31)
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func aGraphScopedOrSharedRegistrationThatAsksForItselfIsStillACycle(scope: ObjectScope) throws {
        let container = Container()
        container.register(Node.self) { (r, depth: Int) in
            Node(children: depth > 0 ? [try r.require(Node.self, argument: depth - 1)] : [])
        }
        .inObjectScope(scope)

        let error = try #require(throws: ResolutionError.self) { try container.require(Node.self, argument: 2) }

        #expect(error.reason == .circularDependency)
        #expect(error.description.contains("Node is .\(scope)"))
        #expect(error.description.contains("register Node `.inObjectScope(.transient)`"))
    }

    @Test func anAsyncGraphScopedRegistrationThatAsksForItselfWithArgumentsSuggestsTransient() async throws {
        let container = Container()
        container.register(Node.self) { (r: AsyncResolver, depth: Int) async throws in
            Node(children: depth > 0 ? [try await r.require(Node.self, arguments: depth - 1)] : [])
        }

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Node.self, arguments: 2)
        }

        #expect(error.reason == .circularDependency)
        #expect(error.description.contains("Node is .graph (the default scope)"))
        #expect(error.description.contains("register Node `.inObjectScope(.transient)`"))
    }

    @Test func aCycleWithoutArgumentsKeepsTheUsualAdvice() throws {
        let container = Container()
        container.register(Loop.self) { r in Loop(next: try r.require(Loop.self)) }

        let error = try #require(throws: ResolutionError.self) { try container.require(Loop.self) }

        #expect(error.reason == .circularDependency)
        #expect(!error.description.contains(".inObjectScope(.transient)"))
        #expect(error.description.contains("initCompleted"))
    }

    @Test func aRecursionWithArgumentsThatNeverEndsStopsTooDeepInsteadOfCrashing() throws {
        let container = Container()
        container.register(Loop.self) { (r, step: Int) in Loop(next: try r.require(Loop.self, argument: step + 1)) }
            .inObjectScope(.transient)

        let error = try #require(throws: ResolutionError.self) { try container.require(Loop.self, argument: 0) }

        #expect(error.reason == .tooDeep)
    }

    @Test(hangLimit)
    func anAsyncRecursionWithArgumentsThatNeverEndsStopsTooDeepAtItsLimit() async throws {
        let container = Container()
        container.register(Loop.self) { (r: AsyncResolver, step: Int) async throws in
            Loop(next: try await r.require(Loop.self, arguments: step + 1))
        }
        .inObjectScope(.transient)

        let error = try await #require(throws: ResolutionError.self) {
            try await container.async.require(Loop.self, arguments: 0)
        }

        #expect(error.reason == .tooDeep)
        #expect(error.path.count == Container.asyncRecursionLimit + 1)
        #expect(error.description.contains("asked for itself \(Container.asyncRecursionLimit) times in async code"))
    }
}

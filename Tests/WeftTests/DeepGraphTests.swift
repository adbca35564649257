import Foundation
import Testing
import Weft

/// A resolve that goes deeper than the thread's stack allows fails with `.tooDeep` instead of crashing, on any
/// thread and stack size, and leaves the container usable.
@Suite struct DeepGraphTests {
    final class Node: Sendable {
        let next: Node?
        init(next: Node?) { self.next = next }

        var length: Int {
            var count = 0
            var current: Node? = self
            while let node = current {
                count += 1
                current = node.next
            }
            return count
        }
    }

    /// `n0 -> n1 -> ... -> n(depth-1)`, each resolved by name with `require`.
    static func chain(of depth: Int, scope: ObjectScope = .graph) -> Container {
        let container = Container()
        for index in 0..<depth {
            container.register(Node.self, name: "n\(index)") { r in
                Node(next: index + 1 < depth ? try r.require(Node.self, name: "n\(index + 1)") : nil)
            }
            .inObjectScope(scope)
        }
        return container
    }

    enum Outcome: Equatable {
        case built(length: Int)
        case tooDeep(pathCount: Int)
        case other(String)
    }

    /// Resolves the head of a chain on a thread with `stackSize` bytes of stack. Awaited rather than waited for:
    /// under a sanitizer a deep chain takes seconds, and a blocked cooperative thread would stall other tests.
    static func resolveChain(_ container: Container, stackSize: Int) async -> Outcome? {
        let outcomes = Collected<Outcome>()
        let thread = runOnThread(stackSize: stackSize) {
            do {
                let head = try container.require(Node.self, name: "n0")
                outcomes.append(.built(length: head.length))
            } catch let error as ResolutionError where error.reason == .tooDeep {
                outcomes.append(.tooDeep(pathCount: error.path.count))
            } catch {
                outcomes.append(.other("\(error)"))
            }
        }
        guard await thread.finished(within: 120) else { return nil }
        return outcomes.values.first
    }

    @Test(arguments: [ObjectScope.graph, .container, .transient])
    func fiveThousandDeepChainOnAnEightMebibyteStackBuildsOrThrowsTooDeep(scope: ObjectScope) async {
        // Under a sanitizer every level costs many times more, so the chain is shorter there; the uninstrumented
        // runs (debug and release) check the full depth.
        let depth = underSanitizer ? 1_000 : 5_000
        let outcome = await Self.resolveChain(Self.chain(of: depth, scope: scope), stackSize: 8 << 20)
        switch outcome {
        case .built(let length): #expect(length == depth)
        case .tooDeep(let count): #expect(count > 100 && count <= depth)
        case .other(let text): Issue.record("unexpected error: \(text)")
        case nil: Issue.record("the resolve did not return")
        }
    }

    @Test(arguments: [ObjectScope.graph, .container])
    func hundredDeepChainOnAHalfMebibyteStackBuildsOrThrowsTooDeep(scope: ObjectScope) async {
        let outcome = await Self.resolveChain(Self.chain(of: 100, scope: scope), stackSize: 512 << 10)
        switch outcome {
        case .built(let length): #expect(length == 100)
        case .tooDeep(let count): #expect(count > 10 && count <= 100)
        case .other(let text): Issue.record("unexpected error: \(text)")
        case nil: Issue.record("the resolve did not return")
        }
    }

    @Test func tooDeepErrorSaysHowDeepAndWhy() async throws {
        let container = Self.chain(of: 3_000)
        let errors = Collected<ResolutionError>()
        let thread = runOnThread(stackSize: 512 << 10) {
            do {
                _ = try container.require(Node.self, name: "n0")
            } catch let error as ResolutionError {
                errors.append(error)
            } catch {}
        }
        #expect(await thread.finished(within: 60))
        let error = try #require(errors.values.first)
        #expect(error.reason == .tooDeep)
        let depth = error.path.count
        #expect(error.path.first == "Node[\"n0\"]")
        #expect(error.path.last == "Node[\"n\(depth - 1)\"]")
        #expect(error.serviceType == "Node" && error.name == "n\(depth - 1)")
        let lines = error.description.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.count == 3)
        let headline = try #require(lines.first)
        let start =
            "[Weft.tooDeep] Resolving Node named \"n\(depth - 1)\" went \(depth) services deep, and this thread's "
            + "stack is nearly used up ("
        #expect(headline.hasPrefix(start))
        #expect(
            headline.hasSuffix(" KiB of its 512 KiB): going deeper would crash the program, so the resolve stops here.")
        )
        #expect(
            lines.dropFirst().first
                == "Each service on the path is made by a factory that asks for the next one. If the depth is "
                + "meant, resolve on a thread with a larger stack, or build the chain in a loop rather than one "
                + "factory per link; if not, look for registrations that keep asking for one more."
        )
        let first = (0..<5).map { "Node[\"n\($0)\"]" }.joined(separator: " -> ")
        let last = (depth - 5..<depth).map { "Node[\"n\($0)\"]" }.joined(separator: " -> ")
        #expect(lines.last == "Resolution path: \(first) -> ... (\(depth - 10) more) ... -> \(last)")
    }

    @Test func containerStaysUsableAfterATooDeepSingletonChain() async {
        let container = Self.chain(of: 2_000, scope: .container)
        let first = await Self.resolveChain(container, stackSize: 512 << 10)
        guard case .tooDeep = first else {
            Issue.record("expected tooDeep on a small stack, got \(String(describing: first))")
            return
        }
        // Nothing was left claimed or half-built: the same container builds the chain on a larger stack.
        #expect(await Self.resolveChain(container, stackSize: 64 << 20) == .built(length: 2_000))
    }

    @Test func optionalResolveReturnsNilAndLogsTooDeep() {
        let container = Self.chain(of: 3_000)
        let results = Collected<Bool>()
        let messages = Collected<String>()
        let log: @Sendable (String) -> Void = { messages.append($0) }
        withLoggingFunction(log) {
            let thread = runOnThread(stackSize: 512 << 10) {
                results.append(container.resolve(Node.self, name: "n0") == nil)
            }
            #expect(thread.wait(seconds: 60))
        }
        #expect(results.values == [true])
        #expect(messages.values.contains { $0.hasPrefix("[Weft.tooDeep] Resolving Node named \"n") })
    }

    /// A long chain of child containers, or of nested scopes, released at once on a small stack: each container
    /// is released after the one below it, not by a release nested in that one's.
    @Test(arguments: [false, true])
    func longChainOfContainersIsReleasedOnAHalfMebibyteStack(nestedScopes: Bool) async {
        final class Holder: @unchecked Sendable {
            var container: Container?
            weak var root: Container?
        }
        let depth = underSanitizer ? 5_000 : 20_000
        let holder = Holder()
        var container = Container()
        holder.root = container
        for _ in 0..<depth { container = nestedScopes ? container.makeScope() : Container(parent: container) }
        holder.container = container
        container = Container()
        let thread = runOnThread(stackSize: 512 << 10) { holder.container = nil }
        #expect(await thread.finished(within: 120))
        #expect(holder.root == nil)
    }

    @Test func verificationReportsAChainTooDeepForItsThreadOnceWithAHintAboutDepthNotAThrowingFactory() async throws {
        // Verification builds the chain from each of its registrations, each one until the stack runs low.
        let container = Self.chain(of: 1_500)
        let reports = Collected<VerificationReport>()
        let thread = runOnThread(stackSize: 256 << 10) { reports.append(container.verificationReport()) }
        #expect(await thread.finished(within: 120))
        let report = try #require(reports.values.first)

        // One chain, one problem, however many of its registrations stopped at the stack's end.
        let tooDeep = report.problems.filter { $0.message.contains("stack is nearly used up") }
        #expect(tooDeep.count == 1)
        let problem = try #require(tooDeep.first)
        #expect(problem.kind == .buildFailed)
        #expect(problem.details.first?.hasSuffix("more registrations on the chain stopped the same way") == true)
        #expect(!problem.hint.contains("throws"))
        #expect(problem.hint.hasPrefix("The chain is deeper than the verifying thread's stack allows"))
    }
}

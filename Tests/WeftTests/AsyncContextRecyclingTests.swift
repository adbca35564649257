import Testing

@testable import Weft

/// How an async resolution's context ends: one that nothing else refers to becomes one of its thread's spares,
/// taken by the next context the thread needs, and its caller's variable is left empty; one that something still
/// refers to (a resolver a factory kept) stays as it is.
///
/// Synchronous on purpose: no suspension point, so every call runs on one thread, whose spares it uses.
@Suite struct AsyncContextRecyclingTests {
    @Test func aContextNothingRefersToIsTakenAgainByTheThreadsNextContext() {
        let container = Container()
        let graph = AsyncGraph.start(ResolutionState.current)
        defer { graph.end() }
        // The thread's spares, taken first (released at the end), so that the context recycled below is the one
        // the thread has.
        let taken = (0..<32).map { _ in AsyncContext.root(graph, container: container) }
        defer { withExtendedLifetime(taken) {} }

        var context: AsyncContext? = AsyncContext.root(graph, container: container)
        let object = ObjectIdentifier(context.unsafelyUnwrapped)
        AsyncContext.recycle(&context)

        #expect(context == nil)
        let next = AsyncContext.root(graph, container: container)
        #expect(ObjectIdentifier(next) == object)
        #expect(next.graph === graph)
    }

    @Test func aContextSomethingStillRefersToIsNotTakenAgain() {
        let container = Container()
        let graph = AsyncGraph.start(ResolutionState.current)
        defer { graph.end() }
        let taken = (0..<32).map { _ in AsyncContext.root(graph, container: container) }
        defer { withExtendedLifetime(taken) {} }

        var context: AsyncContext? = AsyncContext.root(graph, container: container)
        let stillReferred = context.unsafelyUnwrapped
        AsyncContext.recycle(&context)

        #expect(context === stillReferred)
        let next = AsyncContext.root(graph, container: container)
        #expect(next !== stillReferred)
        #expect(stillReferred.graph === graph)
    }
}

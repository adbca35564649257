import Testing
import Weft

/// A shared instance whose `initCompleted` callback threw is not complete: it is not kept, also when the failure
/// is swallowed by an optional `resolve` and the request that made it goes on.
@Suite struct IncompleteInstanceDiscardTests {
    final class Clock: Sendable {}
    final class Metrics: Sendable {}
    final class Cache: Sendable {}
    final class Feed: Sendable {}

    /// `Feed`'s callback asks optionally for `Cache`, whose factory makes the `.container` `Clock`; `Clock`'s
    /// callback needs the missing `Metrics`.
    private func container() -> Container {
        let container = Container()
        container.register(Clock.self) { _ in Clock() }
            .inObjectScope(.container)
            .initCompleted { r, _ in _ = try r.require(Metrics.self) }
        container.register(Cache.self) { r in
            _ = try r.require(Clock.self)
            return Cache()
        }
        container.register(Feed.self) { _ in Feed() }
            .initCompleted { r, _ in #expect(r.resolve(Cache.self) == nil) }
        return container
    }

    @Test func aSingletonWhoseCallbackFailedUnderAnOptionalResolveIsNotKept() throws {
        let container = container()

        _ = try container.require(Feed.self)
        let error = #expect(throws: ResolutionError.self) { try container.require(Clock.self) }
        #expect(error?.reason == .missingRegistration)
    }

    @Test func verificationReportsTheFailingCallbackOfASingletonAskedForOptionally() throws {
        let report = container().verificationReport()

        #expect(report.problems.map(\.id) == ["missing-registration"])
        #expect(report.problems.first?.path.suffix(2) == ["Clock", "Metrics"])
    }
}

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

    final class Session: Sendable {}
    final class Page: Sendable {}
    final class Tick: Sendable {}
    final class Alpha: Sendable {}
    final class Report: Sendable {}

    /// `Clock`'s factory makes `Tick`, whose callback makes `Page`, whose callback asks for `Provider<Report>`;
    /// `Store` (`.container`) takes a `.scoped` `Session` in its callback, so every build that makes it fails.
    /// Resolving `Report` (`Clock`, then `Store`) runs `Page`'s callback before `Store`'s. Verification builds
    /// `Alpha` first, where `Clock` returns before `Tick`'s callback ran: `Clock` is not complete then, and the
    /// build of `Report` makes it again rather than reuse it, so `Page`'s callback runs there as it does at run
    /// time.
    @Test func verificationDoesNotReuseAServiceWhoseInstancesStillHadCallbacksToRun() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.scoped)
        container.register(Clock.self) { _ in Clock() }
            .inObjectScope(.container)
            .initCompleted { r, _ in _ = try r.require(Session.self) }
        container.register(Page.self) { r in
            _ = try r.require(Clock.self)
            return Page()
        }
        .initCompleted { r, _ in _ = try r.require(Provider<Report>.self) }
        container.register(Tick.self) { _ in Tick() }.initCompleted { r, _ in _ = try r.require(Page.self) }
        container.register(Cache.self) { r in
            _ = try r.require(Tick.self)
            return Cache()
        }
        container.register(Alpha.self) { r in
            _ = try r.require(Cache.self)
            return Alpha()
        }
        container.register(Report.self) { r in
            _ = try r.require(Cache.self)
            _ = try r.require(Clock.self)
            return Report()
        }

        let graph = container.verificationReport().graph
        let page = try #require(graph.node(for: Page.self)).id
        let report = try #require(graph.node(for: Report.self)).id
        #expect(
            graph.dependencies(of: page).contains(
                .init(from: page, to: report, kind: .initCompleted, access: .provider)))
    }
}

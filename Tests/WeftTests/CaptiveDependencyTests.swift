import Foundation
import Testing
import Weft

/// Captive dependencies: a service the container keeps (`.container`, custom scopes) holding one that its
/// scope means to live shorter or apart.
@Suite struct CaptiveDependencyTests {
    final class Session {}

    final class Cache {
        init(session: Session) {}
    }

    final class Feed {
        init(cache: Cache) {}
    }

    final class Poller {
        init(session: Provider<Session>) {}
    }

    final class Reader {
        init(session: Lazy<Session>) {}
    }

    static let login = ObjectScope(storageFactory: PermanentStorage.init, description: "login")
    static let device = ObjectScope(storageFactory: PermanentStorage.init, description: "device")

    /// `Holder -> Session` with the given scopes, both autoregistered or both closure registrations.
    private func pair(
        holder holderScope: ObjectScope,
        session sessionScope: ObjectScope,
        autoregistered: Bool = true
    ) -> Container {
        let container = Container()
        if autoregistered {
            container.autoregister(Session.self, initializer: Session.init).inObjectScope(sessionScope)
            container.autoregister(Cache.self, initializer: Cache.init).inObjectScope(holderScope)
        } else {
            container.register(Session.self) { _ in Session() }.inObjectScope(sessionScope)
            container.register(Cache.self) { r in Cache(session: try r.require()) }.inObjectScope(holderScope)
        }
        return container
    }

    @Test(arguments: [true, false])
    func singletonHoldingAWeakServiceIsCaptive(autoregistered: Bool) throws {
        let report = pair(holder: .container, session: .weak, autoregistered: autoregistered).verificationReport()

        let problem = try #require(report.problems.only)
        #expect(problem.id == "captive-dependency")
        #expect(problem.service == "Cache")
        #expect(problem.path == ["Cache", "Session"])
        #expect(
            problem.message == "Cache (.container) keeps Session (.weak) alive for as long as Cache lives, but .weak "
                + "means it should go once nothing else uses it."
        )
        #expect(
            problem.hint == "Make Session .container too, or let Cache take Provider<Session> and ask it for an "
                + "instance when it needs one."
        )
    }

    @Test func singletonHoldingACustomScopedServiceIsCaptive() throws {
        let problem = try #require(pair(holder: .container, session: Self.login).verificationReport().problems.only)
        #expect(problem.kind == .captiveDependency)
        #expect(problem.message.contains("keeps the Session (.login) it was made with"))
    }

    @Test func customScopedServiceHoldingAnotherCustomScopesServiceIsCaptive() throws {
        let report = pair(holder: Self.device, session: Self.login).verificationReport()
        #expect(report.problems.map(\.id) == ["captive-dependency"])
    }

    @Test func servicesOfTheSameCustomScopeHoldEachOtherFreely() throws {
        #expect(pair(holder: Self.login, session: Self.login).verificationReport().isValid)
    }

    @Test func singletonHoldingASingletonIsFine() throws {
        #expect(pair(holder: .container, session: .container).verificationReport().isValid)
    }

    @Test func shortLivedHoldersAreNeverCaptive() throws {
        for holder in [ObjectScope.transient, .graph, .weak] {
            #expect(pair(holder: holder, session: .weak).verificationReport(strict: true).isValid)
        }
    }

    @Test(arguments: [ObjectScope.transient, .graph])
    func singletonHoldingAShortLivedServiceIsCaptiveOnlyInStrictMode(scope: ObjectScope) throws {
        let container = pair(holder: .container, session: scope)
        #expect(container.verificationReport().isValid)

        let report = container.verificationReport(strict: true)
        let problem = try #require(report.problems.only)
        #expect(problem.kind == .captiveDependency)
        #expect(problem.message.hasPrefix("Cache (.container) keeps one Session (.\(scope))"))
        #expect(problem.hint.hasSuffix("If keeping one instance is intended, verify without strict."))
        #expect(throws: VerificationReport.self) { try container.verify(strict: true) }
    }

    @Test func weakServiceHeldThroughAGraphScopedOneIsCaptiveWithTheWholePath() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.weak)
        container.autoregister(Cache.self, initializer: Cache.init)
        container.register(Feed.self) { r in Feed(cache: try r.require()) }.inObjectScope(.container)

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.path == ["Feed", "Cache", "Session"])
        #expect(problem.message.contains("(through Cache)"))
        #expect(problem.hint.contains("let Cache take Provider<Session>"))
    }

    @Test func providerHoldsNothingButLazyHoldsItsInstance() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.weak)
        container.autoregister(Poller.self, initializer: Poller.init).inObjectScope(.container)
        container.autoregister(Reader.self, initializer: Reader.init).inObjectScope(.container)

        let report = container.verificationReport()
        #expect(report.problems.map(\.service) == ["Reader"])
    }

    @Test func initCompletedDependencyCanBeCaptiveToo() throws {
        final class Holder {
            var session: Session?
        }
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.weak)
        container.register(Holder.self) { _ in Holder() }
            .inObjectScope(.container)
            .initCompleted { r, holder in holder.session = try r.require() }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .captiveDependency)
        #expect(problem.pathDescription == "Holder -> Session")
    }

    @Test(arguments: [true, false])
    func weakServiceHoldingAScopedOneIsCaptiveAsItsResolveIs(autoregistered: Bool) throws {
        let container = pair(holder: .weak, session: .scoped, autoregistered: autoregistered)
        // Resolving it from a scope fails; verification says so.
        let error = try #require(throws: ResolutionError.self) { try container.makeScope().require(Cache.self) }
        #expect(error.reason == .captiveDependency)

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .captiveDependency)
        #expect(problem.path == ["Cache", "Session"])
        #expect(
            problem.message == "Cache (.weak) keeps the Session (.scoped) of the scope it was first made in, after "
                + "that scope ends and tears it down."
        )
    }

    @Test func scopedServiceHeldThroughAGraphScopedOneByAWeakOneIsCaptive() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.scoped)
        container.autoregister(Cache.self, initializer: Cache.init)
        container.register(Feed.self) { r in Feed(cache: try r.require()) }.inObjectScope(.weak)

        let problem = try #require(container.verificationReport(strict: true).problems.only)
        #expect(problem.path == ["Feed", "Cache", "Session"])
        #expect(problem.message.contains("(through Cache)"))
    }
}

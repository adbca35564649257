import Testing
import Weft

/// What a scope finds: its parents' registrations (with its own copy of each `.scoped` one), its own
/// registrations when it has some, and registrations added or replaced in the parent after it was made.
@Suite struct ScopeLookupTests {
    final class Session {
        let label: String
        init(label: String) { self.label = label }
    }

    final class Counted {
        let number: Int
        init(number: Int) { self.number = number }
    }

    @Test func aScopeSeesARegistrationReplacedInItsParentAfterItResolved() throws {
        let container = Container()
        container.register(Session.self) { _ in Session(label: "first") }.inObjectScope(.scoped)
        let scope = container.makeScope()
        #expect(try scope.require(Session.self).label == "first")
        container.register(Session.self) { _ in Session(label: "second") }.inObjectScope(.scoped)
        #expect(try scope.require(Session.self).label == "second")
        #expect(try container.makeScope().require(Session.self).label == "second")
    }

    @Test func aRegistrationInTheScopeItselfShadowsTheParentsForThatScopeOnly() throws {
        let container = Container()
        container.register(Session.self) { _ in Session(label: "parent") }.inObjectScope(.scoped)
        let plain = container.makeScope()
        let special = container.makeScope()
        #expect(try special.require(Session.self).label == "parent")
        special.register(Session.self) { _ in Session(label: "own") }.inObjectScope(.scoped)
        #expect(try special.require(Session.self).label == "own")
        #expect(try plain.require(Session.self).label == "parent")
        #expect(try special.makeScope().require(Session.self).label == "own")
    }

    @Test func aNestedScopeSeesARegistrationAddedToItsOuterScopeAfterItWasMade() throws {
        let container = Container()
        container.register(Session.self) { _ in Session(label: "parent") }
        let outer = container.makeScope()
        let inner = outer.makeScope()
        #expect(try inner.require(Session.self).label == "parent")
        outer.register(Session.self) { _ in Session(label: "outer") }
        #expect(try inner.require(Session.self).label == "outer")
        #expect(try container.makeScope().require(Session.self).label == "parent")
    }

    @Test func scopesThatRegisterWhileOtherScopesResolveOnOtherThreadsEachSeeTheirOwn() {
        let container = Container()
        container.register(Session.self) { _ in Session(label: "parent") }
        let mismatches = Counter()
        runOnThreads(4) { thread in
            for round in 0..<lighterUnderSanitizer(500) {
                let outer = container.makeScope()
                let inner = outer.makeScope()
                let plain = container.makeScope()
                if (try? inner.require(Session.self).label) != "parent" { mismatches.increment() }
                if thread.isMultiple(of: 2) {
                    let label = "outer-\(thread)-\(round)"
                    outer.register(Session.self) { _ in Session(label: label) }
                    if (try? inner.require(Session.self).label) != label { mismatches.increment() }
                }
                if (try? plain.require(Session.self).label) != "parent" { mismatches.increment() }
            }
        }
        #expect(mismatches.value == 0)
    }

    @Test func aScopeNestedInAScopeWithRegistrationsKeepsItsOwnInstances() throws {
        let container = Container()
        let made = Counter()
        container.register(Counted.self) { _ in Counted(number: made.increment()) }.inObjectScope(.scoped)
        let outer = container.makeScope()
        outer.register(Session.self) { _ in Session(label: "outer") }
        let inner = outer.makeScope()
        let fromInner = try inner.require(Counted.self)
        let fromOuter = try outer.require(Counted.self)
        #expect(fromInner !== fromOuter)
        #expect(try inner.require(Counted.self) === fromInner)
        #expect(try outer.require(Counted.self) === fromOuter)
        #expect(try inner.require(Session.self).label == "outer")
    }

    @Test func aScopeWithManyScopedServicesKeepsOneInstanceOfEach() throws {
        let container = Container()
        let names = (0..<40).map { "service \($0)" }
        for name in names {
            container.register(Session.self, name: name) { _ in Session(label: name) }.inObjectScope(.scoped)
        }
        let scope = container.makeScope()
        let first = try names.map { try scope.require(Session.self, name: $0) }
        let second = try names.map { try scope.require(Session.self, name: $0) }
        #expect(first.map(\.label) == names)
        #expect(zip(first, second).allSatisfy { $0 === $1 })
        let other = try container.makeScope().require(Session.self, name: names[30])
        #expect(other !== first[30])
    }

    @Test func anEndedScopeStillFailsAfterItsLookupsWereCached() async throws {
        let container = Container()
        container.register(Session.self) { _ in Session(label: "work") }.inObjectScope(.scoped)
        container.register(Counted.self) { _ in Counted(number: 7) }
        let scope = container.makeScope()
        for _ in 0..<3 { _ = try scope.require(Session.self) }
        try await scope.end()
        let error = try #require(throws: ResolutionError.self) { try scope.require(Session.self) }
        #expect(error.reason == .scopeEnded)
        #expect(try scope.require(Counted.self).number == 7)
        #expect(try container.makeScope().require(Session.self).label == "work")
    }
}

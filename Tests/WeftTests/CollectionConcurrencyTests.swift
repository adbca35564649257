import Foundation
import Testing
import Weft

/// Collections resolved while elements are contributed on other threads: a resolve lists only elements whose
/// registrations are there, so it never fails for one being contributed.
@Suite struct CollectionConcurrencyTests {
    final class Element: Sendable {
        let index: Int
        init(_ index: Int) { self.index = index }
    }

    /// Resolves `collection` from `container` on three threads while `contribute` runs `count` times on two
    /// others; returns the reasons of the resolves that failed.
    private func failures<Collection>(
        resolving collection: Collection.Type,
        from container: Container,
        while contribute: @escaping @Sendable (Int) -> Void,
        count: Int
    ) -> [ResolutionError.Reason] {
        let failed = Collected<ResolutionError.Reason>()
        let done = Collected<Bool>()
        let contributors = (0..<2).map { half in
            runOnThread {
                for index in stride(from: half, to: count, by: 2) { contribute(index) }
                done.append(true)
            }
        }
        let resolvers = (0..<3).map { _ in
            runOnThread {
                while done.values.count < 2 {
                    do {
                        _ = try container.require(collection)
                    } catch {
                        if let error = error as? ResolutionError { failed.append(error.reason) }
                    }
                }
            }
        }
        for contributor in contributors { #expect(contributor.wait(seconds: 60)) }
        for resolver in resolvers { #expect(resolver.wait(seconds: 60)) }
        return failed.values
    }

    @Test func listResolvedWhileElementsAreContributedNeverMissesAnElementsRegistration() {
        let container = Container()
        container.declareCollection([Element].self)
        let failed = failures(
            resolving: [Element].self, from: container,
            while: { index in
                container.contribute(to: [Element].self) { _ in Element(index) }
                    .inObjectScope(index.isMultiple(of: 3) ? .container : .transient)
            }, count: lighterUnderSanitizer(3_000))
        #expect(failed.isEmpty)
        #expect(container.resolve([Element].self)?.map(\.index).sorted() == Array(0..<lighterUnderSanitizer(3_000)))
    }

    @Test func listResolvedWhileElementsWithIDsAreContributedNeverMissesAnElementsRegistration() {
        let container = Container()
        container.declareCollection([Element].self)
        let failed = failures(
            resolving: [Element].self, from: container,
            while: { index in container.contribute(to: [Element].self, id: "e\(index)") { _ in Element(index) } },
            count: lighterUnderSanitizer(3_000))
        #expect(failed.isEmpty)
        #expect(container.resolve([Element].self)?.count == lighterUnderSanitizer(3_000))
    }

    @Test func mapResolvedWhileElementsAreContributedNeverMissesAnElementsRegistration() {
        let container = Container()
        container.declareCollection([Int: Element].self)
        let failed = failures(
            resolving: [Int: Element].self, from: container,
            while: { index in container.contribute(to: [Int: Element].self, key: index) { _ in Element(index) } },
            count: lighterUnderSanitizer(3_000))
        #expect(failed.isEmpty)
        #expect(container.resolve([Int: Element].self)?.count == lighterUnderSanitizer(3_000))
    }
}

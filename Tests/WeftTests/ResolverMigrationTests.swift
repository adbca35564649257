import Foundation
import Testing
import Weft

/// What "Migrating from Resolver and Factory" promises a Resolver user: the `.cached` scope reset on its own,
/// `isEmpty` on the lazy wrappers, name constants, fallback containers and the argument recipes.
@Suite struct ResolverMigrationTests {
    final class Session {}
    final class Settings {}

    final class Account {
        let session: Session
        init(session: Session) { self.session = session }
    }

    @Test func resettingTheCachedScopeKeepsContainerSingletons() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.cached)
        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let session = try container.require(Session.self)
        let settings = try container.require(Settings.self)
        #expect(try container.require(Session.self) === session)

        container.resetObjectScope(.cached)

        #expect(try container.require(Session.self) !== session)
        #expect(try container.require(Settings.self) === settings)
    }

    @Test func resettingTheContainerScopeKeepsCachedInstances() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.cached)
        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let session = try container.require(Session.self)
        let settings = try container.require(Settings.self)

        container.resetObjectScope(.container)

        #expect(try container.require(Session.self) === session)
        #expect(try container.require(Settings.self) !== settings)
    }

    @Test func resettingTheCachedScopeAlsoDiscardsSingletonsMadeWithItsInstances() throws {
        let container = Container()
        container.register(Session.self) { _ in Session() }.inObjectScope(.cached)
        container.register(Account.self) { r in Account(session: try r.require()) }.inObjectScope(.container)
        let first = try container.require(Account.self)

        container.resetObjectScope(.cached)

        let second = try container.require(Account.self)
        #expect(second !== first)
        #expect(second.session !== first.session)
    }

    @Test func cachedScopeIsDescribedByItsName() {
        #expect(ObjectScope.cached.description == "cached")
    }

    final class LazyHolder {
        @LazyInjected var session: Session
        @WeakLazyInjected var settings: Settings?
        init(container: Container) {
            _session = LazyInjected(container: container)
            _settings = WeakLazyInjected(container: container)
        }
    }

    @Test func lazyWrapperIsEmptyUntilFirstAccessAndAfterRelease() {
        let container = Container()
        let made = Counter()
        container.register(Session.self) { _ in
            made.increment()
            return Session()
        }
        let holder = LazyHolder(container: container)

        #expect(holder.$session.isEmpty)
        #expect(made.value == 0)
        _ = holder.session
        #expect(!holder.$session.isEmpty)
        holder.$session.release()
        #expect(holder.$session.isEmpty)
        #expect(made.value == 1)
    }

    @Test func weakLazyWrapperIsEmptyOnceNothingElseKeepsTheInstance() {
        let container = Container()
        container.register(Settings.self) { _ in Settings() }.inObjectScope(.container)
        let holder = LazyHolder(container: container)
        #expect(holder.$settings.isEmpty)

        #expect(holder.settings != nil)
        #expect(!holder.$settings.isEmpty)

        container.resetObjectScope(.container)
        #expect(holder.$settings.isEmpty)
    }
}

extension String {
    fileprivate static let fred = "Fred"
    fileprivate static let barney = "Barney"
}

/// The article's recipes for Resolver's names, fallback containers and untyped arguments.
@Suite struct ResolverMigrationRecipeTests {
    final class Named {
        let name: String
        init(_ name: String) { self.name = name }
    }

    @Test func nameConstantsOnStringWorkWhereResolverNamesWere() throws {
        let container = Container()
        container.register(Named.self, name: .fred) { _ in Named("Fred") }
        container.register(Named.self, name: .barney) { _ in Named("Barney") }
        #expect(try container.require(Named.self, name: .fred).name == "Fred")
        #expect(try container.require(Named.self, name: .barney).name == "Barney")
    }

    @Test func chainedContainersStandInForSeveralFallbackResolvers() throws {
        // Resolver: root.add(child: first); root.add(child: second)
        let second = Container()
        let first = Container(parent: second)
        let root = Container(parent: first)
        second.register(Named.self) { _ in Named("second") }
        first.register(Named.self, name: "only-first") { _ in Named("first") }

        #expect(try root.require(Named.self).name == "second")
        #expect(try root.require(Named.self, name: "only-first").name == "first")
        first.register(Named.self) { _ in Named("first") }
        #expect(try root.require(Named.self).name == "first")
    }

    struct Options {
        var condition = false
        var name = "Barney"
    }

    final class Configured {
        var condition: Bool
        var name: String
        init(condition: Bool, name: String) {
            self.condition = condition
            self.name = name
        }
    }

    @Test func keyedArgumentsBecomeOneArgumentStruct() throws {
        let container = Container()
        container.register(Configured.self) { (_, options: Options) in
            Configured(condition: options.condition, name: options.name)
        }
        let made = try container.require(Configured.self, argument: Options(condition: true, name: "Fred"))
        #expect(made.condition)
        #expect(made.name == "Fred")
        let defaulted = try container.require(Configured.self, argument: Options())
        #expect(!defaulted.condition)
        #expect(defaulted.name == "Barney")
    }

    @Test func anUntypedBagIsOneDictionaryArgument() throws {
        let container = Container()
        container.register(Configured.self) { (_, arguments: [String: any Sendable]) in
            Configured(
                condition: arguments["condition"] as? Bool ?? false,
                name: arguments["name"] as? String ?? "Barney")
        }
        let made = try container.require(Configured.self, argument: ["condition": true] as [String: any Sendable])
        #expect(made.condition)
        #expect(made.name == "Barney")
    }

    @Test func optionalResolveWithOneArgumentInfersTheServiceType() {
        let container = Container()
        container.register { (_, condition: Bool) in Configured(condition: condition, name: "inferred") }
        let made: Configured? = container.resolve(argument: true)
        #expect(made?.condition == true)
        let named: Configured? = container.resolve(name: "other", argument: true)
        #expect(named == nil)
    }

    struct Unavailable: Error {}

    @Test func aFactoryWithNothingToGiveThrowsAndResolveReturnsNil() {
        let container = Container()
        container.register(Named.self) { _ in throw Unavailable() }
        #expect(container.resolve(Named.self) == nil)
        #expect {
            try container.require(Named.self)
        } throws: { error in
            (error as? ResolutionError)?.reason == .factoryFailed
        }
    }

    /// The article's stand-in for `Resolver.decorate`: a behavior that gives every registration a callback.
    struct InstanceLog: Behavior {
        let seen: Journal
        func container<Type, Service>(
            _: Container, didRegisterType _: Type.Type, toService entry: ServiceEntry<Service>, withName _: String?
        ) {
            entry.initCompleted { _, instance in seen.append("\(type(of: instance))") }
        }
    }

    final class Journal: @unchecked Sendable {
        private let lock = NSLock()
        private var entries: [String] = []
        var values: [String] { lock.withLock { entries } }
        func append(_ entry: String) { lock.withLock { entries.append(entry) } }
    }

    @Test func aBehaviorSeesEveryNewInstanceAsResolverDecorateDid() throws {
        let seen = Journal()
        let container = Container(behaviors: [InstanceLog(seen: seen)])
        container.register(Named.self) { _ in Named("kept") }.inObjectScope(.container)
        container.register(Configured.self) { _ in Configured(condition: false, name: "new") }

        _ = try container.require(Named.self)
        _ = try container.require(Named.self)
        _ = try container.require(Configured.self)

        #expect(seen.values == ["Named", "Configured"])
    }

    @Test func argumentsAFactoryDoesNotTakeAreAMissingRegistration() {
        let container = Container()
        container.register(Named.self) { _ in Named("plain") }
        #expect(container.resolve(Named.self, argument: true) == nil)
        #expect(throws: ResolutionError.self) { try container.require(Named.self, argument: true) }
    }
}

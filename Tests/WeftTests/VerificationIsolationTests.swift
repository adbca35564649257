import Dispatch
import Testing
import Weft

/// Verification builds in a throwaway copy: the real container's instances and factories are untouched,
/// and it works from anywhere (inside a factory, off the main actor, with parents, with `Container.shared`).
@Suite struct VerificationIsolationTests {
    final class Database {}

    final class Repository {
        let database: Database
        init(database: Database) { self.database = database }
    }

    final class Screen {
        @Injected var repository: Repository
    }

    /// `Database` (.container) and `Repository` (`scope`), counting their factory calls.
    private func container(
        databases: Counter,
        repositories: Counter = Counter(),
        scope: ObjectScope = .graph
    ) -> Container {
        let container = Container()
        container.register(Database.self) { _ in
            databases.increment()
            return Database()
        }
        .inObjectScope(.container)
        container.register(Repository.self) { r in
            repositories.increment()
            return Repository(database: try r.require())
        }
        .inObjectScope(scope)
        return container
    }

    @Test func singletonResolvedAfterVerificationIsMadeOnceInTheRealContainer() throws {
        let databases = Counter()
        let container = container(databases: databases)

        try container.verify()
        let builtByVerification = databases.value
        #expect(builtByVerification == 1)

        let first = try container.require(Database.self)
        let second = try container.require(Database.self)
        #expect(first === second)
        #expect(databases.value == builtByVerification + 1)
    }

    @Test func singletonMadeBeforeVerificationStaysAndIsNotRebuiltInTheRealContainer() throws {
        let databases = Counter()
        let repositories = Counter()
        let container = container(databases: databases, repositories: repositories, scope: .container)
        let database = try container.require(Database.self)
        let repository = try container.require(Repository.self)
        #expect((databases.value, repositories.value) == (1, 1))

        try container.verify()
        #expect((databases.value, repositories.value) == (2, 2))  // each built once more, in the copy

        #expect((try container.require(Database.self)) === database)
        #expect((try container.require(Repository.self)) === repository)
        #expect((databases.value, repositories.value) == (2, 2))
    }

    @Test func autoregisteredServicesAreCheckedWithoutCallingTheirInitializers() throws {
        let made = Counter()
        let container = Container()
        container.autoregister(Database.self) { () -> Database in
            made.increment()
            return Database()
        }
        container.autoregister(Repository.self, initializer: Repository.init)

        let report = container.verificationReport()
        #expect(report.isValid)
        #expect(made.value == 0)
        #expect(report.graph.edges.count == 1)
    }

    @Test func parentContainersAreCopiedTooAndKeepTheirSingletons() throws {
        let databases = Counter()
        let parent = container(databases: databases)
        let child = Container(parent: parent)
        child.register(Screen.self) { _ in Screen() }.inObjectScope(.transient)
        let database = try parent.require(Database.self)

        let report = Container.withShared(child) { child.verificationReport() }
        #expect(report.isValid)
        #expect(report.checkedCount == 3)
        #expect((try parent.require(Database.self)) === database)
        #expect(databases.value == 2)  // the parent's once, the copy's once
    }

    @Test func failedBuildInTheCopyLeavesTheRealContainerUsable() throws {
        struct Offline: Error {}
        let attempts = Counter()
        let container = Container()
        container.register(Database.self) { _ in
            if attempts.increment() == 1 { throw Offline() }
            return Database()
        }
        .inObjectScope(.container)

        #expect(container.verificationReport().problems.map(\.id) == ["build-failed"])
        _ = try container.require(Database.self)
        #expect(attempts.value == 2)
    }

    @Test func verificationFromInsideAFactoryDoesNotJoinTheGraphBeingResolved() throws {
        let verified = container(databases: Counter())
        let inner = Collected<VerificationReport>()
        let container = container(databases: Counter())
        container.register(Database.self, name: "verifying") { r in
            inner.append(verified.verificationReport())
            _ = try r.require(Repository.self)
            return Database()
        }

        _ = try container.require(Database.self, name: "verifying")
        let report = try #require(inner.values.only)
        #expect(report.isValid)
        #expect(report.checkedCount == 2)
        #expect(report.graph.edges.count == 1)
    }

    @Test func propertyWrappersResolveFromTheCopyWhenTheSharedContainerIsVerified() throws {
        let repositories = Counter()
        let container = container(databases: Counter(), repositories: repositories, scope: .container)
        container.register(Screen.self) { _ in Screen() }

        let graph = Container.withShared(container) { container.dependencyGraph() }
        let screen = try #require(graph.node(for: Screen.self))
        let repository = try #require(graph.node(for: Repository.self))
        #expect(graph.dependencies(of: screen.id) == [.init(from: screen.id, to: repository.id, kind: .property)])
        #expect(repositories.value == 1)

        let made = try Container.withShared(container) { try container.require(Screen.self) }
        #expect(made.repository === (try container.require(Repository.self)))
        #expect(repositories.value == 2)
    }

    @Test func mainActorFactoryOffTheMainActorIsListedAsNotChecked() throws {
        final class Model {}
        let container = Container()
        container.register(Model.self) { @MainActor _ in Model() }
        container.register(Repository.self) { r in
            _ = try r.require(Model.self)
            return Repository(database: Database())
        }

        let reports = Collected<VerificationReport>()
        let thread = runOnThread { reports.append(container.verificationReport()) }
        #expect(thread.wait(seconds: 10))
        let report = try #require(reports.values.only)
        #expect(report.isValid)
        #expect(report.unchecked.map(\.service) == ["Model", "Repository"])
        #expect(report.unchecked.first?.reason == "its factory is @MainActor, and verification ran off the main actor")
        #expect(report.unchecked.last?.reason.hasPrefix("it needs Model, whose factory is @MainActor") == true)
    }

    @Test func forwardedTypesJoinTheirRegistrationsNode() throws {
        final class Consumer {
            init(database: AnyObject) {}
        }
        let container = Container()
        container.register(Database.self) { _ in Database() }.implements(AnyObject.self)
        container.register(Consumer.self) { r in Consumer(database: try r.require(AnyObject.self)) }

        let graph = container.dependencyGraph()
        #expect(graph.nodes.count == 2)
        let database = try #require(graph.node(for: Database.self))
        #expect(database.forwardedTypes == ["AnyObject"])
        #expect(graph.node(for: AnyObject.self) == database)
        #expect(graph.dependents(of: database.id).count == 1)
    }
}

import Foundation
import Testing
import Weft

/// `verify()` and `verificationReport()`: each kind of problem alone, several in one report, what is left
/// unchecked, and how the report reads.
@Suite struct VerificationTests {
    final class Logger {}
    protocol PaymentGateway: AnyObject {}
    final class Stripe: PaymentGateway {}

    final class Checkout {
        init(payment: any PaymentGateway, logger: Logger) {}
    }

    final class Cart {
        init(checkout: Checkout) {}
    }

    final class Shop {
        init(cart: Cart) {}
    }

    final class Ping {
        var pong: Pong?
        init() {}
        init(pong: Pong) { self.pong = pong }
    }

    final class Pong {
        // Weak: a Ping and its Pong made by verification would otherwise keep each other alive.
        weak var ping: Ping?
        init() {}
        init(ping: Ping) { self.ping = ping }
    }

    final class Page {
        init(id: Int, logger: Logger) {}
    }

    struct DiskFull: Error, CustomStringConvertible {
        var description: String { "the disk is full" }
    }

    // MARK: A valid container

    @Test func validContainerPassesWithoutThrowing() throws {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init).inObjectScope(.container)
        container.register((any PaymentGateway).self) { _ in Stripe() }
        container.autoregister(Checkout.self, initializer: Checkout.init)

        try container.verify()
        let report = container.verificationReport()
        #expect(report.isValid)
        #expect(report.checkedCount == 3)
        #expect(report.description == "Weft verification passed: 3 registrations checked, no problems.")
    }

    @Test func emptyContainerPasses() throws {
        try Container().verify()
    }

    // MARK: Missing registrations

    @Test func missingDependencyOfAnAutoregisteredServiceNamesWhoNeedsItAndThePath() throws {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init)
        container.register((any PaymentGateway).self, name: "stripe") { _ in Stripe() }
        container.autoregister(Checkout.self, initializer: Checkout.init)
        container.autoregister(Cart.self, initializer: Cart.init)
        container.autoregister(Shop.self, initializer: Shop.init)

        let report = container.verificationReport()
        let problem = try #require(report.problems.only)
        #expect(problem.id == "missing-registration")
        #expect(problem.kind == .missingRegistration)
        #expect(problem.service == "PaymentGateway")
        #expect(problem.path == ["Shop", "Cart", "Checkout", "PaymentGateway"])
        #expect(problem.message == "Checkout needs PaymentGateway, which is not registered.")
        #expect(problem.details == ["registered instead: PaymentGateway named \"stripe\""])
        #expect(problem.hint.hasPrefix("Register PaymentGateway in this container or a parent."))
    }

    @Test func missingDependencyOfAClosureRegistrationIsFoundByBuildingIt() throws {
        let container = Container()
        container.register(Logger.self) { _ in Logger() }
        container.register(Checkout.self) { r in Checkout(payment: try r.require(), logger: try r.require()) }
        container.register(Cart.self) { r in Cart(checkout: try r.require()) }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .missingRegistration)
        #expect(problem.pathDescription == "Cart -> Checkout -> PaymentGateway")
        #expect(problem.message == "Checkout needs PaymentGateway, which is not registered.")
    }

    @Test func dependencyTakenOptionallyIsNotMissing() throws {
        final class Screen {
            init(logger: Logger?) {}
        }
        final class Banner {
            init(logger: Logger?) {}
        }
        let container = Container()
        container.autoregister(Screen.self, initializer: Screen.init)
        container.register(Banner.self) { r in Banner(logger: r.resolve(Logger.self)) }

        let report = container.verificationReport()
        #expect(report.isValid)
        #expect(report.graph.edges.allSatisfy { $0.access == .optional })
    }

    // MARK: Unbuildable cycles

    @Test func initializerCycleOfAutoregisteredServicesIsFoundWithoutBuildingThem() throws {
        let container = Container()
        container.autoregister(Ping.self, initializer: Ping.init(pong:))
        container.autoregister(Pong.self, initializer: Pong.init(ping:))

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.id == "unbuildable-cycle")
        #expect(problem.path == ["Ping", "Pong", "Ping"])
        #expect(problem.message == "Ping and Pong need each other while being made, so neither can be made first.")
        #expect(problem.hint.contains("Lazy<Ping> or Provider<Ping>"))
    }

    @Test func factoryCycleOfClosureRegistrationsIsFoundByBuildingThem() throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try r.require()) }
        container.register(Pong.self) { r in Pong(ping: try r.require()) }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .unbuildableCycle)
        #expect(problem.pathDescription == "Ping -> Pong -> Ping")
    }

    @Test func cycleClosedInInitCompletedOfAGraphScopedServiceIsFine() throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try r.require()) }
        container.register(Pong.self) { _ in Pong() }
            .initCompleted { r, pong in pong.ping = try r.require() }

        #expect(container.verificationReport().isValid)
    }

    @Test func cycleOfTransientServicesThroughInitCompletedIsUnbuildable() throws {
        let container = Container()
        container.register(Ping.self) { r in Ping(pong: try r.require()) }.inObjectScope(.transient)
        container.register(Pong.self) { _ in Pong() }
            .inObjectScope(.transient)
            .initCompleted { r, pong in pong.ping = try r.require() }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .unbuildableCycle)
        #expect(problem.message.contains("are all .transient"))
    }

    @Test func lazyDependencyDoesNotCloseACycle() throws {
        final class Node {
            init(next: Lazy<Tail>) {}
        }
        final class Tail {
            init(node: Node) {}
        }
        let container = Container()
        container.autoregister(Node.self, initializer: Node.init)
        container.autoregister(Tail.self, initializer: Tail.init)

        #expect(container.verificationReport().isValid)
    }

    // MARK: Build failures

    @Test func throwingFactoryIsABuildFailureWithItsError() throws {
        let container = Container()
        container.register(Logger.self) { _ in throw DiskFull() }
        container.register(Cart.self) { r in
            _ = try r.require(Logger.self)
            return Cart(checkout: Checkout(payment: Stripe(), logger: Logger()))
        }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.id == "build-failed")
        #expect(problem.service == "Logger")
        #expect(problem.path == ["Cart", "Logger"])
        #expect(problem.message == "The factory of Logger threw: the disk is full")
        #expect(problem.details == ["error: the disk is full"])
        #expect(problem.underlyingError is DiskFull)
    }

    @Test func throwingInitCompletedIsABuildFailure() throws {
        let container = Container()
        container.register(Logger.self) { _ in Logger() }.initCompleted { _, _ in throw DiskFull() }

        let problem = try #require(container.verificationReport().problems.only)
        #expect(problem.kind == .buildFailed)
        #expect(problem.message == "An initCompleted callback of Logger threw: the disk is full")
    }

    // MARK: Several problems at once

    @Test func oneReportHasEveryProblemSortedByKind() throws {
        let container = Container()
        container.autoregister(Checkout.self, initializer: Checkout.init)  // needs PaymentGateway and Logger
        container.register(Ping.self) { r in Ping(pong: try r.require()) }
        container.register(Pong.self) { r in Pong(ping: try r.require()) }
        container.register(Logger.self) { _ in throw DiskFull() }
        container.register(Stripe.self) { _ in Stripe() }.inObjectScope(.weak)
        container.register(Cart.self) { r in
            _ = try r.require(Stripe.self)
            return Cart(checkout: Checkout(payment: Stripe(), logger: Logger()))
        }
        .inObjectScope(.container)

        let report = container.verificationReport()
        #expect(
            report.problems.map(\.id) == [
                "missing-registration", "unbuildable-cycle", "captive-dependency", "build-failed",
            ])
        #expect(report.problems(ofKind: .captiveDependency).first?.pathDescription == "Cart -> Stripe")
        let error = try #require(throws: VerificationReport.self) { try container.verify() }
        #expect(error.problems.count == 4)
    }

    // MARK: What is not checked

    @Test func closureRegistrationWithRuntimeArgumentsIsListedAsNotChecked() throws {
        let built = Counter()
        let container = Container()
        container.register(Logger.self) { _ in Logger() }
        container.register(Page.self) { (r, id: Int) in
            built.increment()
            return Page(id: id, logger: try r.require())
        }

        let report = container.verificationReport()
        #expect(report.isValid)
        #expect(report.checkedCount == 1)
        #expect(report.unchecked.map(\.service) == ["Page with arguments (Int)"])
        #expect(report.unchecked.first?.reason.contains("runtime arguments (Int)") == true)
        #expect(built.value == 0)
    }

    @Test func autoregisteredServiceWithRuntimeArgumentsIsCheckedFromItsInitializer() throws {
        let container = Container()
        container.autoregister(Page.self, argument: Int.self, initializer: Page.init)

        let report = container.verificationReport()
        #expect(report.unchecked.isEmpty)
        #expect(report.problems.only?.message == "Page needs Logger, which is not registered.")
    }

    // MARK: The report's text

    @Test func descriptionHasAHeaderWithCountsAndOneNumberedBlockPerProblem() throws {
        let container = Container()
        container.autoregister(Cart.self, initializer: Cart.init)
        container.register(Logger.self) { _ in throw DiskFull() }
        container.register(Page.self) { (_, id: Int) in Page(id: id, logger: Logger()) }

        let expected = """
            Weft verification failed: 2 problems in 2 registrations (1 missing registration, 1 build failure); \
            1 registration not checked.

            1. [missing-registration] Cart needs Checkout, which is not registered.
               path: Cart -> Checkout
               hint: Register Checkout in this container or a parent. If Cart can do without it, take it as an \
            optional (Checkout? in the initializer, `r.resolve` in a factory).

            2. [build-failed] The factory of Logger threw: the disk is full
               path: Logger
               error: the disk is full
               hint: Fix what the factory throws for; resolving Logger at run time fails the same way.

            Not checked:
            - Page with arguments (Int): its factory takes runtime arguments (Int), which verification cannot \
            make up
            """
        #expect(container.verificationReport().description == expected)
    }

    @Test func strictModeIsNamedInTheHeader() throws {
        let container = Container()
        container.register(Logger.self) { _ in Logger() }

        #expect(container.verificationReport(strict: true).description.hasPrefix("Weft verification passed (strict)"))
    }
}

extension Array {
    /// The single element, or nil when there are none or several.
    var only: Element? {
        count == 1 ? first : nil
    }
}

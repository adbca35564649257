// Section 7: whole-graph verification. A deliberately broken container shows every kind of problem in one
// report; the real container's instances stay untouched; the shop's container passes.

import Weft

/// The services of the broken container.
enum BrokenShop {
    protocol PaymentGateway: AnyObject {}
    final class StripeGateway: PaymentGateway {}

    final class Checkout {
        init(payment: any PaymentGateway) {}
    }

    final class AuthService {
        init(tokens: TokenStore) {}
    }

    final class TokenStore {
        init(auth: AuthService) {}
    }

    final class UserSession {}

    final class ImageCache {
        init(session: UserSession) {}
    }

    struct FileNotFound: Error, CustomStringConvertible {
        let path: String
        var description: String { "no file at \(path)" }
    }

    final class Database {
        init(path: String) throws { throw FileNotFound(path: path) }
    }

    final class ProductPage {
        init(productID: Int, database: Database) {}
    }

    /// One problem of each kind, and a registration that needs a runtime argument.
    static func container(counter: CallCounter) -> Container {
        let container = Container()
        // Missing: Checkout needs an unnamed PaymentGateway; only a named one is registered.
        container.autoregister(Checkout.self, initializer: Checkout.init)
        container.register((any PaymentGateway).self, name: "stripe") { _ in StripeGateway() }
        // An initializer/initializer cycle.
        container.register(AuthService.self) { r in AuthService(tokens: try r.require()) }
        container.register(TokenStore.self) { r in TokenStore(auth: try r.require()) }
        // Captive: a singleton keeps a .weak session alive.
        container.register(UserSession.self) { _ in UserSession() }.inObjectScope(.weak)
        container.register(ImageCache.self) { r in ImageCache(session: try r.require()) }.inObjectScope(.container)
        // A factory that throws.
        container.register(Database.self) { _ in
            counter.record("Database factory")
            return try Database(path: "shop.sqlite")
        }
        .inObjectScope(.container)
        // Needs a runtime argument: not built, listed as not checked.
        container.register(ProductPage.self) { (r, id: Int) in ProductPage(productID: id, database: try r.require()) }
        return container
    }
}

/// Verifies the broken container and prints the report, then the shop's container.
func runVerificationDemo() throws {
    heading("7. Verifying a whole container: every problem in one report")
    say(
        "`try container.verify()` checks every registration: autoregistered services from their initializers' "
            + "parameters, closure registrations by building them in a throwaway copy of the container."
    )

    scenario("A container with one problem of each kind:")
    let counter = CallCounter()
    let broken = BrokenShop.container(counter: counter)
    do {
        try broken.verify()
        say("Unexpected: verification passed.")
    } catch let report as VerificationReport {
        // Verbatim: the report's own indentation lines up its blocks.
        for line in report.description.split(separator: "\n", omittingEmptySubsequences: false) {
            print("    | " + line)
        }
    }
    say("factories run so far (by verification, in its throwaway copy): \(counter.summary)")
    _ = broken.resolve(BrokenShop.Database.self)
    say(
        "after resolving Database from the real container: \(counter.summary). The factory ran again, "
            + "because verification kept no instance in the real container."
    )

    scenario("The shop app's container (`swift run weft-demo graph` prints its graph):")
    let shop = Shop.container()
    let report = Container.withShared(shop) { shop.verificationReport() }
    say(report.description)
    let graph = report.graph
    let kinds = DependencyGraph.Edge.Kind.allCases.map { kind in
        "\(graph.edges.filter { $0.kind == kind }.count) \(kind.rawValue)"
    }
    say("\(graph.nodes.count) nodes; edges: \(kinds.joined(separator: ", ")).")
}

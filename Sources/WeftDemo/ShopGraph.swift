// The container of a small shop app, whose dependency graph `weft-demo graph` prints and the DocC article
// "Verifying your container" shows. It has every kind of registration and edge: autoregistered and
// closure registrations, all four built-in scopes and a custom one, initializer, initCompleted and property
// edges, Lazy and Provider dependencies and an optional one that is not registered.

import Weft

/// The services of the shop app.
enum Shop {
    final class Logger {}

    final class HTTPClient {
        init(logger: Logger) {}
    }

    final class APIClient {
        init(http: HTTPClient, logger: Logger) {}
    }

    final class Database {
        init(path: String, logger: Logger) {}
    }

    /// The signed-in user's session; a new one after each sign-in (the custom `.session` scope).
    final class UserSession {
        init(api: APIClient) {}
    }

    final class Analytics {}

    final class CartStore {
        init(database: Database) {}
    }

    final class OrderHistory {
        init(database: Lazy<Database>) {}
    }

    final class CheckoutViewModel {
        init(cart: CartStore, session: Provider<UserSession>, analytics: Analytics?) {}
    }

    /// Gets its logger through a property wrapper, from `Container.shared`.
    final class ProfileViewModel {
        @Injected var logger: Logger
        let session: UserSession

        init(session: UserSession) {
            self.session = session
        }
    }

    final class AppCoordinator {
        var history: OrderHistory?
        init(api: APIClient) {}
    }

    /// The scope of the signed-in user's services: reset at sign-out.
    static let session = ObjectScope(storageFactory: PermanentStorage.init, description: "session")

    /// The shop's container. Its property wrappers resolve from `Container.shared`, so resolve with this
    /// container as `Container.shared` (``graph(of:)`` does).
    static func container() -> Container {
        let container = Container()
        container.autoregister(Logger.self, initializer: Logger.init).inObjectScope(.container)
        container.autoregister(HTTPClient.self, initializer: HTTPClient.init).inObjectScope(.container)
        container.autoregister(APIClient.self, initializer: APIClient.init).inObjectScope(.container)
        container.register(Database.self) { r in Database(path: "shop.sqlite", logger: try r.require()) }
            .inObjectScope(.container)
        container.autoregister(UserSession.self, initializer: UserSession.init).inObjectScope(session)
        container.autoregister(CartStore.self, initializer: CartStore.init).inObjectScope(.weak)
        container.autoregister(OrderHistory.self, initializer: OrderHistory.init)
        container.autoregister(CheckoutViewModel.self, initializer: CheckoutViewModel.init)
            .inObjectScope(.transient)
        container.register(ProfileViewModel.self) { r in ProfileViewModel(session: try r.require()) }
            .inObjectScope(.transient)
        container.register(AppCoordinator.self) { r in AppCoordinator(api: try r.require()) }
            .inObjectScope(.container)
            .initCompleted { r, app in app.history = try r.require(OrderHistory.self) }
        return container
    }

    /// The dependency graph of `container`, found with it as `Container.shared` so that the property
    /// wrappers of what it makes resolve from it too.
    static func graph(of container: Container) -> DependencyGraph {
        Container.withShared(container) { container.dependencyGraph() }
    }
}

/// `weft-demo graph [--dot | --mermaid]`: prints the shop's dependency graph as Graphviz DOT, as Mermaid,
/// or (without an option) both, each introduced by a comment line.
func runGraphCommand(_ options: [String]) {
    let graph = Shop.graph(of: Shop.container())
    switch options.first {
    case "--dot":
        print(graph.dot, terminator: "")
    case "--mermaid":
        print(graph.mermaid, terminator: "")
    case nil:
        print("// The shop demo's dependency graph in Graphviz DOT (render: weft-demo graph --dot | dot -Tpng)")
        print(graph.dot)
        print("%% The same graph in Mermaid (weft-demo graph --mermaid)")
        print(graph.mermaid, terminator: "")
    case let option?:
        print("weft-demo graph: unknown option \(option). Use --dot, --mermaid, or nothing for both.")
    }
}

@testable import Weft

// The services of the async resolution tests: a shop whose checkout needs a catalog and a storage, two services
// that need each other (for cycles), an actor, a main-actor model and the error their factories throw.

protocol Storage: AnyObject, Sendable {}
protocol Catalog: AnyObject, Sendable {
    var storage: any Storage { get }
}
protocol Checkout: AnyObject, Sendable {
    var catalog: any Catalog { get }
    var storage: any Storage { get }
}

final class DiskStorage: Storage {}
final class RemoteCatalog: Catalog {
    let storage: any Storage
    init(storage: any Storage) { self.storage = storage }
}
final class ShopCheckout: Checkout {
    let catalog: any Catalog
    let storage: any Storage
    init(catalog: any Catalog, storage: any Storage) {
        self.catalog = catalog
        self.storage = storage
    }
}

/// An async service that needs another one, for cycles.
final class Ping: Sendable {
    let pong: Pong
    init(pong: Pong) { self.pong = pong }
}
final class Pong: Sendable {
    let ping: Ping?
    init(ping: Ping?) { self.ping = ping }
}

actor Ledger {
    private(set) var entries: [String] = []
    func add(_ entry: String) { entries.append(entry) }
}

@MainActor final class BannerModel {
    let text: String
    init(text: String) { self.text = text }
}

struct Failure: Error, Equatable {
    let code: Int
}

/// Collects what a container logs, in place of the process-wide logging function.
final class LogSpy: DebugHelper, @unchecked Sendable {
    let messages = Collected<String>()

    func resolutionFailed<Service>(
        serviceType _: Service.Type,
        key _: ServiceKey,
        availableRegistrations _: [ServiceKey: any ServiceEntryProtocol]
    ) {}

    func log(_ error: ResolutionError) { messages.append(error.description) }
}

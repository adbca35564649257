import Foundation
import Weft

/// The instance every generated service makes.
final class VerifyNode: Sendable {
    let service: Int

    init(service: Int) {
        self.service = service
    }
}

/// One dependency a factory or callback asked for, in the graph's terms.
struct RecordedEdge: Hashable, Sendable, CustomStringConvertible {
    var from: Int
    var to: Int
    var kind: DependencyGraph.Edge.Kind
    var access: DependencyGraph.Edge.Access

    var description: String { "S\(from) -\(kind.rawValue)/\(access.rawValue)-> S\(to)" }
}

/// What the factories and callbacks of one container asked for.
final class DependencyLog: @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: Set<RecordedEdge> = []

    var edges: Set<RecordedEdge> { lock.withLock { recorded } }

    func record(_ edge: RecordedEdge) {
        _ = lock.withLock { recorded.insert(edge) }
    }
}

extension VerifyCase {
    /// A container (the child, when the case uses one) with every registered service, whose factories and
    /// callbacks record what they ask for in `log`.
    func makeContainer(log: DependencyLog) -> Container {
        let parent = Container()
        let child = usesChild ? Container(parent: parent) : parent
        for (index, service) in services.enumerated() where service.isRegistered {
            register(index, in: service.inParent ? parent : child, log: log)
        }
        return child
    }

    private func register(_ index: Int, in container: Container, log: DependencyLog) {
        let service = services[index]
        let factoryDeps = service.dependencies.filter { !$0.inCallback }
        let callbackDeps = service.dependencies.filter(\.inCallback)
        let name = Self.name(index)
        let entry: ServiceEntry<VerifyNode>
        switch (service.isAsync, service.takesArgument) {
        case (false, false):
            entry = container.register(VerifyNode.self, name: name) { r in
                try self.askAll(factoryDeps, from: index, in: r, log: log)
            }
        case (false, true):
            entry = container.register(VerifyNode.self, name: name) { (r: any Resolver, _: Int) in
                try self.askAll(factoryDeps, from: index, in: r, log: log)
            }
        case (true, false):
            entry = container.register(VerifyNode.self, name: name) { (r: AsyncResolver) async throws in
                try await self.askAll(factoryDeps, from: index, in: r, log: log)
            }
        case (true, true):
            entry = container.register(VerifyNode.self, name: name) { (r: AsyncResolver, _: Int) async throws in
                try await self.askAll(factoryDeps, from: index, in: r, log: log)
            }
        }
        entry.inObjectScope(service.scope.objectScope)
        if !callbackDeps.isEmpty {
            entry.initCompleted { r, _ in
                for dep in callbackDeps { try self.ask(dep, from: index, in: r, log: log) }
            }
        }
    }

    private func askAll(_ deps: [VerifyDependency], from index: Int, in r: any Resolver, log: DependencyLog) throws
        -> VerifyNode
    {
        for dep in deps { try ask(dep, from: index, in: r, log: log) }
        return VerifyNode(service: index)
    }

    private func askAll(_ deps: [VerifyDependency], from index: Int, in r: AsyncResolver, log: DependencyLog)
        async throws -> VerifyNode
    {
        for dep in deps {
            log.record(edge(dep, from: index))
            let name = Self.name(dep.target)
            let argument = services[dep.target].takesArgument
            switch dep.access {
            case .direct where argument: _ = try await r.require(VerifyNode.self, name: name, arguments: 7)
            case .direct: _ = try await r.require(VerifyNode.self, name: name)
            case .optional where argument: _ = await r.resolve(VerifyNode.self, name: name, arguments: 7)
            case .optional: _ = await r.resolve(VerifyNode.self, name: name)
            case .lazy: _ = try await r.require(Lazy<VerifyNode>.self, name: name)
            case .provider: _ = try await r.require(Provider<VerifyNode>.self, name: name)
            }
        }
        return VerifyNode(service: index)
    }

    private func ask(_ dep: VerifyDependency, from index: Int, in r: any Resolver, log: DependencyLog) throws {
        log.record(edge(dep, from: index))
        let name = Self.name(dep.target)
        let argument = services[dep.target].takesArgument
        switch dep.access {
        case .direct where argument: _ = try r.require(VerifyNode.self, name: name, argument: 7)
        case .direct: _ = try r.require(VerifyNode.self, name: name)
        case .optional where argument: _ = r.resolve(VerifyNode.self, name: name, argument: 7)
        case .optional: _ = r.resolve(VerifyNode.self, name: name)
        case .lazy: _ = try r.require(Lazy<VerifyNode>.self, name: name)
        case .provider: _ = try r.require(Provider<VerifyNode>.self, name: name)
        }
    }

    private func edge(_ dep: VerifyDependency, from index: Int) -> RecordedEdge {
        RecordedEdge(
            from: index, to: dep.target, kind: dep.inCallback ? .initCompleted : .initializer, access: dep.access)
    }
}

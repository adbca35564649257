/// One decorator of `Service`, as ``Container/decorate(_:name:decorator:)`` received it (or its `async` and
/// `@MainActor` forms). A container keeps its decorators in its ``CompositionTable``, by the key of the service they
/// decorate, and they wrap a registration's factory when it is published: a registration made after them as it is
/// added (see ``CompositionTable/decorate(_:key:)``), one made before by a decorated copy published in its place
/// (see `DecoratedCopies.swift`), a forwarded type by a decorated forward (see `Container+ForwardDecoration.swift`).
final class Decorator<Service>: @unchecked Sendable {
    /// The synchronous closure; for an async decorator, one that throws ``ResolutionError/Reason/requiresAsync``.
    let decorate: (any Resolver, Service) throws -> Service
    /// The closure of an `async` decorator; nil for a synchronous one.
    let decorateAsync: AsyncDecoration<Service>?
    /// Whether `decorate` runs only on the main actor (a `@MainActor` decorator): an async resolve then runs it
    /// there, as it runs a `@MainActor` factory.
    let onMainActor: Bool

    init(_ decorate: @escaping (any Resolver, Service) throws -> Service, onMainActor: Bool = false) {
        self.decorate = { resolver, instance in
            do {
                return try decorate(resolver, instance)
            } catch {
                throw DecoratorFailure.wrapping(error)
            }
        }
        decorateAsync = nil
        self.onMainActor = onMainActor
    }

    init(async decorate: @escaping AsyncDecoration<Service>) {
        self.decorate = { _, _ in throw asyncFactoryResolvedSynchronously() }
        decorateAsync = { resolver, instance in
            do {
                return try await decorate(resolver, instance)
            } catch {
                throw DecoratorFailure.wrapping(error)
            }
        }
        onMainActor = false
    }
}

/// What a decorator's closure threw. Decorators are folded into the factory closure they wrap, so the engine, where
/// that closure throws, cannot otherwise tell their failures from the factory's: it unwraps this into a
/// ``ResolutionError`` with ``ResolutionError/thrownByDecorator`` set (see ``ResolutionError/factoryFailed(_:key:path:)``),
/// and no caller ever sees it.
struct DecoratorFailure: Error {
    /// What the decorator threw.
    let error: any Error

    /// `error` as it leaves a decorator: the engine's own errors as they are (a ``ResolutionError`` of what the
    /// decorator resolved, ``BuildInProgress``), anything else wrapped.
    static func wrapping(_ error: any Error) -> any Error {
        if error is ResolutionError || error is BuildInProgress || error is DecoratorFailure { return error }
        return DecoratorFailure(error: error)
    }
}

extension ServiceEntry {
    /// Wraps the factory of this registration, not yet published, in `decorators`: the first one declared
    /// receives what the factory made, each later one what the one before returned. The decorated instance is
    /// what the factory returns, so it is what the scope keeps and what `initCompleted` callbacks receive.
    ///
    /// A registration whose factory takes runtime arguments gets that factory wrapped (see
    /// ``DecoratableFactory``); an `async` registration gets its async factory wrapped too, the decorators
    /// running after it. Decorators of which one is `async` are applied by ``wrapFactory(_:inAsync:)``.
    func wrapFactory(in decorators: [Decorator<Service>]) {
        guard !decorators.isEmpty else { return }
        guard isPlain else {
            wrapFactoryWithArguments(in: decorators)
            return
        }
        let inner = decoratedFactory ?? plainFactory
        if decorators.contains(where: { $0.decorateAsync != nil }) {
            wrapFactory(inner, inAsync: decorators)
            return
        }
        // An async resolve runs the whole synchronous build on the main actor, as for a `@MainActor` factory.
        if decorators.contains(where: \.onMainActor) { runsOnMainActor = true }
        decoratedFactory = { resolver in
            var instance = try inner(resolver)
            for decorator in decorators {
                instance = try decorator.decorate(resolver, instance)
            }
            return instance
        }
        if let typed = asyncFactory as? TypedAsyncFactory<Service> {
            asyncFactory = TypedAsyncFactory { resolver in
                var instance = try await typed.typed(resolver)
                for decorator in decorators {
                    instance = try await decorator.decorate(from: resolver, instance)
                }
                return instance
            }
        }
        decoratorCount += decorators.count
    }

    /// The factory of a registration with runtime arguments (and its async one), wrapped in `decorators`.
    private func wrapFactoryWithArguments(in decorators: [Decorator<Service>]) {
        guard let box = erasedFactory?.value as? any DecoratableFactory else { return }
        if decorators.contains(where: { $0.decorateAsync != nil }) {
            wrapFactoryWithArguments(box, inAsync: decorators)
            return
        }
        if decorators.contains(where: \.onMainActor) { runsOnMainActor = true }
        erasedFactory = ErasedFactory(box.decorated(by: decorators))
        if let inner = asyncFactory {
            asyncFactory = AsyncFactory { resolver, arguments in
                guard let made = try await inner.make(resolver, arguments) else { return nil }
                guard var instance = made.value as? Service else { return made }
                for decorator in decorators {
                    instance = try await decorator.decorate(from: resolver, instance)
                }
                return Made(value: instance)
            }
        }
        decoratorCount += decorators.count
    }

    /// A copy of this registration (factory, scope, callbacks) with its factory wrapped in `decorators`, for its
    /// container or a child to publish in its place; nil when it cannot be decorated.
    func decoratedCopy(with decorators: [Decorator<Service>]) -> ServiceEntry<Service>? {
        guard isDecoratable else { return nil }
        let copy = copy()
        copy.decoratorCount = decoratorCount
        copy.isCollection = isCollection
        copy.isDecoratedForward = isDecoratedForward
        copy.wrapFactory(in: decorators)
        return copy
    }
}

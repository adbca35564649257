extension Container {
    /// Wraps every instance of `serviceType` (under `name`) that this container makes in what `decorator`
    /// returns, without touching the service's registration.
    ///
    /// ```swift
    /// container.register(Repository.self) { _ in SQLRepository() }.inObjectScope(.container)
    /// container.decorate(Repository.self) { r, inner in
    ///     LoggingRepository(inner, log: try r.require(Log.self))
    /// }
    /// let repository = try container.require(Repository.self)   // a LoggingRepository around the SQLRepository
    /// ```
    ///
    /// The rules:
    ///
    /// - **Every resolution, in declaration order.** Decorators of one service apply one around the other: the
    ///   first declared receives what the factory made, the next what the first returned.
    /// - **The scope keeps the decorated instance.** A decorator runs when the factory runs: a `.container`
    ///   singleton is decorated once and the decorated instance is kept and handed out; a `.transient` service is
    ///   decorated on every resolve. `initCompleted` callbacks receive the decorated instance.
    /// - **Dependencies.** The decorator resolves what it needs through `r`, in the same object graph as the
    ///   service; `verify()` reports what it needs and is missing, and the dependency graph draws its
    ///   dependencies as the service's. Needing the decorated service itself is not a cycle: that is `inner`.
    ///   (Resolving `serviceType` again from inside the decorator is the cycle it would be anywhere.)
    /// - **It belongs to the container, by type and name.** A decorator applies to the registration of
    ///   `serviceType` under `name` in this container whether it is made before the decorator or after it, and
    ///   keeps applying when the registration is replaced (and after ``removeAll()``, which removes registrations,
    ///   not decorators). Declared after the registration, it publishes a decorated copy of it (same factory,
    ///   scope and callbacks) that follows the `ServiceEntry` `register` returned: a scope or an `initCompleted`
    ///   callback set on it after the decorator applies as one set before.
    /// - **The decorated instance is the service's instance, whatever type asks for it.** A type the registration
    ///   is forwarded as (`implements`, `forward`), before or after the decorator, resolves the instance the
    ///   service's own resolves get, in every scope: a `.container` service has one instance, the decorated one,
    ///   for both types, and `initCompleted` callbacks run once on it. A decorated instance that is not of the
    ///   forwarded type fails that type's resolves with ``ResolutionError/Reason/typeMismatch``.
    /// - **In a child container**, decorating a service that only a parent registers gives the child a
    ///   decorated copy of the parent's registration, with its own instances (a parent's `.container` singleton
    ///   and the child's decorated one are different instances); the parent's resolves are not decorated. The
    ///   parent's own decorators come first. As within one container, the child's decorator applies to the
    ///   parent's registration whenever it is made: before the decorator, after it, or replaced after it. The
    ///   types the parent forwards to that registration resolve the child's decorated instance in the child
    ///   (wrapped in the parent's decorators of the forwarded type, when it has some), and so does a type the child
    ///   forwards to the parent's registration itself.
    /// - **Forwarded types.** Decorating `Animal`, which resolves through `register(Cat.self).implements(Animal.self)`
    ///   (or `forward`), decorates resolves of `Animal` only: resolving `Cat` gives the undecorated instance.
    ///   The two still share `Cat`'s instance, and the decorated `Animal` lives in `Cat`'s scope (and follows it
    ///   when it changes): a `.container` `Cat` gives one decorated `Animal`, kept, around the one `Cat`.
    /// - **Runtime arguments.** A registration of `serviceType` under `name` whose factory takes runtime arguments
    ///   is decorated too (`register(Service.self) { r, id: String in ... }`, resolved with
    ///   `require(Service.self, argument: id)`): the decorator receives the instance the factory made from the
    ///   arguments. A decorator that needs the arguments themselves is not offered: register a factory that
    ///   takes them instead. A forwarded type whose registration takes runtime arguments is decorated the same way
    ///   (`decorate(Animal.self)` wraps `require(Animal.self, argument: name)` through
    ///   `register(Cat.self) { r, name: String in ... }.implements(Animal.self)`).
    ///   An `async` registration is decorated after its async factory returns, the decorator resolving its
    ///   dependencies synchronously.
    /// - **Async decorators.** A decorator that awaits is declared with the overload taking an
    ///   ``AsyncResolver`` (see `decorate(_:name:decorator:)` with an async closure).
    ///
    /// - Parameters:
    ///   - serviceType: The service to decorate, as it is registered.
    ///   - name: The registration name of the service to decorate.
    ///   - decorator: Receives a resolver and the instance the factory (or the previous decorator) made, and
    ///     returns the instance to use instead; it may throw, and the resolve then fails as if the factory had.
    public func decorate<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        decorator: @escaping (any Resolver, Service) throws -> Service
    ) {
        add(Decorator(decorator), of: serviceType, name: name)
    }

    /// Adds `added`, a decorator of `serviceType` under `name`, after the container's others of that service.
    func add<Service>(_ added: Decorator<Service>, of serviceType: Service.Type, name: String?) {
        let key = ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: name)
        let watcher: ContainerReference? = lock.withLock {
            let table = compositions ?? CompositionTable()
            compositions = table
            table.addDecorator(added, for: key)
            guard parent != nil else { return nil }
            return table.decoratesInherited(
                serviceType, for: key, reference: referenceLocked(in: registrationRecordLocked()))
        }
        // An ancestor's registration made from now on is decorated here too (see `InheritedDecoration.swift`).
        if let watcher { watchAncestors(watcher) }
        // The registrations made from now on are decorated as they are added; one made before is replaced by a
        // decorated copy, outside the lock (adding it takes the lock and tells the behaviors).
        decorateWithArguments(serviceType, name: name)
        decorateRegistration(serviceType, key: key, decoratorKey: key)
    }

    /// Applies this container's decorators of `decoratorKey` to what it resolves under `key`: its own registration
    /// is replaced by a decorated copy, a forwarded type by a decorated forward (see
    /// `Container+ForwardDecoration.swift`), an ancestor's registration by a decorated copy of its own (see
    /// `InheritedDecoration.swift`). Read again when another thread changes what `key` holds meanwhile.
    func decorateRegistration<Service>(_ serviceType: Service.Type, key: ServiceKey, decoratorKey: ServiceKey) {
        while true {
            // Read together: a decorated copy of an ancestor's registration is published with its source.
            let (slots, inherited) = lock.withLock {
                (forwardSlotsLocked(of: key), compositions?.inheritedSource(of: key) != nil)
            }
            guard let own = slots.own, !inherited else {
                decorateInherited(serviceType, key: key)
                return
            }
            guard own.serviceType != serviceType || own.isDecoratedForward else {
                decorateOwn(serviceType, key: key, decoratorKey: decoratorKey)
                return
            }
            // A forwarded type: resolved through a decorated forward, made anew with every decorator.
            guard let target = own.isDecoratedForward ? slots.target : own else { return }
            if addDecoratedForward(serviceType, key: key, to: target, inPlaceOf: slots) { return }
        }
    }

    /// Replaces the registrations of `serviceType` under `name` that take runtime arguments, made before the
    /// decorator just added, with decorated copies: this container's own (wrapped in the decorators they lack, see
    /// ``decorateOwn(_:key:decoratorKey:)``) and those of its ancestors it does not shadow (wrapped in all this
    /// container's decorators of the service).
    private func decorateWithArguments<Service>(_ serviceType: Service.Type, name: String?) {
        let matches: (ServiceKey) -> Bool = { key in
            key.serviceType == serviceType && key.name == name && key.argumentsType != noArguments && !key.hasOption
        }
        let own = ownRegistrations(where: matches)
        let decoratorKey = ServiceKey(serviceType: serviceType, argumentsType: noArguments, name: name)
        for (key, _) in own {
            decorateRegistration(serviceType, key: key, decoratorKey: decoratorKey)
        }
        guard let parent else { return }
        for (key, _) in parent.allRegistrations() where matches(key) && !own.contains(where: { $0.key == key }) {
            decorateInherited(serviceType, key: key)
        }
    }

    /// Wraps every instance of the type the decorator returns that this container makes; the same as
    /// ``decorate(_:name:decorator:)-(_,_,(Resolver,Service)->Service)`` with the type inferred.
    ///
    /// ```swift
    /// container.decorate { (r, inner: any Repository) in LoggingRepository(inner) }
    /// ```
    public func decorate<Service>(
        name: String? = nil,
        decorator: @escaping (any Resolver, Service) throws -> Service
    ) {
        decorate(Service.self, name: name, decorator: decorator)
    }
}

/// The resolution engine's entry points: looking up a registration (through the thread's cache) and making
/// it, typed and without arguments on the hot path, or with arguments, wrappers and casts. The graph's life
/// is in `Container+GraphLifecycle.swift`, one instance's making in `Container+Building.swift`, cycles,
/// errors and deferred callbacks in `Container+BuildSteps.swift`.
extension Container {
    /// Makes `serviceType` for a factory without runtime arguments: the hot path. A registration made for
    /// exactly this type is called and its instances kept and read back typed, without a dynamic cast.
    @inline(__always)
    func makeWithoutArguments<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        // Without a name, in code of its own, where the key's name is known to be nil: copying and comparing it
        // costs nothing.
        guard let name else {
            return try ResolutionState.withCurrent { state in
                try make(ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType), state: state)
            }
        }
        return try makeNamed(serviceType, name: name)
    }

    /// ``makeWithoutArguments(_:name:)`` with a name.
    @inline(never)
    func makeNamed<Service>(_ serviceType: Service.Type, name: String) throws -> Service {
        try ResolutionState.withCurrent { state in
            try make(ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType, name: name), state: state)
        }
    }

    @inline(__always)
    func make<Service>(_ key: ServiceKey, state: ResolutionState) throws -> Service {
        // Inside a running factory of this thread, whose resolve entered the engine and leaves it. Read once: the
        // lookup between here and `canMakeNested` runs no factory.
        let inFactory = state.fields.pointee.factoriesRunning > 0
        let entered = !inFactory && state.enterEngine()
        defer { state.leaveEngine(entered) }
        guard let found = state.lookups.find(key, in: self) else {
            return try make(Service.self, name: key.name, option: nil)
        }
        return try make(found, key: key, state: state, inFactory: inFactory)
    }

    /// Makes the registration `found` for `key` (no runtime arguments) as `Service`.
    @inline(__always)
    func make<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        try make(found, key: key, state: state, inFactory: state.fields.pointee.factoriesRunning > 0)
    }

    /// ``make(_:key:state:)`` where the caller knows whether a factory of this thread is running (`inFactory`).
    @inline(__always)
    func make<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState, inFactory: Bool) throws -> Service {
        if found.exactShared {
            // A built singleton is returned without entering a graph, so its use is noted here; when it is not
            // built yet, `make(_:key:state:as:produce:)` notes it, as for every other path.
            return try found.entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).completeSharedInstance(
                    for: state,
                    found: { try noteUse(of: found.entry, state: state) },
                    orElse: { try makeOutOfLine(found, key: key, state: state) }
                )
            }
        }
        if found.exact, canMakeNested(found, as: Service.self, state: state, inFactory: inFactory) {
            return try makeNested(found, key: key, state: state)
        }
        return try makeOutOfLine(found, key: key, state: state)
    }

    /// Makes `serviceType` for a factory without runtime arguments, as ``makeWithoutArguments(_:name:)`` does, in
    /// code inlined into the caller's module: there `Service` is known, and a built `.container` instance is read
    /// specialised for it (unspecialised, copying it out of its typed slot goes through the type's value
    /// witnesses). Everything else (a miss, a build, a graph, an error) is called out of line, in this module.
    @inlinable @inline(__always)
    func makeSpecialised<Service>(_ serviceType: Service.Type, name: String?) throws -> Service {
        try ResolutionState.withCurrent { state in
            let entered = state.enterEngine()
            defer { state.leaveEngine(entered) }
            let key = ServiceKey(serviceType: Service.self, argumentsType: noArgumentsType, name: name)
            guard let found = state.lookups.find(key, in: self) else {
                return try make(Service.self, name: name, option: nil)
            }
            guard found.exactShared else {
                // A scope's instance, read or made in its slot.
                if found.policy == .perScope { return try makeScopedTopLevel(found, key: key, state: state) }
                guard found.exact, state.fields.pointee.depth == 0 else {
                    return try makeOutOfLine(found, key: key, state: state)
                }
                // A top-level resolve: the factory writes straight into `instance`, a local of the known type.
                let instance: Service = try makeTopLevel(found, key: key, state: state)
                if state.fields.pointee.depth != 0 {
                    try completeTopLevel(instance, found: found, key: key, state: state)
                }
                return instance
            }
            // As in `make(_:key:state:)`.
            return try found.entry._withUnsafeGuaranteedRef {
                try unsafeDowncast($0, to: ServiceEntry<Service>.self).completeSharedInstance(
                    for: state,
                    found: { try noteUse(of: found.entry, state: state) },
                    orElse: { try makeOutOfLine(found, key: key, state: state) }
                )
            }
        }
    }

    /// ``makeWithoutArguments(_:key:state:)`` in a call of its own, so that the path of a built singleton
    /// and of a nested resolve (see ``makeNested(_:key:state:)``) stays small.
    @usableFromInline @inline(never)
    func makeOutOfLine<Service>(_ found: Lookup, key: ServiceKey, state: ResolutionState) throws -> Service {
        if found.exact,
            canMakeNested(found, as: Service.self, state: state, inFactory: state.fields.pointee.factoriesRunning > 0)
        {
            return try makeNested(found, key: key, state: state)
        }
        return try makeWithoutArguments(found, key: key, state: state)
    }

    /// Makes the registration `found` for `key` (no runtime arguments) as `Service`, in a graph.
    @inline(__always)
    func makeWithoutArguments<Service>(
        _ found: Lookup,
        key: ServiceKey,
        state: ResolutionState
    ) throws -> Service {
        let outer = begin(state, graph: nil)
        do {
            // Each branch returns its own result (one local assigned in both would cost a move).
            if found.exact {
                let instance = try make(found, key: key, state: state, as: Service.self) {
                    // An exact lookup: the registration is a ServiceEntry<Service> with a plain factory.
                    try found.entry._withUnsafeGuaranteedRef {
                        try unsafeDowncast($0, to: ServiceEntry<Service>.self).plainFactory(self)
                    }
                }
                finish(state, restoring: outer, failed: false)
                return instance
            }
            let made = try make(found, key: key, state: state, as: Any.self) {
                try invoke(found.entry.object, key: key, state: state)
            }
            let instance: Service = try cast(made, key: key, state: state)
            finish(state, restoring: outer, failed: false)
            return instance
        } catch {
            finish(state, restoring: outer, failed: true)
            throw error
        }
    }

    /// Makes `serviceType` for the given name and arguments, within the current thread's graph.
    @usableFromInline
    func make<Service, each Argument>(
        _ serviceType: Service.Type,
        name: String?,
        option: (any ServiceKeyOption)?,
        arguments: repeat each Argument
    ) throws -> Service {
        let key = ServiceKey(
            serviceType: Service.self,
            argumentsType: (any Resolver, repeat each Argument).self,
            name: name,
            option: option
        )
        let state = ResolutionState.current
        let entered = state.enterEngine()
        defer { state.leaveEngine(entered) }
        if option == nil, key.argumentsType == noArgumentsType, let found = state.lookups.find(key, in: self) {
            // `require(_:name:)` comes through here with an empty pack: take the typed path.
            return try make(found, key: key, state: state)
        }
        if Service.self == GraphIdentifier.self, name == nil, option == nil, state.lookups.find(key, in: self) == nil {
            guard state.depth > 0, let graph = state.graph as? Service else { throw missing(key, state: state) }
            graphEscapes(state)
            return graph
        }
        return try resolving(graph: nil) { state in
            if let found = state.lookups.find(key, in: self) {
                let instance = try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state, repeat each arguments)
                }
                return try cast(instance, key: key, state: state)
            }
            if let wrapper = Service.self as? any InstanceWrapper.Type {
                let wrappedKey = ServiceKey(
                    serviceType: wrapper.wrappedType,
                    argumentsType: key.argumentsType,
                    name: name,
                    option: option
                )
                if let made = try makeWrapper(
                    wrapper,
                    key: wrappedKey,
                    state: state,
                    arguments: repeat each arguments
                ) as? Service {
                    return made
                }
                // The wrapper is never registered: what is missing is the service it wraps.
                throw missing(wrappedKey, requestedAs: key, state: state)
            }
            guard key.argumentsType != noArgumentsType, option == nil else { throw missing(key, state: state) }
            // Arguments Swift may have passed as their concrete types (see `OpenedArguments.swift`).
            var values: [Any] = []
            for value in repeat each arguments { values.append(value) }
            let made = try makeWithDeclaredArguments(Service.self, key: key, values: values, state: state)
            return try cast(made, key: key, state: state)
        }
    }

    /// Calls the factory of `entry` with `arguments`.
    func invoke<each Argument>(
        _ entry: _ServiceEntryBase,
        key: ServiceKey,
        state: ResolutionState,
        _ arguments: repeat each Argument
    ) throws -> Any {
        if key.argumentsType == noArguments, let made = try entry.makeErased(self) {
            return made
        }
        if let factory = entry.argumentFactory, factory.argumentsType == key.argumentsType {
            // The key's arguments type, made from these arguments' types, is the factory's: the tuple is its own.
            return try withUnsafePointer(to: (repeat each arguments)) { try factory.makeAt(self, UnsafeRawPointer($0)) }
        }
        if let factory = entry.factory as? any ErasedTupleFactory,
            let made = factory.make(erased: (self as any Resolver, repeat each arguments))
        {
            return made
        }
        throw ResolutionError(reason: .typeMismatch, key: key, path: state.path)
    }

    /// Casts what a factory made to the requested type.
    func cast<Service>(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Service {
        // Checked, then cast: `as?` would ask the runtime for `Optional<Service>`'s metadata on every call in
        // unspecialised code, which costs more than a second cast.
        guard instance is Service else {
            throw ResolutionError(
                reason: .typeMismatch,
                key: key,
                path: state.path + [key.pathComponent],
                madeType: String(describing: type(of: instance))
            )
        }
        return instance as! Service
    }

    /// Makes a `Lazy`, `Provider` or `Optional` around the registration for `key`.
    func makeWrapper<each Argument>(
        _ wrapper: any InstanceWrapper.Type,
        key: ServiceKey,
        state: ResolutionState,
        arguments: repeat each Argument
    ) throws -> Any? {
        state.fields.pointee.graphRecorder?.resolvingWrapper(wrapper, key: key, in: self, state: state)
        guard state.lookups.find(key, in: self) != nil else {
            return try wrapper.init(container: self, graph: state.graph, key: key, factory: nil)
        }
        if wrapper.capturesGraph { graphEscapes(state) }
        let factory: (GraphIdentifier?) throws -> Any = { [self] graph in
            try resolving(graph: graph) { state in
                guard let found = state.lookups.find(key, in: self) else { throw missing(key, state: state) }
                let outer = state.fields.pointee.wrapperRequest
                state.fields.pointee.wrapperRequest = (state.frames.count, wrapper)
                defer { state.fields.pointee.wrapperRequest = outer }
                return try make(found, key: key, state: state, as: Any.self) {
                    try invoke(found.entry.object, key: key, state: state, repeat each arguments)
                }
            }
        }
        return try wrapper.init(container: self, graph: state.graph, key: key, factory: factory)
    }

    /// The error for a missing registration, with what exists instead.
    func missing(_ key: ServiceKey, state: ResolutionState, takingArguments: [String] = []) -> ResolutionError {
        state.fields.pointee.graphRecorder?.missing(key, in: self, state: state)
        return ResolutionError(
            reason: .missingRegistration,
            key: key,
            path: state.path + [key.pathComponent],
            suggestions: suggestions(for: key),
            takingArguments: takingArguments
        )
    }

    /// The error for a `Lazy` or `Provider` (`request`) around a missing registration, `key`: it names the wrapped
    /// service as missing and the wrapper as what was asked for, with what exists instead of the wrapped service.
    func missing(_ key: ServiceKey, requestedAs request: ServiceKey, state: ResolutionState) -> ResolutionError {
        // The recorder took the missing service when the wrapper was asked for; this only ends that request.
        state.fields.pointee.graphRecorder?.missing(request, in: self, state: state)
        return ResolutionError(
            reason: .missingRegistration,
            key: key,
            path: state.path + [request.pathComponent, key.pathComponent],
            suggestions: suggestions(for: key),
            // The wrapper's type alone: its name and arguments are the wrapped service's, which the message gives.
            requestedAs: String(describing: request.serviceType)
        )
    }
}

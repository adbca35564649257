import WeftAtomics

/// Runtime arguments that Swift passed as their concrete types.
///
/// Swift opens an existential passed to a generic parameter (SE-0352, in the Swift 6 language mode): with
/// `let pet: any Animal = Cat()`, `container.resolve(Owner.self, argument: pet)` hands Weft a `Cat`, so the request's
/// key says `(Cat)` while the registration declared `(any Animal)`, and an exact lookup misses it. When it does,
/// the request goes to the registration of the same service and name whose declared argument types take the
/// arguments it was given (each argument casts to its parameter's type: a protocol it conforms to, a superclass,
/// an optional), if exactly one does, in the nearest container that has one; the arguments are cast to those types
/// and the request is made again with the registration's own key, so scopes, cycles and errors are the
/// registration's. A registration of the exact types always wins, and two that both fit leave the request missing
/// (its error lists them), rather than a guess. ``ArgumentFactory`` casts the arguments and makes the request.
/// A request for `Type` under `name`, made with the arguments a factory's registration declared.
struct ServiceRequest<Type>: ForwardedRequest {
    let name: String?

    func make<each Argument>(in container: Container, arguments: repeat each Argument) throws -> Any {
        try container.make(Type.self, name: name, option: nil, arguments: repeat each arguments)
    }
}

extension Container {
    /// The registrations of `key`'s service and name whose declared argument types take `values`, with those
    /// arguments cast to them, in the nearest container that has any: the request goes to one, and several are
    /// named in its error. The key of the one found is remembered until a registry changes: Swift passes a value
    /// held as a protocol type as its concrete type on every call.
    func declaredArguments(for key: ServiceKey, values: [Any]) -> [DeclaredArguments] {
        guard !values.isEmpty, !key.hasOption else { return [] }
        let version = weft_registry_version()
        if let known = lock.withLock({ registrationRecordLocked().knownDeclaredKey(for: key, version: version) }),
            let factory = entry(for: known)?.argumentFactory, let arguments = factory.casting(values)
        {
            return [DeclaredArguments(key: known, factory: factory, arguments: arguments)]
        }
        let found = searchDeclaredArguments(for: key, values: values)
        if found.count == 1 {
            lock.withLock { registrationRecordLocked().remember(found[0].key, for: key, version: version) }
        }
        return found
    }

    private func searchDeclaredArguments(for key: ServiceKey, values: [Any]) -> [DeclaredArguments] {
        var container: Container? = self
        while let current = container {
            let candidates = current.ownRegistrations { candidate in
                candidate.serviceType == key.serviceType && candidate.name == key.name && !candidate.hasOption
                    && candidate != key
            }
            var fitting: [DeclaredArguments] = []
            for candidate in candidates.sorted(by: { $0.key.requestDescription < $1.key.requestDescription }) {
                guard let factory = candidate.entry.argumentFactory, let arguments = factory.casting(values) else {
                    continue
                }
                fitting.append(DeclaredArguments(key: candidate.key, factory: factory, arguments: arguments))
            }
            if !fitting.isEmpty { return fitting }
            container = current.parent
        }
        return []
    }

    /// Makes `Service` under `key`'s name with `values`, the arguments of a request whose key found no registration,
    /// through the one registration whose declared argument types take them (see ``declaredArguments(for:values:)``);
    /// otherwise the error of the missing `key`, naming the registrations that take them when there are several.
    func makeWithDeclaredArguments<Service>(
        _: Service.Type,
        key: ServiceKey,
        values: [Any],
        state: ResolutionState
    ) throws -> Any {
        let declared = declaredArguments(for: key, values: values)
        guard declared.count == 1 else {
            throw missing(key, state: state, takingArguments: declared.map(\.key.requestDescription))
        }
        return try declared[0].factory.make(
            ServiceRequest<Service>(name: key.name), in: self, arguments: declared[0].arguments)
    }

    /// The async request that makes `request`, whose key found no registration, through the one registration whose
    /// declared argument types take its arguments (see ``declaredArguments(for:values:)``).
    func declaredArguments<Service>(of request: ArgumentRequest, as _: Service.Type) -> ArgumentRequest? {
        guard entry(for: request.key) == nil else { return nil }
        let declared = declaredArguments(for: request.key, values: request.values)
        guard declared.count == 1 else { return nil }
        return declared[0].factory.asyncRequest(
            key: declared[0].key, ServiceRequest<Service>(name: request.key.name), in: self,
            arguments: declared[0].arguments)
    }
}

extension RegistrationRecord {
    /// The declared key remembered for `key` while the registries are at `version`.
    func knownDeclaredKey(for key: ServiceKey, version: UInt64) -> ServiceKey? {
        openedArguments.version == version ? openedArguments.keys[key] : nil
    }

    /// Remembers `declared` for `key`, found while the registries were at `version`.
    func remember(_ declared: ServiceKey, for key: ServiceKey, version: UInt64) {
        if openedArguments.version != version { openedArguments = (version, [:]) }
        openedArguments.keys[key] = declared
    }
}

/// A registration whose declared argument types take the arguments of a request, and those arguments cast to them.
struct DeclaredArguments {
    let key: ServiceKey
    let factory: ArgumentFactory
    let arguments: Any
}

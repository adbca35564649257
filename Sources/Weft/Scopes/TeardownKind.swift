/// How an instance is torn down: whether its type adopts ``Teardown`` or ``AsyncTeardown``, with the conformance
/// itself, so that tearing it down needs no dynamic cast to a protocol.
///
/// Finding the kind costs two conformance lookups in the runtime; a registration remembers it for the dynamic
/// type of its instances (see ``_ServiceEntryBase/teardownKind(of:)``), and the container keeps it with each instance
/// it owns, so that ending a scope casts nothing.
enum TeardownKind: @unchecked Sendable {
    /// Neither protocol: nothing to do.
    case none
    /// Adopts ``Teardown`` (and not ``AsyncTeardown``).
    case synchronous(any Teardown.Type)
    /// Adopts ``AsyncTeardown``, which wins when a type adopts both.
    case asynchronous(any AsyncTeardown.Type)

    /// The kind of the dynamic type of `instance`.
    static func of(_ instance: Any) -> TeardownKind {
        let type = Swift.type(of: instance)
        if let type = type as? any AsyncTeardown.Type { return .asynchronous(type) }
        if let type = type as? any Teardown.Type { return .synchronous(type) }
        return .none
    }

    /// Whether there is a teardown to run.
    var needsTeardown: Bool {
        if case .none = self { return false }
        return true
    }
}

/// How instances of one dynamic type are torn down, as a registration remembers it (see
/// ``_ServiceEntryBase/teardownKind(of:)``).
typealias KnownTeardown = (type: ObjectIdentifier, kind: TeardownKind)

/// An instance a container or scope keeps to tear down when it ends, with how, and its name for messages.
struct OwnedInstance: @unchecked Sendable {
    let instance: Any
    let kind: TeardownKind
    let name: TeardownName

    init(instance: Any, kind: TeardownKind, name: TeardownName) {
        self.instance = instance
        self.kind = kind
        self.name = name
    }

    /// `instance`, whose kind is found now (two conformance lookups): for the rare paths with no registration at
    /// hand that remembers it.
    init(finding instance: Any, name: TeardownName) {
        self.init(instance: instance, kind: .of(instance), name: name)
    }

    /// Runs a synchronous teardown here (nothing for the other kinds); returns its failure.
    func tearDownSynchronously() -> TeardownError.Failure? {
        guard case .synchronous(let type) = kind else { return nil }
        do {
            try type.tearDownInstance(instance)
            return nil
        } catch {
            return .init(service: name.description, error: error)
        }
    }

    /// Runs the teardown, whichever its kind.
    func tearDown() async throws {
        switch kind {
        case .none: return
        case .synchronous(let type): try type.tearDownInstance(instance)
        case .asynchronous(let type): try await type.tearDownInstance(instance)
        }
    }
}

extension Teardown {
    /// Tears down `instance`, whose dynamic type is `Self` (or a subclass): a class cast, not a protocol one.
    static func tearDownInstance(_ instance: Any) throws {
        try (instance as! Self).tearDown()
    }
}

extension AsyncTeardown {
    /// Tears down `instance`, whose dynamic type is `Self` (or a subclass).
    static func tearDownInstance(_ instance: Any) async throws {
        try await (instance as! Self).tearDown()
    }
}

/// How a registration keeps a scope's instance in a ``ScopeSlot``, which knows no type: as one retained object,
/// which the slot releases without knowing its type. The instance itself when `Service` is a class (no
/// allocation, and no value witness to copy or destroy it), a ``SlotBox`` around it otherwise.
extension ServiceEntry {
    /// `instance`, copied into what a slot keeps.
    @inline(__always)
    static func slotBits(of instance: Service) -> UnsafeMutableRawPointer {
        if TypedCopy<Service>.holdsObjects { return TypedCopy<Service>.object(instance).retain().toOpaque() }
        return Unmanaged.passRetained(SlotBox(instance)).toOpaque()
    }

    /// A copy of the instance a slot keeps as `bits`.
    @inline(__always)
    static func slotInstance(_ bits: UnsafeMutableRawPointer) -> Service {
        if TypedCopy<Service>.holdsObjects {
            return withUnsafePointer(to: bits) { UnsafeRawPointer($0).load(as: Service.self) }
        }
        return Unmanaged<SlotBox<Service>>.fromOpaque(bits).takeUnretainedValue().value
    }

    /// Keeps `instance`, new, in `scope`'s slot at `position` (see
    /// ``Container/keepScoped(_:at:erased:kind:releasing:)``). `known` is what the registration knew of its instances'
    /// teardown when the build began, if the caller read it then (see ``_ServiceEntryBase/discardCountAndTeardown()``).
    @inline(__always)
    func keep(
        _ instance: Service,
        in scope: Container,
        at position: Int,
        known: KnownTeardown? = nil,
        releasing state: ResolutionState?
    ) -> Bool {
        scope.keepScoped(
            Self.slotBits(of: instance), at: position, erased: instance,
            kind: slotTeardownKind(of: instance, known: known), releasing: state)
    }

    /// How `instance`, a new instance of this registration, is torn down: remembered for its dynamic type, read
    /// typed (a class's type from the object itself), so that the usual instance costs no conformance lookup and
    /// is erased to `Any` only to be handed over for teardown.
    @inline(__always)
    func slotTeardownKind(of instance: Service, known: KnownTeardown?) -> TeardownKind {
        if TypedCopy<Service>.holdsObjects {
            let type = Self.dynamicType(of: instance)
            if let known, known.type == type { return known.kind }
            if let known = teardownKnown(for: type) { return known }
        }
        return teardownKind(of: instance)
    }

    /// The dynamic type of `instance`, a class instance (``holdsObjects``), read from the object.
    @inline(__always)
    static func dynamicType(of instance: Service) -> ObjectIdentifier {
        TypedCopy<Service>.object(instance)._withUnsafeGuaranteedRef { ObjectIdentifier(Swift.type(of: $0)) }
    }
}

/// A scope's instance of a service that is not a class, kept by its ``ScopeSlot`` as an object: released as any
/// object is, its deinit destroys the value as its type requires.
final class SlotBox<Value> {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}

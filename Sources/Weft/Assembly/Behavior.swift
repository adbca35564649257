/// Extends a container: it is told about every registration made after it was added.
public protocol Behavior {
    /// Called after `entry` was registered in `container` for `type` under `name`.
    ///
    /// `Type` differs from `Service` when a type is forwarded with `implements` or `forward`: `Type` is the
    /// forwarded type, `Service` the registration's own.
    func container<Type, Service>(
        _ container: Container,
        didRegisterType type: Type.Type,
        toService entry: ServiceEntry<Service>,
        withName name: String?
    )
}

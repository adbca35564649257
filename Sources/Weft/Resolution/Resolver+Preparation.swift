extension Resolver {
    /// Returns an instance of `serviceType`; when this call makes a new one, `prepare` runs on it first,
    /// right after its factory and before its own `initCompleted` callbacks.
    ///
    /// A caller can close a circular dependency itself this way: a parent making its child hands itself to
    /// the child, so that the child's own callbacks see that their parent is set and skip looking it up
    /// (the pattern ZIKRouter calls a preparation).
    ///
    /// ```swift
    /// container.register(Parent.self) { _ in ParentObject() }
    ///     .initCompleted { r, parent in
    ///         guard parent.child == nil else { return }
    ///         parent.child = try r.require(Child.self, preparing: { child in child.parent = parent })
    ///     }
    /// ```
    ///
    /// `prepare` does not run when an existing instance is returned (a singleton already made, or a
    /// graph-scoped instance already in the graph). It may throw: the resolution then fails with a
    /// ``ResolutionError`` whose reason is ``ResolutionError/Reason/initCompletedFailed``.
    ///
    /// - Parameters:
    ///   - serviceType: The type to resolve; inferred from the context when left out.
    ///   - name: The registration name.
    ///   - prepare: Runs on a newly made instance before its `initCompleted` callbacks.
    public func require<Service>(
        _ serviceType: Service.Type = Service.self,
        name: String? = nil,
        preparing prepare: (Service) throws -> Void
    ) throws -> Service {
        guard let container = self as? Container else {
            // Another resolver implementation: the best it can offer is preparing what it returns.
            let instance = try require(serviceType, name: name)
            try prepare(instance)
            return instance
        }
        return try container.make(serviceType, name: name, preparing: prepare)
    }

    /// Returns an instance of `serviceType`, or `nil`; when this call makes a new one, `prepare` runs on it
    /// first, right after its factory and before its own `initCompleted` callbacks (see
    /// ``require(_:name:preparing:)``).
    public func resolve<Service>(
        _ serviceType: Service.Type,
        name: String? = nil,
        preparing prepare: (Service) throws -> Void
    ) -> Service? {
        do {
            return try require(serviceType, name: name, preparing: prepare)
        } catch {
            (self as? Container)?.report(error, resolving: serviceType)
            return nil
        }
    }
}

extension Container {
    /// Makes `serviceType` with `prepare` run on the instance made for this call (see
    /// ``Resolver/require(_:name:preparing:)``).
    func make<Service>(
        _ serviceType: Service.Type,
        name: String?,
        preparing prepare: (Service) throws -> Void
    ) throws -> Service {
        try withoutActuallyEscaping(prepare) { prepare in
            let fields = ResolutionState.current.fields
            let outer = (fields.pointee.preparation, fields.pointee.preparationFrame)
            // The instance for this call is the one made under the next frame pushed.
            fields.pointee.preparation = { instance in
                guard let service = instance as? Service else { return }
                try prepare(service)
            }
            fields.pointee.preparationFrame = fields.pointee.frames.count
            defer { (fields.pointee.preparation, fields.pointee.preparationFrame) = outer }
            return try makeWithoutArguments(serviceType, name: name)
        }
    }
}

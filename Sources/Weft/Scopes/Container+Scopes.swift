import WeftAtomics

extension ObjectScope {
    /// One instance per scope: made the first time a scope needs it, shared within that scope, torn down
    /// and released when the scope ends.
    ///
    /// ```swift
    /// container.register(UnitOfWork.self) { r in UnitOfWork(db: try r.require()) }.inObjectScope(.scoped)
    ///
    /// let scope = container.makeScope()        // one per request, job, screen...
    /// let work = try scope.require(UnitOfWork.self)
    /// try await scope.end()                    // tears it down
    /// ```
    ///
    /// Resolving a `.scoped` service outside any scope fails with
    /// ``ResolutionError/Reason/outsideScope``; a `.container` singleton that would keep one fails with
    /// ``ResolutionError/Reason/captiveDependency``, and ``Container/verify(strict:)`` reports it.
    public static let scoped = ObjectScope(
        storageFactory: PermanentStorage.init,
        description: "scoped",
        behavior: .scoped
    )
}

extension Container {
    /// Makes a scope for one unit of work (a request, a job): a child container that sees this container's
    /// registrations and keeps one instance of each `.scoped` one, until ``end(timeout:)``.
    ///
    /// ```swift
    /// let scope = container.makeScope()
    /// let repository = try await scope.async.require(TodoRepository.self)
    /// ...
    /// try await scope.end()
    /// ```
    ///
    /// Singletons (`.container`) stay in the container that registered them, shared by all scopes. Scopes
    /// can nest: a `.scoped` service belongs to the innermost scope it is resolved from. Creating a scope
    /// is cheap (one object); its copies of `.scoped` registrations are made when first used.
    public func makeScope() -> Container {
        Container(parent: self, debugHelper: nil, defaultObjectScope: defaultObjectScope, isScope: true)
    }

    /// Makes a scope, runs `body` with it, and ends it, also when `body` throws.
    ///
    /// ```swift
    /// let todos = try await container.withScope { scope in
    ///     try await scope.async.require(TodoRepository.self).all()
    /// }
    /// ```
    ///
    /// - Throws: What `body` throws; otherwise a ``TeardownError`` when a teardown threw. When both
    ///   failed, `body`'s error is thrown and the teardown failures go to ``loggingFunction``.
    public func withScope<Result>(
        isolation: isolated (any Actor)? = #isolation,
        _ body: (Container) async throws -> Result
    ) async throws -> Result {
        let scope = makeScope()
        let result: Result
        do {
            result = try await body(scope)
        } catch {
            do {
                try await scope.end()
            } catch {
                let teardown =
                    error as? TeardownError ?? TeardownError(failures: [.init(service: "scope", error: error)])
                Container.log(.teardownFailed(teardown))
            }
            throw error
        }
        try await scope.end()
        return result
    }

    /// Marks this container ended and takes the instances to tear down, oldest first.
    func beginEnd() -> [OwnedInstance] {
        let owned = lock.withLock {
            lifetime.ended = true
            defer { lifetime.owned = [] }
            return (instances: lifetime.owned, copiesCached: lifetime.copiesCached)
        }
        if owned.copiesCached {
            // Lookups cached on any thread must stop answering with this scope's copies.
            weft_registry_changed()
        }
        return owned.instances
    }

    /// Releases the instances of an ended container: its scope copies' and its own `.container` ones.
    func finishEnd() {
        // Read without the lock: a scope's copies are added only while it has not ended (see `scopeCopy`), and it
        // has, under the lock, in `beginEnd()`; they are given back only when it is released, after this.
        lifetime.copies.forEachCopy { $0.endScopedInstance() }
        // No lock for a scope while no live scope has registrations of its own (the count is raised before a
        // scope's first registration is visible, and lowered when that scope is released).
        if isScope, weft_registering_scopes() == 0 { return }
        guard hasOwnRegistrations else { return }
        for entry in entries(where: { ScopeBehavior.of($1.objectScope).keptByContainer }) {
            entry.discardInstance()
        }
    }

    /// Gives the copies of this scope, which is being released, back to their originals for later scopes (see
    /// `Registration/ServiceEntry+Spares.swift`).
    func recycleCopies() {
        // The first copy moved out of the record into its original's spares, without a retain and a release.
        if let first = lifetime.copies.takeFirst(), let original = first.originalReference {
            original._withUnsafeGuaranteedRef { $0.recycle(first, from: self) }
        }
        lifetime.copies.forEachCopy { copy in
            copy.originalReference?._withUnsafeGuaranteedRef { $0.recycle(copy, from: self) }
        }
    }

    /// Keeps `entry`, which keeps spare copies now, to release them when this container is released.
    func listSpareOwner(_ entry: _ServiceEntryBase) {
        lock.withLock { registrationRecordLocked().spareOwners.append(entry) }
    }

    /// Keeps `owned` to tear down when this container ends.
    func adoptForTeardown(_ owned: OwnedInstance) {
        lock.withLock { lifetime.owned.append(owned) }
    }

    /// Takes a new instance of one of this scope's copies, to tear down when the scope ends if `kind` says it
    /// needs it; false, taking nothing, when the scope has ended (the instance was still being made).
    func adoptScoped(_ instance: Any, kind: TeardownKind, name: TeardownName) -> Bool {
        lock.withLock {
            guard !lifetime.ended else { return false }
            if kind.needsTeardown { lifetime.owned.append(OwnedInstance(instance: instance, kind: kind, name: name)) }
            return true
        }
    }

    /// ``adoptScoped(_:kind:name:)`` for an instance that needs no teardown: whether this scope still takes
    /// instances (false once it has ended).
    func acceptsScoped() -> Bool {
        lock.withLock { !lifetime.ended }
    }

    /// The nearest container that is not a scope, when this scope and the scopes it is nested in have no
    /// registrations of their own: that container's lookups are this scope's, but for `.scoped` registrations
    /// (see ``scopedLookup(_:)``). Nil when a scope on the way has registrations.
    ///
    /// Unretained, like every container on the way: the scope, which the caller holds, keeps them.
    @inline(__always)
    var lookedThrough: Unmanaged<Container>? {
        // While no live scope has registrations, no walk is needed: the base was found when the scope was made.
        if weft_registering_scopes() == 0 { return scopeBase }
        return lookedThroughWalking
    }

    /// ``lookedThrough`` found by walking the chain of scopes.
    @inline(never)
    var lookedThroughWalking: Unmanaged<Container>? {
        var base = Unmanaged.passUnretained(self)
        while base._withUnsafeGuaranteedRef(\.isScope) {
            let parent = base._withUnsafeGuaranteedRef { scope in
                scope.hasOwnRegistrations ? nil : scope.parent.map { Unmanaged.passUnretained($0) }
            }
            guard let parent else { return nil }
            base = parent
        }
        return base
    }

    /// `found`, a lookup of the container this scope is looked through to, as seen from this scope: a `.scoped`
    /// registration is swapped for this scope's copy, or kept when the scope has ended (it then fails as
    /// resolved outside a scope).
    func scopedLookup(_ found: Lookup) -> Lookup {
        guard found.policy == .perScope else { return found }
        // The original unretained: the registry keeps it, and it has a side table (its dependencies refer to it
        // weakly), which makes every retain a slow one.
        let copy = found.entry._withUnsafeGuaranteedRef { scopeCopyReference(of: $0, cached: false) }
        guard copy.toOpaque() != found.entry.toOpaque() else { return found }
        return Lookup(entry: copy, policy: .shared, hasCallbacks: found.hasCallbacks, exact: found.exact)
    }

    /// This scope's copy of the `.scoped` registration `entry` (made on first use); `entry` itself once the
    /// scope has ended, which then fails as resolved outside a scope. `cached` when the copy is an answer of
    /// the registry lookup that threads cache.
    func scopeCopy(of entry: _ServiceEntryBase, cached: Bool) -> _ServiceEntryBase {
        scopeCopyReference(of: entry, cached: cached).takeUnretainedValue()
    }

    /// ``scopeCopy(of:cached:)``, unretained: the scope keeps its copies (and the registry the original) for as
    /// long as a resolve through the scope runs.
    func scopeCopyReference(of entry: _ServiceEntryBase, cached: Bool) -> EntryReference {
        lock.lock()
        defer { lock.unlock() }
        if lifetime.ended { return .passUnretained(entry) }
        if cached { lifetime.copiesCached = true }
        if let copy = lifetime.copies.reference(of: ObjectIdentifier(entry)) { return copy }
        let copy = entry.copyForScope(self)
        let reference = Unmanaged.passUnretained(copy)
        // Moved into the record, which keeps it: no retain.
        lifetime.copies.add(consume copy, of: ObjectIdentifier(entry))
        return reference
    }

    /// The error for a `.scoped` registration resolved where no live scope is: `.scopeEnded` when a scope this
    /// container resolves through has ended, `.outsideScope` otherwise.
    func outsideScope(_ key: ServiceKey, path: [String]) -> ResolutionError {
        var container: Container? = self
        var ended = false
        while let current = container, !ended {
            if current.isScope { ended = current.lock.withLock { current.lifetime.ended } }
            container = current.parent
        }
        return ResolutionError(reason: ended ? .scopeEnded : .outsideScope, key: key, path: path)
    }

    /// The error for a shared instance being made that would keep the scope's instance of `entry`.
    func capturedScopedService(_ entry: _ServiceEntryBase, state: ResolutionState) -> ResolutionError {
        let key = ServiceKey(serviceType: entry.serviceType, argumentsType: entry.argumentsType, name: nil)
        return ResolutionError(reason: .captiveDependency, key: key, path: state.path + [key.pathComponent])
    }
}

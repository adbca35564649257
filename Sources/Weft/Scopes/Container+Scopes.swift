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
    /// is cheap (one object); its slot for each `.scoped` registration is made when first used.
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
        lock.withLock {
            lifetime.ended = true
            defer { lifetime.owned = [] }
            return lifetime.owned
        }
    }

    /// Releases the instances of an ended container: its scope slots' and its own `.container` ones.
    func finishEnd() {
        if isScope {
            let taken = lock.withLock { lifetime.slots.takeInstances() }
            // Released outside the lock: a deinit may call back into the container.
            SlotState.release(taken.first)
            for bits in taken.others { SlotState.release(bits) }
        }
        // No lock for a scope while no live scope has registrations of its own (the count is raised before a
        // scope's first registration is visible, and lowered when that scope is released).
        if isScope, weft_registering_scopes() == 0 { return }
        guard hasOwnRegistrations else { return }
        for entry in entries(where: { ScopeBehavior.of($1.objectScope).keptByContainer }) {
            entry.discardInstance()
        }
    }

    /// Keeps `owned` to tear down when this container ends.
    func adoptForTeardown(_ owned: OwnedInstance) {
        lock.withLock { lifetime.owned.append(owned) }
    }

    /// The nearest container that is not a scope, when this scope and the scopes it is nested in have no
    /// registrations of their own: that container's lookups are this scope's (a `.scoped` registration found there
    /// keeps its instance in this scope's slot, see ``slot(of:)``). Nil when a scope on the way has registrations.
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

    /// The slot of the innermost scope this container resolves through (itself, when it is one) for the `.scoped`
    /// registration `entry`, made on first use; nil when there is no such scope, or it has ended (the registration
    /// then fails as resolved outside a scope). A registration of a container below every scope on the way (a
    /// child of a scope that is not a scope) is outside them. The scope keeps its slots, and the resolve the scope.
    func scopeSlot(for entry: EntryReference) -> ScopeSlot? {
        var container = Unmanaged.passUnretained(self)
        while !container._withUnsafeGuaranteedRef(\.isScope) {
            let next = container._withUnsafeGuaranteedRef { current in
                entry._withUnsafeGuaranteedRef { current.holdsOwnRegistration($0) }
                    ? nil : current.parent.map(Unmanaged.passUnretained)
            }
            guard let next else { return nil }
            container = next
        }
        return container._withUnsafeGuaranteedRef { scope in entry._withUnsafeGuaranteedRef { scope.slot(of: $0) } }
    }

    /// This scope's slot for the `.scoped` registration `original`, made on first use; nil once the scope has ended.
    func slot(of original: _ServiceEntryBase) -> ScopeSlot? {
        let discards = original.discardCount()
        lock.lock()
        defer { lock.unlock() }
        if lifetime.ended { return nil }
        let position =
            lifetime.slots.position(of: original.serial)
            ?? lifetime.slots.add(SlotState(original: original, discards: discards))
        return slotHandleLocked(at: position)
    }

    /// The error for a `.scoped` registration resolved where no live scope is: `.scopeEnded` when a scope this
    /// container resolves through has ended, `.outsideScope` otherwise. With a live scope above, the registration
    /// was found below it (in a child made with `Container(parent:)`), which the message says.
    func outsideScope(_ key: ServiceKey, path: [String]) -> ResolutionError {
        var container: Container? = self
        var ended = false
        var belowScope = false
        while let current = container, !ended {
            if current.isScope {
                ended = current.lock.withLock { current.lifetime.ended }
                belowScope = true
            }
            container = current.parent
        }
        return ResolutionError(
            reason: ended ? .scopeEnded : .outsideScope, key: key, path: path, belowScope: belowScope)
    }

    /// The error for the shared instance of `holder` being made that would keep the scope's instance asked for as
    /// `key`: the message names the holder as the path does, which may be further out than the innermost step.
    func capturedScopedService(_ key: ServiceKey, holder: EntryReference, state: ResolutionState) -> ResolutionError {
        let frames = state.fields.pointee.frames
        var captor: ServiceKey?
        for frame in frames.suffix(from: 0).reversed() {
            if frame.entry === holder {
                captor = frames.key(of: frame)
                break
            }
            // The callbacks of an instance a shared one holds run after the holder's frame left the stack: the
            // holder is on the path that made the instance, which is the path from here on.
            if let origin = frames.origin(of: frame) {
                captor = Self.lastKey(of: holder, in: origin)
                break
            }
        }
        return ResolutionError(
            reason: .captiveDependency, key: key, path: state.path + [key.pathComponent],
            captor: captor?.pathComponent)
    }

    /// The key of the last frame of `holder` on the path `frames` recorded.
    private static func lastKey(of holder: EntryReference, in frames: [RecordedFrame]) -> ServiceKey? {
        for frame in frames.reversed() {
            if frame.entry === holder { return frame.key }
            if let origin = frame.origin { return lastKey(of: holder, in: origin) }
        }
        return nil
    }
}

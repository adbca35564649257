/// The steps around a factory call: the errors thrown out of line (so that the hot path's frames stay small),
/// and running the deferred `initCompleted` callbacks. Cycle detection is in `Cycles.swift`.
extension Container {
    // The errors of the engine's generic functions are made and thrown out of line, so that their space is not
    // part of those functions' frames (one set per level of a deep graph).

    @inline(never)
    func throwMissing(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        throw missing(key, state: state)
    }

    @inline(never)
    func throwOutsideScope(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        throw outsideScope(key, path: state.path + [key.pathComponent])
    }

    /// The path for ``throwFactoryFailed(_:key:path:)``, read while the failed factory's frame is still on it: only
    /// when the error will be wrapped. A ``ResolutionError`` goes up unchanged, and reading the path at every level
    /// it passes would make a failure deep in a long chain cost the square of its depth.
    @inline(never)
    func pathForFailure(of error: any Error, state: ResolutionState) -> [String] {
        error is ResolutionError ? [] : state.path
    }

    /// Rethrows a factory's ``ResolutionError`` as it is, and wraps any other error as `.factoryFailed` (telling a
    /// decorator's failure apart).
    @inline(never)
    func throwFactoryFailed(_ error: any Error, key: ServiceKey, path: [String]) throws -> Never {
        if let error = error as? ResolutionError { throw error }
        throw ResolutionError.factoryFailed(error, key: key, path: path)
    }

    /// Throws `.scopeEnded` for an instance whose scope ended while it was being made, after tearing the
    /// instance down (a synchronous teardown here, an async one in a task of its own; failures are logged).
    @inline(never)
    func throwScopeEndedWhileMaking(_ instance: Any, key: ServiceKey, state: ResolutionState) throws -> Never {
        let name = TeardownName(key.pathComponent)
        Container.tearDownDetached(OwnedInstance(finding: instance, name: name))
        // The instance's own frame is still on the path.
        throw ResolutionError(reason: .scopeEnded, key: key, path: state.path)
    }

    /// Throws the error for a resolve that would start a new instance too close to the end of the thread's
    /// stack. Out of line, so that the error's space is not part of every build's frame.
    @inline(never)
    func throwTooDeep(_ key: ServiceKey, state: ResolutionState) throws -> Never {
        let stack = state.stack
        throw ResolutionError(
            reason: .tooDeep,
            key: key,
            path: state.path + [key.pathComponent],
            stackUse: (used: Int(stack.used(at: StackGuard.currentAddress())), size: Int(stack.size))
        )
    }

    /// Runs the waiting `initCompleted` callbacks queued from index `first` on (those of the instance being
    /// made and of what its factory made), oldest first, each with its registration on the path. Callbacks
    /// queued earlier belong to an enclosing make, which runs them after this one returns; callbacks left
    /// by a failure stay queued for the enclosing make.
    func runPendingCompletions(_ state: ResolutionState, from first: Int) throws {
        // Read in place and removed together at the end (removing each as it runs would make a wide graph
        // quadratic); callbacks queued meanwhile go to the end and run in turn.
        var index = first
        defer { state.pending.removeSubrange(first..<index) }
        while index < state.pending.count {
            let next = state.pending[index]
            index += 1
            // The callbacks of the instance whose make() is draining run under its own frame.
            let entry = EntryReference.passUnretained(next.entry)
            let ownFrame = state.frames.last.map { $0.entry === entry } ?? false
            if !ownFrame {
                state.frames.push(entry, key: next.key, inFactory: false, origin: next.frames)
            }
            defer { if !ownFrame { state.frames.pop() } }
            // What a shared instance's callbacks resolve is its dependency too, and so is what the callbacks of
            // an instance it holds resolve.
            let builder = next.holder.map { EntryReference.passUnretained($0) }
            if let builder { state.fields.pointee.sharedBuilds.append(builder) }
            defer { if builder != nil { state.fields.pointee.sharedBuilds.removeLast() } }
            do {
                try next.entry.runInitCompleted(resolver: next.resolver, instance: next.instance)
            } catch let error as ResolutionError {
                if next.reachable { state.fields.pointee.completing -= 1 }
                discardIncomplete(next, captive: error.reason == .captiveDependency)
                throw error
            } catch {
                if next.reachable { state.fields.pointee.completing -= 1 }
                discardIncomplete(next, captive: false)
                throw ResolutionError(
                    reason: .initCompletedFailed,
                    key: next.key,
                    path: state.path,
                    underlyingError: error
                )
            }
            // Its own count first: its claim is kept only for the other instances still being completed.
            if next.reachable { state.fields.pointee.completing -= 1 }
            if let claim = next.claim { releaseCompletedClaim(on: claim, state: state) }
            if state.fields.pointee.completing == 0, !state.fields.pointee.deferredClaims.isEmpty {
                releaseDeferredClaims(of: state)
            }
        }
    }

    /// Discards what a callback that threw leaves incomplete, also when the request goes on (an optional `resolve`
    /// returns nil): the shared instance whose callback it is (only it, as a failed request discards it), and, for a
    /// `captive` dependency, the shared instance that holds the instance whose callback it is, kept already but
    /// refused what it would keep, with what was made with it.
    private func discardIncomplete(_ completion: PendingCompletion, captive: Bool) {
        if completion.claim != nil, completion.entry.lookupConfiguration.policy == .shared {
            completion.entry.discardInstance()
        }
        if captive, let holder = completion.holder, holder !== completion.entry {
            holder.discardInstanceAndDependents()
        }
    }
}

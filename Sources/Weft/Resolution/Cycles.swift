/// Cycle detection, in one place. A cycle shows up in four ways, each caught where it would otherwise loop or
/// hang, and each reported as ``ResolutionError/Reason/circularDependency`` with the path that closes it:
///
/// - a registration whose factory is already running on this thread's path (the initializer cycle), or that
///   is on the path twice through `initCompleted` callbacks that never reach a shared instance (a transient
///   registration with runtime arguments that asks for itself recurses instead, see `recurses(_:key:)`);
/// - threads that would wait for each other's shared instances (``BuildCoordinator``);
/// - an async factory already running on an async resolve's path, asked for by an async factory or by a
///   synchronous part of that resolve (the path is one chain, ``ResolutionPath``, read once by both engines);
/// - tasks whose builds would wait for each other (``AsyncBuilds``).
///
/// The words of the error and the fix it suggests are in `Diagnostics/ResolutionError+Messages.swift`;
/// verification finds cycles in the graph it recorded (`Diagnostics/Verification+GraphChecks.swift`).
extension Container {
    /// Throws when `entry` is already being made on this thread: its factory is running (the
    /// initializer cycle Swinject cannot resolve), or it is on the path twice (a cycle through
    /// `initCompleted` that never reaches a shared instance). The thread's frames hold synchronous factories
    /// only: the async steps before them (in a synchronous part of an async resolve) hold async factories, which
    /// the synchronous engine meets only where it would run one (see ``asyncFactoryReached(state:)``).
    @inline(__always)
    func checkCycle(_ entry: EntryReference, key: ServiceKey, state: ResolutionState) throws {
        guard let first = state.fields.pointee.frames.firstIndex(of: entry) else { return }
        try checkCycle(entry, key: key, state: state, from: first)
    }

    /// The rest of ``checkCycle(_:key:state:)`` when `entry` is on the path from frame `first` on.
    func checkCycle(_ entry: EntryReference, key: ServiceKey, state: ResolutionState, from first: Int) throws {
        // One that never ends is stopped by the stack guard, as any chain too deep for the thread.
        if Self.recurses(entry.object, key: key) { return }
        let loop = state.frames.suffix(from: first)
        let throughFactories = loop.allSatisfy(\.inFactory)
        let repeated = loop.dropFirst().contains { $0.entry === entry }
        guard state.frames[first].inFactory || repeated else { return }
        let request = state.fields.pointee.wrapperRequest
        throw ResolutionError(
            reason: .circularDependency,
            key: key,
            path: ResolutionPath(state).components + [key.pathComponent],
            cycleThroughCallbacks: !throughFactories,
            closingWrapper: request.flatMap { $0.frames == state.frames.count ? "\($0.wrapper)" : nil },
            selfAskingScope: Self.selfAskingScope(entry.object, key: key)
        )
    }

    /// For a registration with runtime arguments that asks for itself (`key`) and is not transient: its scope's name,
    /// for the error to say that a transient registration would build the structure (see ``recurses(_:key:)``).
    static func selfAskingScope(_ entry: _ServiceEntryBase, key: ServiceKey) -> String? {
        guard key.argumentsType != noArguments, entry.lookupConfiguration.policy != .transient else { return nil }
        return "\(entry.objectScope)"
    }

    /// Throws when `entry`'s async factory is already running on `path`, asked for by an async factory or by the
    /// synchronous part of an async resolve (whose frames cannot hold an async factory: it needs the async engine).
    @inline(never)
    func checkAsyncCycle(_ entry: _ServiceEntryBase, key: ServiceKey, path: ResolutionPath) throws {
        guard path.asyncStepsContain(entry) else { return }
        let components = path.components + [key.pathComponent]
        guard Self.recurses(entry, key: key) else {
            let scope = Self.selfAskingScope(entry, key: key)
            throw ResolutionError(reason: .circularDependency, key: key, path: components, selfAskingScope: scope)
        }
        // An async factory's frames are not on a thread's stack, which would stop a recursion that never ends:
        // the number of times the registration is on the path does.
        if path.asyncOccurrences(of: entry) >= Self.asyncRecursionLimit {
            throw ResolutionError(reason: .tooDeep, key: key, path: components)
        }
    }

    /// The error for a synchronous resolve that reached the async factory of its innermost frame: the cycle it
    /// closes when that factory is already running on the path's async steps (a synchronous part of an async
    /// resolve asked for what the async factories around it are making), ``ResolutionError/Reason/requiresAsync``
    /// otherwise. Checked here, where the synchronous engine would run the factory, rather than before every
    /// synchronous factory: only an async factory can be on an async step.
    static func asyncFactoryReached(state: ResolutionState) -> ResolutionError {
        let frames = state.fields.pointee.frames
        guard state.fields.pointee.outerSteps != nil, let frame = frames.last else {
            return ResolutionError.fromInsideFactory(.requiresAsync, serviceType: Any.self)
        }
        let (entry, key, path) = (frame.entry.object, frames.key(of: frame), ResolutionPath(state))
        guard path.asyncStepsContain(entry), !recurses(entry, key: key) else {
            return ResolutionError.fromInsideFactory(.requiresAsync, serviceType: Any.self)
        }
        // The path already ends with the frame of the registration that closes the cycle.
        return ResolutionError(
            reason: .circularDependency, key: key, path: path.components,
            selfAskingScope: selfAskingScope(entry, key: key))
    }

    /// Whether a request for `entry` (under `key`) that finds it already on the path is a recursion rather than a
    /// cycle: a transient registration with runtime arguments may ask for itself with other arguments, as a tree
    /// built level by level does, which ends when its factory stops asking (Swinject builds it too). A
    /// registration without arguments would ask for the same thing again, and a shared or graph-scoped one for
    /// the instance it is making.
    static func recurses(_ entry: _ServiceEntryBase, key: ServiceKey) -> Bool {
        key.argumentsType != noArguments && entry.lookupConfiguration.policy == .transient
    }

    /// How many times an async resolve's path may hold one registration that asks for itself (see
    /// ``recurses(_:key:)``) before it stops with ``ResolutionError/Reason/tooDeep``: Swinject's depth limit.
    static let asyncRecursionLimit = 200
}

extension BuildCoordinator {
    /// One thread on a cycle of waits: what it waits for and whether that offers an instance.
    struct WaitHop {
        let waiter: ResolutionState
        let offersInstance: Bool
    }

    /// The waits that lead from `owner` back to `state`, if they do (under the coordinator's lock).
    static func waitCycle(from state: ResolutionState, owner: ResolutionState) -> [WaitHop]? {
        var current = owner
        var cycle: [WaitHop] = []
        for _ in 0..<1024 {
            guard let wanted = current.waitingFor, let next = wanted.waitBuilder else { return nil }
            cycle.append(WaitHop(waiter: current, offersInstance: wanted.offersInstance))
            if next === state { return cycle }
            current = next
        }
        return nil
    }

    /// The error for a cycle of waits: `path` is the waiting thread's own (ending with what it waits for),
    /// followed by each other thread's steps from what it builds to what it waits for, back to this thread.
    static func cycleError(key: ServiceKey, path: [String], cycle: [WaitHop]) -> ResolutionError {
        var full = path
        var current = path[path.count - 1]
        for hop in cycle {
            let theirs = hop.waiter.waitingPath
            guard let index = theirs.firstIndex(of: current) else { break }
            full += theirs[(index + 1)...]
            current = theirs[theirs.count - 1]
        }
        if full.count > path.count, let index = path.firstIndex(of: current), index < path.count - 1 {
            full += path[(index + 1)...]
        }
        return ResolutionError(reason: .circularDependency, key: key, path: full, acrossThreads: true)
    }
}

extension AsyncBuilds {
    /// The builds from `start` along ``AsyncBuild/waitsFor`` to one of `targets`, if any is reachable.
    static func chain(from start: AsyncBuild, toAnyOf targets: [AsyncBuild]) -> [AsyncBuild]? {
        guard !targets.isEmpty else { return nil }
        var previous: [ObjectIdentifier: AsyncBuild] = [ObjectIdentifier(start): start]
        var queue = [start]
        var head = 0
        while head < queue.count {
            let current = queue[head]
            head += 1
            if targets.contains(where: { $0 === current }) {
                var chain = [current]
                while let last = chain.first, last !== start, let before = previous[ObjectIdentifier(last)] {
                    chain.insert(before, at: 0)
                }
                return chain
            }
            for next in current.waitsFor.all where previous[ObjectIdentifier(next)] == nil {
                previous[ObjectIdentifier(next)] = current
                queue.append(next)
            }
        }
        return nil
    }

    /// The path of a wait cycle: the waiter's path, then the builds it would wait for, back to its own.
    static func cyclePath(context: AsyncContext, chain: [AsyncBuild]) -> [String] {
        ResolutionPath(context).components + chain.map(\.key.pathComponent)
    }
}

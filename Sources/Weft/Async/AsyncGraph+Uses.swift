/// What the graph-scoped builds of an async graph used, as the synchronous engine logs it per thread (see
/// `Container+UseRecording.swift`): a shared instance whose factory reuses a graph-scoped instance made earlier in
/// the graph holds what that instance was made with too, so it records those registrations as its dependencies,
/// and replacing or resetting one of them discards it.
///
/// An async factory's graph-scoped build logs, in its ``AsyncBuild/uses``, each registration a request on its path
/// asks for (its own factory's, and those of the transient instances it makes); a synchronous part of the graph
/// run for it logs what the synchronous engine used (see ``Container/segment(_:awaiting:suspends:_:)``). A
/// synchronous factory's graph-scoped build in a synchronous part of the graph leaves what the synchronous engine
/// logged for it in ``AsyncGraph/threadBuildUses`` once done. A graph-scoped instance among those uses is followed
/// to what it was made with in turn.
extension AsyncGraph {
    /// Notes that the synchronous factory's build of the graph's instance of `entry` used `uses`. Call with
    /// ``AsyncBuilds/lock`` held.
    func noteThreadBuildUsesLocked(of entry: ObjectIdentifier, from log: UseLog, _ range: Range<Int>) {
        threadBuildUses[entry, default: UseLog()].append(contentsOf: log, range)
    }

    /// The registrations the graph's instance of `entry` was made with: what its build used and, for each
    /// graph-scoped instance of the graph among them, what that one was made with. Empty when the graph has no
    /// instance of `entry` made with anything.
    func uses(madeWith entry: ObjectIdentifier) -> [EntryReference] {
        lock.withLock {
            var found: [EntryReference] = []
            var work = [entry]
            var seen: Set<ObjectIdentifier> = []
            while let next = work.popLast() {
                guard seen.insert(next).inserted else { continue }
                let add = { (use: EntryReference) in
                    found.append(use)
                    work.append(ObjectIdentifier(use.takeUnretainedValue()))
                }
                if let build = slots[next], build.made != nil { build.uses.forEach(add) }
                threadBuildUses[next]?.forEach(add)
            }
            return found
        }
    }
}

extension AsyncContext {
    /// Logs `entry` in ``innermostBuild``, the graph-scoped build in flight on the path (see ``logsUses``). Call
    /// with ``AsyncBuilds/lock`` held.
    func logUseLocked(_ entry: _ServiceEntryBase) {
        withInnermostBuild { $0.uses.append(.passUnretained(entry)) }
    }
}

extension Container {
    /// Logs that a request on `context`'s path uses `entry` in the graph-scoped build in flight on it (see
    /// ``AsyncContext/logsUses``). Child tasks of its factory may log at the same time: under the lock.
    @inline(never)
    func logAsyncUse(_ entry: _ServiceEntryBase, context: AsyncContext) {
        AsyncBuilds.lock.withLock { context.logUseLocked(entry) }
    }

    /// Logs in the graph-scoped build in flight on `context`'s path what the synchronous engine logged from `first`
    /// on, in a synchronous part of the graph run for it.
    @inline(never)
    func logSegmentUses(from first: Int, state: ResolutionState, context: AsyncContext) {
        let made = state.fields.pointee.made
        guard made.usesCount > first else { return }
        context.withInnermostBuild { build in
            AsyncBuilds.lock.withLock {
                build.uses.append(contentsOf: made.uses, first..<made.usesCount)
            }
        }
    }

    /// Records, for the shared instance being made on `context`'s path, which reuses the graph's instance of
    /// `entry`, what that instance was made with as its dependencies (see ``AsyncGraph/uses(madeWith:)``).
    @inline(never)
    func recordReusedGraphUses(of entry: _ServiceEntryBase, context: AsyncContext) {
        let uses = context.withGraph { $0.uses(madeWith: ObjectIdentifier(entry)) }
        for use in uses { recordAsyncDependency(use.takeUnretainedValue(), context: context) }
    }

    /// ``recordReusedGraphUses(of:context:)`` for the synchronous engine in a synchronous part of an async graph:
    /// the shared instance being made on this thread reuses the graph's instance of `entry`, which this thread's
    /// resolve did not make (an async factory made it, or another synchronous part of the graph).
    @inline(never)
    func recordSegmentGraphUses(of entry: EntryReference, state: ResolutionState) throws {
        guard let segment = state.segmentGraph, let graph = state.fields.pointee.graph else { return }
        let uses = segment._withUnsafeGuaranteedRef { segment in
            segment.id == graph ? segment.uses(madeWith: ObjectIdentifier(entry.object)) : []
        }
        for use in uses { try recordDependency(use, state: state) }
    }

    /// Leaves in `segment` what the synchronous engine logged for the build of the graph's instance of `entry` that
    /// this thread just made in a synchronous part of the graph, before the build leaves the graph's slots.
    @inline(never)
    func noteThreadBuildUses(
        of entry: EntryReference,
        graph: GraphIdentifier,
        state: ResolutionState,
        segment: Unmanaged<AsyncGraph>
    ) {
        let fields = state.fields
        guard let index = madeIndex(of: entry, in: graph, state: state) else { return }
        let range = fields.pointee.made.usesRange(at: index)
        guard !range.isEmpty else { return }
        segment._withUnsafeGuaranteedRef { segment in
            segment.lock.withLock {
                segment.noteThreadBuildUsesLocked(
                    of: ObjectIdentifier(entry.object), from: fields.pointee.made.uses, range)
            }
        }
    }
}

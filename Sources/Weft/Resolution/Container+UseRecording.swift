/// What a resolve notes of the registrations it uses while a shared or graph-scoped instance is being made: a
/// shared instance records them as its dependencies, so that replacing or resetting one discards it; a graph-scoped
/// build logs them, so that a shared instance that reuses its instance later in the graph records them too.
extension Container {
    /// Notes that the resolve in flight uses `entry` (`scoped`: a `.scoped` registration, kept in a scope's
    /// slot): for invalidation, when a shared instance is being made, and for a verification's recorder, when one
    /// is installed. Called once per resolve of a registration.
    @inlinable @inline(__always)
    func noteUse(of entry: EntryReference, scoped: Bool = false, state: ResolutionState) throws {
        let fields = state.fields
        // A recorder or a shared build (or a preparation, for which there is nothing to note): one test.
        if fields.pointee.busy & (ResolutionState.Fields.recordingOrPreparing | ResolutionState.Fields.notingUses)
            != 0
        {
            try noteRecordedUse(of: entry, scoped: scoped, state: state)
        }
    }

    /// ``noteUse(of:state:)`` when there is something to note, out of line: the check above is inlined into
    /// every resolve, this is not.
    @usableFromInline @inline(never)
    func noteRecordedUse(of entry: EntryReference, scoped: Bool, state: ResolutionState) throws {
        let fields = state.fields
        // The recorder first: a verification records the edge even when the use is refused below.
        if let recorder = fields.pointee.graphRecorder { recorder.resolving(entry, state: state) }
        if fields.pointee.busy & ResolutionState.Fields.notingUses != 0 {
            try noteUseWhileBuilding(entry, scoped: scoped, state: state)
        }
    }

    /// Notes that the resolve in flight uses `entry` while a shared or graph-scoped instance is being made: a
    /// graph-scoped build logs it (see ``MadeRecords/logUse(_:)``), and a shared build records it as its
    /// dependency, with, when `reused` (`entry` is graph-scoped) and the graph made `entry`'s instance already,
    /// what that instance was made with: that is in the shared instance too.
    @inline(never)
    func noteUseWhileBuilding(
        _ entry: EntryReference,
        scoped: Bool = false,
        reused: Bool = false,
        key: ServiceKey? = nil,
        state: ResolutionState
    ) throws {
        let fields = state.fields
        if fields.pointee.graphBuilds != 0 { fields.pointee.made.logUse(entry) }
        guard !fields.pointee.sharedBuilds.isEmpty else { return }
        try recordDependency(entry, scoped: scoped, key: key, state: state)
        if reused, let graph = fields.pointee.graph {
            if let index = madeIndex(of: entry, in: graph, state: state) {
                try recordUses(ofMadeAt: index, state: state)
            } else if state.segmentGraph != nil {
                // Made in the async graph this thread runs a synchronous part of, but not by this thread's resolve.
                try recordSegmentGraphUses(of: entry, state: state)
            }
        }
    }

    /// ``noteUseWhileBuilding(_:scoped:reused:key:state:)`` for a graph-scoped registration asked for on the
    /// nested path: fewer arguments to pass on every use of one while a graph-scoped instance is being made.
    @inline(never)
    func noteGraphUseWhileBuilding(_ entry: EntryReference, state: ResolutionState) throws {
        let fields = state.fields
        if fields.pointee.graphBuilds != 0 { fields.pointee.made.logUse(entry) }
        guard !fields.pointee.sharedBuilds.isEmpty else { return }
        try recordDependency(entry, state: state)
        if let graph = fields.pointee.graph, let index = madeIndex(of: entry, in: graph, state: state) {
            try recordUses(ofMadeAt: index, state: state)
        }
    }

    /// Records what the graph-scoped instance at `index` in ``ResolutionState/Fields/made`` was made with as
    /// dependencies of the shared instance being made, which is about to hold it: the registrations its build
    /// used, and, for each graph-scoped instance among them that the graph had made before, what that one used.
    @inline(never)
    func recordUses(ofMadeAt index: Int, state: ResolutionState) throws {
        let fields = state.fields
        guard fields.pointee.made[index].usesTo > fields.pointee.made[index].usesFrom else { return }
        var work = [index]
        var seen: Set<Int> = []
        while let index = work.popLast() {
            guard seen.insert(index).inserted else { continue }
            let record = fields.pointee.made[index]
            for position in Int(record.usesFrom)..<Int(record.usesTo) {
                let used = fields.pointee.made.use(at: position)
                try recordDependency(used, state: state)
                if let earlier = fields.pointee.made.lastIndex(of: used, in: record.graph), earlier < index {
                    let made = fields.pointee.made[earlier]
                    if made.policy == .perGraph, made.usesTo > made.usesFrom { work.append(earlier) }
                } else if state.segmentGraph != nil {
                    try recordSegmentGraphUses(of: used, state: state)
                }
            }
        }
    }

    /// Records that the shared instance being made uses `entry` (so that replacing or resetting `entry`
    /// discards it); throws when that would make a longer-lived instance keep a scope's instance (`scoped`: `entry`
    /// is a `.scoped` registration, kept in a scope's slot, asked for as `key`).
    @inline(never)
    func recordDependency(
        _ entry: EntryReference, scoped: Bool = false, key: ServiceKey? = nil, state: ResolutionState
    ) throws {
        guard let builder = state.fields.pointee.sharedBuilds.last, !(builder === entry) else { return }
        if scoped, builder._withUnsafeGuaranteedRef({ $0.lookupConfiguration.policy }) != .perScope {
            let key =
                key ?? ServiceKey(serviceType: entry.object.serviceType, argumentsType: entry.object.argumentsType)
            throw capturedScopedService(key, holder: builder, state: state)
        }
        // Recorded between registrations: a scope's instance made with `entry` is discarded through its
        // registration's discard count, which its slot compares (see ``SlotState/refresh(current:)``).
        let recorded = entry._withUnsafeGuaranteedRef { entry in
            builder._withUnsafeGuaranteedRef { builder in entry.addDependent(builder) }
        }
        if !recorded {
            // `entry` was replaced or removed after this resolve found it: what is being built with it is stale.
            builder.object.discardInstanceAndDependents()
        }
    }

    /// Notes on the record of `entry`'s instance in the current graph, just kept, that its build used what the log
    /// of uses holds from `first` on.
    @inline(never)
    func noteUses(of entry: EntryReference, from first: Int, state: ResolutionState) {
        let fields = state.fields
        guard let graph = fields.pointee.graph, let index = madeIndex(of: entry, in: graph, state: state) else {
            return
        }
        fields.pointee.made.setUses(at: index, from: first)
    }
}

/// A type forwarded to another container's registration (`child.forward(Store.self, to: parentsFileStoreEntry)`)
/// resolves what that type would resolve forwarded in the registration's own container: the decorated copy its
/// owner published in place of it (see `DecoratedCopies.swift`), or this container's own decorated copy of that.
///
/// The forward stores the owner's latest copy, and the owner keeps (weakly) the containers that forward to its
/// registrations: when it publishes a decorated copy later, it tells them after letting go of its lock, and each
/// moves the forwarded types that still hold what it replaced onto the copy.
///
/// Kept in each container's ``RegistrationRecord``, apart from its ``CompositionTable``: forwarding to another
/// container's registration makes no composition table in either container, so that neither takes the composed
/// path of `add` (see `Container+ComposedAdd.swift`) for what it registers later. The owner makes one when it
/// declares a decorator, the forwarding container when it is told of a copy. Guarded by the container's lock.
final class ForeignForwards {
    /// The containers that store this container's registrations under types they forward.
    private(set) var holders: [ContainerReference] = []
    /// The types this container forwards to another container's registration, with the serial of the registration
    /// stored (not the registration: a key given something else since would keep it).
    private var forwarded: [ServiceKey: UInt64] = [:]

    /// Adds `holder` to the containers told of this container's decorated copies, forgetting those that are gone.
    func addHolder(_ holder: ContainerReference) {
        guard !holders.contains(where: { $0 === holder }) else { return }
        holders.removeAll { $0.container == nil }
        holders.append(holder)
    }

    /// Notes that `key` forwards to `entry`, another container's registration (or its decorated copy).
    func noteForwarded(_ key: ServiceKey, to entry: _ServiceEntryBase) {
        forwarded[key] = entry.serial
    }

    /// The keys that forward to `entry`.
    func keys(forwardingTo entry: _ServiceEntryBase) -> [ServiceKey] {
        forwarded.compactMap { $0.value == entry.serial ? $0.key : nil }
    }
}

extension Container {
    /// This container's ``ForeignForwards``, made on first need; the caller holds `lock`.
    private func foreignForwardsLocked() -> ForeignForwards {
        let record = registrationRecordLocked()
        if let foreign = record.foreignForwards { return foreign }
        let made = ForeignForwards()
        record.foreignForwards = made
        return made
    }

    /// Forwards `type` (under `name`) to `service`, a registration of `owner`, another container: to the owner's
    /// latest decorated copy of it, again while the owner publishes a later one meanwhile (see
    /// ``forwardHere(_:name:to:)``).
    func forward<Type, Service>(
        _ type: Type.Type,
        name: String?,
        to service: ServiceEntry<Service>,
        ownedBy owner: Container
    ) {
        let key = ServiceKey(serviceType: type, argumentsType: service.argumentsType, name: name)
        let (foreign, reference) = lock.withLock {
            (foreignForwardsLocked(), referenceLocked(in: registrationRecordLocked()))
        }
        // Told first, so that a copy the owner publishes from now on is not missed.
        owner.lock.withLock { owner.foreignForwardsLocked().addHolder(reference) }
        var target = owner.latestCopy(of: service) ?? service
        while true {
            lock.withLock { foreign.noteForwarded(key, to: target) }
            forwardHere(type, name: name, to: target)
            guard let later = owner.latestCopy(of: service), later !== target else { return }
            target = later
        }
    }

    /// The latest decorated copy this container published in place of `entry`, if any.
    func latestCopy<Service>(of entry: ServiceEntry<Service>) -> ServiceEntry<Service>? {
        lock.withLock { compositions?.publishedCopy(of: entry) } as? ServiceEntry<Service>
    }

    /// Tells the containers that forward types to this container's registrations that `copy` was published in
    /// place of `entry`; called after the lock is let go.
    func tellForeignHolders<Service>(of entry: ServiceEntry<Service>, copy: ServiceEntry<Service>) {
        let holders = lock.withLock { registrationRecord?.foreignForwards?.holders ?? [] }
        for holder in holders {
            holder.withContainer { $0.followForeignCopy(of: entry, copy: copy) }
        }
    }

    /// Another container published `copy` in place of `entry`, its registration: the types this container forwards
    /// to `entry` resolve `copy` from now on (or this container's own decorated copy of it), unless their key was
    /// given something else since.
    private func followForeignCopy<Service>(of entry: ServiceEntry<Service>, copy: ServiceEntry<Service>) {
        let keys = lock.withLock { registrationRecord?.foreignForwards?.keys(forwardingTo: entry) ?? [] }
        for key in keys {
            // A decorated forward (this container decorates the type) reaches the registration under a key of its
            // own, which follows instead.
            let (stored, current, mine) = lock.withLock {
                let forward = services[key]?.isDecoratedForward == true
                let stored = forward ? forwardedKey(of: key, to: nil) : key
                return (stored, services[stored], compositions?.publishedCopy(of: entry))
            }
            guard let current, current === entry || current === mine else { continue }
            lock.withLock {
                registrationRecord?.foreignForwards?.noteForwarded(key, to: copy)
                // The key is moved onto the copy only in place of what was read (see ``Placements``), which the
                // composition table checks: made here for a container that has none.
                if compositions == nil { compositions = CompositionTable() }
            }
            _ = add(copy, under: stored, inPlaceOf: current, if: true)
        }
    }
}

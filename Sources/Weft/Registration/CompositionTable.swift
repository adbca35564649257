/// What one container keeps for the registrations that are composed of others: its decorators, by the key of the
/// service they decorate, and its collections, by the key of the collection. Made on the first `decorate` or
/// `contribute`, so that a container that uses neither holds nil; guarded by its container's lock.
///
/// Nothing here runs on the resolve path. Decorators wrap factories when a registration is published (here, from
/// ``Container/add(_:as:key:)``, for a registration made after the decorator, or from
/// ``Container/decorate(_:name:decorator:)`` for one made before), and a collection is a registration whose
/// factory resolves the elements its ``CollectionBook``s list: resolving a decorated service or a collection takes
/// the engine's ordinary path.
final class CompositionTable {
    /// The decorators of each service key, in declaration order: ``Decorator`` instances of the key's type.
    private var decorators: [ServiceKey: [AnyObject]] = [:]
    /// The contributions made in this container to each collection, by the collection's key.
    private var books: [ServiceKey: CollectionBook] = [:]
    /// For a container with a parent: how it decorates an ancestor's registration under a key its decorators of
    /// each key apply to (see `InheritedDecoration.swift`).
    private var inheritedDecorations: [ServiceKey: (Container, ServiceKey) -> Void] = [:]
    /// The keys under which this container holds a decorated copy (or forward) of an ancestor's registration, with
    /// that registration's ``_ServiceEntryBase/serial``.
    private var inheritedSources: [ServiceKey: UInt64] = [:]
    /// Decorated copies (or forwards) of ancestors' registrations about to be added, with their sources' serials
    /// and tickets: adding one records its source in the same hold of the lock that publishes it (see
    /// ``noteAdded(_:key:current:)``). By copy, key and thread: one copy is added under several keys (the service's,
    /// the types forwarded to it, the key a decorated forward reaches it by), by several threads at once, and each
    /// addition must find its own source and ticket, not another's.
    private var pendingCopies: [Placements.Placement: (source: UInt64, ticket: UInt64)] = [:]
    /// The last ticket given (see ``takeTicket()``); 0 while this container decorated no ancestor's registration.
    private var tickets: UInt64 = 0
    /// The ticket of what each key last received: a copy's, or the last ticket given when the container's own
    /// registration or a removal came.
    private var publishedTickets: [ServiceKey: UInt64] = [:]
    /// Whether this container's ancestors tell it what they register and remove.
    private var watchesAncestors = false
    /// The descendants with decorators, told what this container registers and removes.
    private var decoratingDescendants: [ContainerReference] = []
    /// What they are still to be told (see ``pendingNotices()``).
    private var notices: [DescendantsNotice] = []
    /// The decorated copy this container published in place of each registration (its own, or an ancestor's), by
    /// the serial of the registration it copies: a type forwarded to that registration resolves the copy (see
    /// ``publishedCopy(of:)``).
    private var publishedCopies: [UInt64: _ServiceEntryBase] = [:]
    /// Decorated copies about to be added, with the registration each is published in place of (see
    /// ``expectCopyInPlace(_:of:)``).
    private var pendingPublishedCopies: [ObjectIdentifier: _ServiceEntryBase] = [:]
    /// The registrations about to be added only in place of what their makers read, and the verdicts they wait for.
    var placements = Placements()
    /// What decorated copies moved out from under forwarded types, to retire once the lock is let go (see
    /// ``Container/retireMovedOut()``).
    var movedOut: [(entry: _ServiceEntryBase, unused: Bool, owned: Bool)] = []
    /// The decorated forwards `add` replaced, each with the registration it reached, whose scope it stops following
    /// once the lock is let go (see ``Container/retireMovedOut()``).
    var unfollowing: [(target: any ForwardTarget, follower: _ServiceEntryBase)] = []

    // MARK: Decorators

    /// Adds `decorator` after those of `key`.
    func addDecorator(_ decorator: AnyObject, for key: ServiceKey) {
        decorators[key, default: []].append(decorator)
    }

    /// The decorators of `key`, in declaration order.
    func decorators(for key: ServiceKey) -> [AnyObject] {
        decorators[key] ?? []
    }

    /// Whether `key` has decorators here.
    func hasDecorators(for key: ServiceKey) -> Bool {
        decorators[key] != nil
    }

    /// Wraps the factory of `entry`, a new registration about to be published under `key`, in this container's
    /// decorators of `key` (of its type and name, for a registration with runtime arguments). Only a registration
    /// made for the key's own type is decorated here (a forwarded type gets a decorated forward, see
    /// `Container+ForwardDecoration.swift`); one already decorated (a decorated copy the container made itself)
    /// is left as it is. Wrapping runs no user code: the container's lock may be held.
    func decorate<Service>(_ entry: ServiceEntry<Service>, key: ServiceKey) {
        guard !decorators.isEmpty, entry.decoratorCount == 0, !key.hasOption, key.serviceType == Service.self
        else { return }
        // A registration with runtime arguments is decorated by the decorators of its type and name.
        let decorated =
            key.argumentsType == noArguments
            ? key : ServiceKey(serviceType: key.serviceType, argumentsType: noArguments, name: key.name)
        guard let found = decorators[decorated] else { return }
        entry.wrapFactory(in: found.compactMap { $0 as? Decorator<Service> })
    }

    // MARK: Decorated copies and forwarded types

    /// Notes that `copy`, about to be added, is a decorated copy of `original` (a registration of this container,
    /// or of an ancestor) published in its place: adding it moves the types forwarded to `original` here onto it
    /// in the same hold of the lock.
    func expectCopyInPlace(_ copy: _ServiceEntryBase, of original: _ServiceEntryBase) {
        pendingPublishedCopies[ObjectIdentifier(copy)] = original
    }

    /// `entry`, about to be added under `key`, is added as `copy`, the decorated copy that took over from it (see
    /// ``publishedCopy(of:)``): what was expected of `entry` is expected of `copy`, a copy of an ancestor's
    /// registration with its ticket (else `copy` would be taken for the container's own registration). Returns
    /// whether `entry`'s maker awaits a verdict (see ``Placements/redirect(_:to:under:)``).
    func redirect(_ entry: _ServiceEntryBase, to copy: _ServiceEntryBase, under key: ServiceKey) -> Bool {
        if !pendingCopies.isEmpty, let pending = pendingCopies.removeValue(forKey: Placements.Placement(entry, key)) {
            pendingCopies[Placements.Placement(copy, key)] = pending
        }
        return placements.redirect(entry, to: copy, under: key)
    }

    /// Notes that `copy` is not added under `key`.
    private func refuse(_ copy: _ServiceEntryBase, under key: ServiceKey) {
        pendingPublishedCopies[ObjectIdentifier(copy)] = nil
        placements.refuse(copy, under: key)
    }

    /// The registration `copy` is a decorated copy of, when it is one expected by ``expectCopyInPlace(_:of:)``, which
    /// is from now on what forwarded types of that registration resolve, and the copy it takes over from (made
    /// with fewer decorators, or by another thread at the same time).
    func takeCopyInPlace(_ copy: _ServiceEntryBase) -> (original: _ServiceEntryBase, previous: _ServiceEntryBase?)? {
        guard !pendingPublishedCopies.isEmpty,
            let original = pendingPublishedCopies.removeValue(forKey: ObjectIdentifier(copy))
        else { return nil }
        let previous = publishedCopies.updateValue(copy, forKey: original.serial)
        // A forward to the copy taken over from, made meanwhile, is led on to this one (see `publishedCopy(of:)`).
        if let previous, previous !== copy { publishedCopies[previous.serial] = copy }
        return (original, previous)
    }

    /// Notes that the container now holds under `key` a copy it moved there (see
    /// ``Container/moveForwardsLocked(to:replacing:reference:)``): the descendants that decorate are told.
    func noteMoved(to key: ServiceKey) {
        placements.noteWritten(under: key)
        guard !decoratingDescendants.isEmpty, !key.hasOption else { return }
        notices.append(DescendantsNotice(descendants: decoratingDescendants, key: key))
    }

    /// The latest decorated copy published in place of `entry` (of the copy of it, for several decorators declared
    /// after it, or of the copy made with fewer of them), which a type forwarded to `entry` resolves: the decorated
    /// instance is the service's instance, whatever type asks for it. Nil when `entry` was not replaced by a copy.
    func publishedCopy(of entry: _ServiceEntryBase) -> _ServiceEntryBase? {
        guard !publishedCopies.isEmpty, var copy = publishedCopies[entry.serial] else { return nil }
        while let later = publishedCopies[copy.serial] { copy = later }
        return copy
    }

    /// Whether this container published a decorated copy in place of a registration.
    var hasCopies: Bool { !publishedCopies.isEmpty }

    /// Forgets the decorated copies this container published (``Container/removeAll()`` removed them).
    func forgetPublishedCopies() {
        publishedCopies = [:]
        placements.forgetApplied()
        placements.noteAllRemoved()
    }

    // MARK: Decorating ancestors' registrations

    /// Notes that this container, which `reference` refers to, decorates `serviceType` under the decorators of
    /// `key`, ancestors' registrations included; returns `reference` when its ancestors are not told yet to tell it
    /// what they register.
    func decoratesInherited<Service>(
        _ serviceType: Service.Type,
        for key: ServiceKey,
        reference: ContainerReference
    ) -> ContainerReference? {
        if inheritedDecorations[key] == nil {
            inheritedDecorations[key] = { container, key in container.decorateInherited(serviceType, key: key) }
        }
        defer { watchesAncestors = true }
        return watchesAncestors ? nil : reference
    }

    /// How this container decorates an ancestor's registration under a key of the decorators of `key`.
    func inheritedDecoration(for key: ServiceKey) -> ((Container, ServiceKey) -> Void)? {
        inheritedDecorations[key]
    }

    /// The serial of the ancestor's registration this container holds a decorated copy of under `key`, if any.
    func inheritedSource(of key: ServiceKey) -> UInt64? {
        inheritedSources.isEmpty ? nil : inheritedSources[key]
    }

    /// A ticket for a decorated copy of an ancestor's registration, taken before the registration is read: of two
    /// copies made at once under one key by different threads, the one with the later ticket read the ancestors
    /// later, and the other is not published after it (it would put back what the ancestors replaced).
    func takeTicket() -> UInt64 {
        tickets += 1
        return tickets
    }

    /// Notes that `copy`, about to be added under `key` by the calling thread, is a decorated copy (or forward) of
    /// the ancestor's registration whose serial is `source`, made with `ticket`.
    func expectInheritedCopy(_ copy: _ServiceEntryBase, under key: ServiceKey, of source: UInt64, ticket: UInt64) {
        pendingCopies[Placements.Placement(copy, key)] = (source, ticket)
    }

    /// Forgets the decorated copies of ancestors' registrations (the container removed its registrations);
    /// returns how it decorates them, by decorator key, to make them anew.
    func forgetInherited() -> [ServiceKey: (Container, ServiceKey) -> Void] {
        inheritedSources = [:]
        return inheritedDecorations
    }

    /// Adds `descendant` to those told what this container registers, forgetting those that are gone.
    func addDecoratingDescendant(_ descendant: ContainerReference) {
        decoratingDescendants.removeAll { $0.container == nil }
        decoratingDescendants.append(descendant)
    }

    /// Decorates `entry`, a registration about to be published under `key` (see ``decorate(_:key:)``), and notes
    /// that it is: a decorated copy of an ancestor's registration is remembered as one, with its source, at once
    /// (a decorator declared meanwhile must not take it for the container's own registration); one the container
    /// itself adds there is no longer a copy; and the descendants that decorate are to be told (see
    /// ``pendingNotices()``).
    /// Returns false, and notes nothing, for a copy that is not to be published: one made from an earlier reading
    /// of the ancestors than what `key` already received, or one that would replace the container's own
    /// registration `current` under `key`, which a copy made while that registration was being added can find;
    /// nor a registration expected in place of what `current` no longer is (see ``Placements``).
    func noteAdded<Service>(_ entry: ServiceEntry<Service>, key: ServiceKey, current: _ServiceEntryBase?) -> Bool {
        guard placements.admits(entry, under: key, current: current) else {
            refuse(entry, under: key)
            return false
        }
        if !pendingCopies.isEmpty, let pending = pendingCopies.removeValue(forKey: Placements.Placement(entry, key)) {
            let stale =
                (current != nil && inheritedSources[key] == nil)
                || publishedTickets[key].map { $0 > pending.ticket } ?? false
            if stale {
                refuse(entry, under: key)
                return false
            }
            publishedTickets[key] = pending.ticket
            inheritedSources[key] = pending.source
        } else {
            if !inheritedSources.isEmpty { inheritedSources[key] = nil }
            // A copy being made meanwhile does not replace the container's own registration.
            if tickets > 0 { publishedTickets[key] = tickets }
        }
        if entry.owner == nil { decorate(entry, key: key) }
        placements.noteWritten(under: key)
        guard !decoratingDescendants.isEmpty, !key.hasOption else { return true }
        notices.append(DescendantsNotice(descendants: decoratingDescendants, key: key))
        return true
    }

    /// Notes that the ancestors held nothing under `key` when read after `ticket` was taken: a copy made from an
    /// earlier reading is refused from now on. Returns the source of the inherited copy this container holds there
    /// from such an earlier reading, which the caller removes; nil when there is none, or when a later reading
    /// already decided what `key` holds.
    func noteNothingInherited(under key: ServiceKey, ticket: UInt64) -> UInt64? {
        if let published = publishedTickets[key], published > ticket { return nil }
        publishedTickets[key] = ticket
        return inheritedSources.isEmpty ? nil : inheritedSources[key]
    }

    /// Whether descendants that decorate are told what this container registers and removes.
    var tellsDescendants: Bool { !decoratingDescendants.isEmpty }

    /// Notes that this container no longer stores anything under `key`: it holds no decorated copy of an
    /// ancestor's registration there, and the descendants that decorate are to be told (their copy of what was
    /// there, or of what it shadowed, follows what they now inherit).
    func noteRemoved(_ key: ServiceKey) {
        if !inheritedSources.isEmpty { inheritedSources[key] = nil }
        // A copy being made meanwhile, of what the ancestors had before, does not come back.
        if tickets > 0 { publishedTickets[key] = tickets }
        guard !decoratingDescendants.isEmpty, !key.hasOption else { return }
        notices.append(DescendantsNotice(descendants: decoratingDescendants, key: key))
    }

    /// What the descendants that decorate are still to be told, in the order it was registered, for the container
    /// to tell them once it has let go of its lock. A notice stays until ``told(_:)``: the thread that queued it
    /// tells it too even when another thread is telling it, so that the descendants have followed a registration
    /// or removal by the time the call that made it returns.
    func pendingNotices() -> [DescendantsNotice] {
        notices
    }

    /// Forgets `delivered`, whose descendants have been told.
    func told(_ delivered: [DescendantsNotice]) {
        notices.removeAll { notice in delivered.contains { $0 === notice } }
    }

    // MARK: Collections

    /// The book of the collection `key` in this container, if something was contributed to it here.
    func book(for key: ServiceKey) -> CollectionBook? {
        books[key]
    }

    /// Keeps `book` as this container's book of the collection `key`.
    func setBook(_ book: CollectionBook, for key: ServiceKey) {
        books[key] = book
    }

    /// Forgets every collection (``Container/removeAll()`` removes their registrations).
    func removeCollections() {
        books = [:]
    }
}

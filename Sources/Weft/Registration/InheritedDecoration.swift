/// A child's decorators of a service its ancestors register: the child holds a decorated copy of the ancestor's
/// registration (or a decorated forward, for a forwarded type), with instances of its own, so that the ancestor's
/// resolves stay undecorated. The types the ancestors forward to that registration resolve the copy in the child
/// too (see ``Container/shareInheritedCopy(_:of:ticket:)``): the child's decorated instance is the service's.
///
/// Within one container a decorator applies to a registration made before it or after it; so it does for an ancestor's.
/// An ancestor keeps (weakly) the descendants that decorate and tells them, after it lets go of its lock, each key it
/// registers under or removes; a descendant that decorates that key and does not register it itself makes its copy anew
/// from the registration it now inherits, or removes its copy when it inherits none (a decorated copy must not keep a
/// service its ancestors no longer have). Nothing of this runs on a resolve, and a container without decorating
/// descendants pays one check of its composition table per registration.
extension Container {
    /// Makes this container's decorators of `serviceType` apply to the registration under `key` it inherits from
    /// its ancestors: a decorated copy of it (or a decorated forward to it) is published here, and remembered as
    /// inherited, so that a later registration of an ancestor under `key` replaces it.
    func decorateInherited<Service>(_ serviceType: Service.Type, key: ServiceKey) {
        guard let parent else { return }
        let decoratorKey = ServiceKey(serviceType: key.serviceType, argumentsType: noArguments, name: key.name)
        // The decorators and the ticket in one hold of the lock: a decorator added after them takes a later ticket,
        // so the copy made with it is not replaced by this one.
        var (decorators, ticket) = decoratorsAndTicket(Service.self, key: decoratorKey)
        guard !decorators.isEmpty else { return }
        // Again when an ancestor registered under `key` meanwhile: its notice may have come before this container's
        // copy was published.
        var inherited = parent.entry(for: key)
        while let source = inherited {
            if source.serviceType != serviceType {
                addDecoratedForward(serviceType, key: key, to: source, inheritedTicket: ticket)
            } else if let source = source as? ServiceEntry<Service> {
                let copy = publishDecoratedCopy(of: source, with: decorators, key: key, inheritedTicket: ticket)
                if let copy { shareInheritedCopy(copy, of: source, ticket: ticket) }
                // A copy of an ancestor's decorated forward reaches what this container has under the target's key.
                if copy != nil, source.isDecoratedForward { shareDecoratedForward(under: key, ticket: ticket) }
            } else {
                return
            }
            (decorators, ticket) = decoratorsAndTicket(Service.self, key: decoratorKey)
            inherited = parent.entry(for: key)
            if inherited === source { return }
        }
        // The ancestors hold nothing under `key` as of `ticket`: a copy made from an earlier reading, published
        // meanwhile or still to come, must not keep a registration they removed.
        let stale: UInt64? = lock.withLock { compositions?.noteNothingInherited(under: key, ticket: ticket) }
        if let stale { removeInheritedCopy(under: key, of: stale) }
    }

    /// Stores `copy`, this container's decorated copy of `source` (an ancestor's registration), under the types
    /// its ancestors forward to `source` that this container holds nothing under, as an inherited copy: this
    /// container's resolves of a forwarded type get its decorated instance, as those of the service do, and the
    /// copy follows what the ancestors forward (see ``followForwarded(_:)``).
    func shareInheritedCopy<Service>(_ copy: ServiceEntry<Service>, of source: _ServiceEntryBase, ticket: UInt64) {
        var forwarded: [ServiceKey] = []
        var decoratedForwards: [ServiceKey] = []
        var ancestor = parent
        while let current = ancestor {
            current.lock.withLock {
                forwarded += current.services.keys { key, entry in entry === source && !key.hasOption }
                let forwards = current.services.keys { key, entry in !key.hasOption && entry.isDecoratedForward }
                decoratedForwards += forwards.filter {
                    current.services[current.forwardedKey(of: $0, to: nil)] === source
                }
            }
            ancestor = current.parent
        }
        // A registration of this container's own, or its decorated forward, stays; so does a nearer ancestor's.
        for key in forwarded where parent?.entry(for: key) === source && ownEntry(for: key) == nil {
            lock.withLock { compositions?.expectInheritedCopy(copy, under: key, of: source.serial, ticket: ticket) }
            add(copy, as: Service.self, key: key, quietly: true)
        }
        for key in decoratedForwards { shareDecoratedForward(under: key, ticket: ticket) }
    }

    /// When the nearest ancestor that stores `key` holds a decorated forward there (it decorates a type it forwards
    /// to a registration), makes this container resolve `key` through that forward's decorators around its own
    /// decorated copy of the registration forwarded to, when it has one: the copy is stored under the key the
    /// forward reaches its target by, and a copy of the forward (with instances of its own) under `key`, unless
    /// this container holds a registration of its own there, or a decorated copy of that forward already (its own
    /// decorators of `key` on top). The copy of the target itself, stored under `key` while the ancestors forwarded
    /// `key` to the target undecorated (see ``shareInheritedCopy(_:of:ticket:)``, which may read them before they
    /// decorate `key` and store it after), gives way to the forward. Without a copy of the target, what it stored
    /// under the target's key goes: the forward then reaches the ancestor's registration, as in the ancestor.
    func shareDecoratedForward(under key: ServiceKey, ticket: UInt64) {
        guard let parent, let forward = parent.entry(for: key) as? any ForwardTarget, forward.isDecoratedForward
        else { return }
        let targetKey = forwardedKey(of: key, to: nil)
        let target = parent.entry(for: targetKey)
        let (copy, own, ownSource, targetSource) = lock.withLock {
            (
                target.flatMap { compositions?.publishedCopy(of: $0) }, services[key],
                compositions?.inheritedSource(of: key), compositions?.inheritedSource(of: targetKey)
            )
        }
        // A registration of this container's own, or a forward of its own, stays.
        guard own == nil || ownSource != nil else { return }
        guard let target, let copy = copy as? any ForwardTarget else {
            if let targetSource { removeInheritedCopy(under: targetKey, of: targetSource) }
            return
        }
        // The target first: a forward resolved before it is there would keep the ancestor's instance.
        lock.withLock {
            compositions?.expectInheritedCopy(
                copy as _ServiceEntryBase, under: targetKey, of: target.serial, ticket: ticket)
        }
        copy.addQuietly(to: self, under: targetKey)
        if own == nil || own === copy { forward.publishInheritedCopy(in: self, under: key, ticket: ticket) }
    }

    /// After ``removeAll()``: this container's decorators, which it keeps, apply again to the registrations it
    /// inherits, as to one it registers anew.
    func redecorateInherited() {
        guard let parent else { return }
        let decorations = lock.withLock { compositions?.forgetInherited() ?? [:] }
        guard !decorations.isEmpty else { return }
        for key in parent.allRegistrations().keys where !key.hasOption {
            let decoratorKey = ServiceKey(serviceType: key.serviceType, argumentsType: noArguments, name: key.name)
            decorations[decoratorKey]?(self, key)
        }
    }

    /// This container's decorators of `key` and a ticket for a decorated copy of an ancestor's registration made
    /// with them (see ``CompositionTable/takeTicket()``), read in one hold of the lock.
    private func decoratorsAndTicket<Service>(
        _ serviceType: Service.Type,
        key: ServiceKey
    ) -> (decorators: [Decorator<Service>], ticket: UInt64) {
        let (all, ticket) = lock.withLock {
            (compositions?.decorators(for: key) ?? [], compositions?.takeTicket() ?? 0)
        }
        return (all.compactMap { $0 as? Decorator<Service> }, ticket)
    }

    /// Whether this container holds, under `key`, a decorated copy of an ancestor's registration.
    func inherits(_ key: ServiceKey) -> Bool {
        lock.withLock { compositions?.inheritedSource(of: key) != nil }
    }

    /// Asks the ancestors to tell this container, which `reference` refers to, what they register.
    func watchAncestors(_ reference: ContainerReference) {
        var ancestor = parent
        while let current = ancestor {
            current.lock.withLock {
                let table = current.compositions ?? CompositionTable()
                current.compositions = table
                table.addDecoratingDescendant(reference)
            }
            ancestor = current.parent
        }
    }

    /// Tells the descendants that decorate what this container has registered (see
    /// ``CompositionTable/noteAdded(_:key:current:)``); called after it lets go of its lock.
    func tellDescendants() {
        let notices = lock.withLock { compositions?.pendingNotices() ?? [] }
        guard !notices.isEmpty else { return }
        for notice in notices { notice.tell() }
        lock.withLock { compositions?.told(notices) }
    }

    /// An ancestor registered or removed what it stored under `key`: when this container decorates that key and
    /// does not register it itself, its decorated copy is made anew from the registration it now inherits, or
    /// removed when it inherits none.
    fileprivate func ancestorChanged(_ key: ServiceKey) {
        let decoratorKey = ServiceKey(serviceType: key.serviceType, argumentsType: noArguments, name: key.name)
        let (decorate, source) = lock.withLock {
            (compositions?.inheritedDecoration(for: decoratorKey), compositions?.inheritedSource(of: key))
        }
        guard let decorate else {
            followForwarded(key)
            return
        }
        if let source {
            let inherited = parent?.entry(for: key)
            // Unchanged for this container when a nearer ancestor's registration still shadows the new one.
            if inherited?.serial == source { return }
            if inherited == nil {
                removeInheritedCopy(under: key, of: source)
                // Again when an ancestor registered under `key` meanwhile: its notice may have come while the copy
                // was still here, and found it the copy of a registration it replaced.
                guard parent?.entry(for: key) != nil else { return }
            }
        } else if ownEntry(for: key) != nil {
            return
        }
        decorate(self, key)
    }
}

extension Container {
    /// An ancestor registered or removed what it stored under `key`, a key this container has no decorators of:
    /// a type the ancestors forward to a registration this container holds a decorated copy of resolves that copy
    /// here (see ``shareInheritedCopy(_:of:ticket:)``); one this container holds under `key` goes once the ancestors'
    /// `key` no longer resolves the registration it is a copy of.
    fileprivate func followForwarded(_ key: ServiceKey) {
        guard !key.hasOption else { return }
        // What `key` holds and the ticket (see ``CompositionTable/takeTicket()``) in one hold of the lock, before
        // the ancestors are read: a copy another thread stores there meanwhile is not taken for a registration of
        // this container's own, and one stored from an earlier reading of the ancestors is refused.
        let read: (ticket: UInt64, source: UInt64?, own: Bool)? = lock.withLock {
            guard let table = compositions else { return nil }
            let source = table.inheritedSource(of: key)
            guard source != nil || table.hasCopies else { return nil }
            return (table.takeTicket(), source, source == nil && services[key] != nil)
        }
        guard let (ticket, source, own) = read, !own else { return }
        let inherited = parent?.entry(for: key)
        if let source {
            if inherited?.serial == source { return }
            removeInheritedCopy(under: key, of: source)
            // The removal refuses every copy made with a ticket given so far (see ``CompositionTable/noteRemoved(_:)``),
            // another thread's included: what takes the removed copy's place is made with a later one, from the
            // ancestors read again.
            followForwarded(key)
            return
        }
        if inherited?.isDecoratedForward == true {
            shareDecoratedForward(under: key, ticket: ticket)
            return
        }
        guard let inherited, let copy = lock.withLock({ compositions?.publishedCopy(of: inherited) }),
            let copy = copy as? any ForwardTarget
        else { return }
        lock.withLock {
            compositions?.expectInheritedCopy(
                copy as _ServiceEntryBase, under: key, of: inherited.serial, ticket: ticket)
        }
        copy.addQuietly(to: self, under: key)
    }
}

extension Container {
    /// After `add` stored under `key` something other than a decorated copy of an ancestor's registration in place
    /// of `replaced`, a decorated forward: when that forward was a copy of an ancestor's (see
    /// ``shareDecoratedForward(under:ticket:)``), this container's decorated copy of its target, stored under the
    /// key the forward reached it by, is no longer reached by anything, and goes (retired by ``retireMovedOut()``,
    /// as `add` retires what it replaced). The caller holds `lock`.
    ///
    /// Returns the registration `replaced` reached, whose scope it followed, when `entry` is no decorated forward
    /// (one stores its own target first): it stops following in ``retireMovedOut()``, once the lock is let go (see
    /// ``noteAddedLocked(_:key:in:reference:)``).
    func leaveForwardLocked(
        of key: ServiceKey, replacing replaced: _ServiceEntryBase, by entry: _ServiceEntryBase,
        reference: ContainerReference
    ) -> _ServiceEntryBase? {
        guard replaced.isDecoratedForward, !key.hasOption, let compositions,
            compositions.inheritedSource(of: key) == nil
        else { return nil }
        let targetKey = forwardedKey(of: key, to: nil)
        let reached = entry.isDecoratedForward ? nil : services[targetKey]
        guard compositions.inheritedSource(of: targetKey) != nil, let target = services.removeValue(forKey: targetKey)
        else { return reached }
        // A copy of the target made from an earlier reading of the ancestors, still to come, is refused.
        _ = compositions.takeTicket()
        compositions.noteRemoved(targetKey)
        compositions.placements.noteWritten(under: targetKey)
        let owned = target.owner === reference
        if owned { target.keyCount -= 1 }
        let unused = owned ? target.keyCount == 0 : !services.contains(target)
        compositions.movedOut.append((target, unused: unused, owned: owned))
        return reached
    }
}

/// What a container tells its decorating descendants once it has registered or removed what it stored under `key` (see
/// ``CompositionTable/noteAdded(_:key:current:)`` and ``CompositionTable/noteRemoved(_:)``), after it lets go of its
/// lock.
final class DescendantsNotice {
    let descendants: [ContainerReference]
    let key: ServiceKey

    init(descendants: [ContainerReference], key: ServiceKey) {
        (self.descendants, self.key) = (descendants, key)
    }

    func tell() {
        for descendant in descendants {
            descendant.withContainer { $0.ancestorChanged(key) }
        }
    }
}

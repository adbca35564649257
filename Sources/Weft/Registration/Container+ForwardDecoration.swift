/// Decorators of forwarded types: `decorate(Animal.self)` applies to `Animal` when it is resolved through
/// `register(Cat.self).implements(Animal.self)` (or `forward`).
///
/// The registration of `Cat` stays as it is: resolving `Cat` gives the undecorated instance. `Animal` gets a
/// registration of its own, a *decorated forward*, whose factory resolves the `Cat` registration (under a key
/// told apart by a ``ForwardedOption``, so that the two share `Cat`'s instances as a plain forward does) and
/// whose decorators wrap what it returns. Its scope is `Cat`'s and follows it (``ScopeFollowing``): a
/// `.container` `Cat` gives one decorated `Animal` around the one `Cat`, kept as a singleton.
extension Container {
    /// Whether this container has decorators of `key`; false at once for a container that never decorated.
    func hasDecorators(for key: ServiceKey) -> Bool {
        lock.withLock { compositions?.hasDecorators(for: key) ?? false }
    }

    /// The key under which the decorated forward of `key` reaches the registration it forwards to.
    func forwardedKey(of key: ServiceKey, to target: Any.Type?) -> ServiceKey {
        ServiceKey(
            serviceType: key.serviceType, argumentsType: key.argumentsType, name: key.name,
            option: ForwardedOption(target: target ?? key.serviceType))
    }

    /// The key under which this container's decorated forward of `key` follows the registration it forwards to:
    /// one per container, so that the forwards of several containers to one registration all follow it.
    func followerKey(of key: ServiceKey) -> ServiceKey {
        ServiceKey(
            serviceType: key.serviceType, argumentsType: key.argumentsType, name: key.name,
            option: FollowerOption(kind: .decoratedForward, container: ObjectIdentifier(self)))
    }

    /// Makes `type` (under `key`) resolve through `target`, the registration of another type, wrapped in this
    /// container's decorators of `key`: `target` is added under the forwarded key, and a decorated forward
    /// under `key` (decorated as it is added). A forward to a registration with runtime arguments takes them and
    /// passes them on; it is decorated by the decorators of its type and name, as that registration would be.
    ///
    /// With `slots`, what the caller read under the two keys, each is added only in place of what it read there;
    /// returns false when either was changed meanwhile (the caller reads again), and puts back what the forwarded
    /// key held when only `key` was, unless the forwarded key was written again since: the registration forwarded
    /// to is shared, and another thread may have written the same one there since, for a forward that stays.
    @discardableResult
    func addDecoratedForward<Type>(
        _ type: Type.Type,
        key: ServiceKey,
        to target: _ServiceEntryBase,
        inheritedTicket: UInt64? = nil,
        inPlaceOf slots: ForwardSlots? = nil
    ) -> Bool {
        guard let target = target as? any ForwardTarget,
            let forward = forwardEntry(type, key: key, to: target as _ServiceEntryBase)
        else { return true }
        let targetKey = forwardedKey(of: key, to: (target as _ServiceEntryBase).serviceType)
        guard add(target, under: targetKey, inPlaceOf: slots?.target, atWrites: slots?.targetWrites, if: slots != nil)
        else { return false }
        forward.isDecoratedForward = true
        let (scope, displaced) = target.followedBy(forward, key: followerKey(of: key))
        forward.inObjectScope(scope)
        // A forward to an ancestor's registration is remembered as inherited as it is published.
        if let ticket = inheritedTicket {
            lock.withLock { compositions?.expectInheritedCopy(forward, under: key, of: target.serial, ticket: ticket) }
        }
        guard let slots else {
            addAwaitingVerdict(forward, key: key, to: target, displacing: displaced, if: inheritedTicket != nil)
            return true
        }
        let added = add(forward, under: key, inPlaceOf: slots.own, if: true)
        // The forward read under `key` no longer resolves, whichever thread replaced it: it stops following the
        // target read with it. A reading made between another thread's writes of the target and of its forward
        // pairs the old forward with that thread's target, which it does not follow; but the first thread to write
        // the target after the forward was published read the forward's own, and stops it here.
        if let previous = slots.target as? any ForwardTarget, let replaced = slots.own, replaced.isDecoratedForward {
            previous.unfollow(replaced, restoring: nil)
        }
        guard added else {
            unfollowRefused(forward, key: key, of: target, displacing: displaced)
            // Only while the forwarded key holds what this call wrote: `target` was admitted at `targetWrites`,
            // which it made one more. A write since, even of the same registration, is another forward's, and stays.
            if let previous = slots.target as? any ForwardTarget, (previous as AnyObject) !== (target as AnyObject) {
                _ = add(previous, under: targetKey, inPlaceOf: target, atWrites: slots.targetWrites + 1, if: true)
            }
            return false
        }
        return true
    }

    /// Adds `forward`, a decorated forward to `target` that took the place of `displaced` among its followers,
    /// under `key`; when `checked` (a forward to an ancestor's registration, which a later reading of the
    /// ancestors may have overtaken), one refused stops following `target`'s scope.
    private func addAwaitingVerdict<Type>(
        _ forward: ServiceEntry<Type>,
        key: ServiceKey,
        to target: any ForwardTarget,
        displacing displaced: (any ScopeFollowing)?,
        if checked: Bool
    ) {
        if checked { lock.withLock { compositions?.placements.awaitVerdict(on: forward, under: key) } }
        add(forward, as: Type.self, key: key)
        guard checked, lock.withLock({ compositions?.placements.takeRefused(forward, under: key) ?? false }) else {
            return
        }
        unfollowRefused(forward, key: key, of: target, displacing: displaced)
    }

    /// A refused forward resolves nothing: it stops following `target`'s scope, giving the place back to the
    /// follower it took it from when that one is the forward `key` holds (another thread's, to the same target).
    private func unfollowRefused(
        _ forward: _ServiceEntryBase, key: ServiceKey, of target: any ForwardTarget,
        displacing displaced: (any ScopeFollowing)?
    ) {
        let live = displaced.flatMap { displaced in ownEntry(for: key) === displaced.followed ? displaced : nil }
        target.unfollow(forward, restoring: live)
    }

    /// Makes `type` (under `key`) resolve through a decorated forward to `target` in place of what `key` holds,
    /// reading again when another thread changes it meanwhile; with `plain`, only as long as `key` holds `plain`
    /// (the undecorated forward a decorator declared meanwhile may not have found).
    func forwardDecorated<Type>(
        _ type: Type.Type,
        key: ServiceKey,
        to target: _ServiceEntryBase,
        onlyInPlaceOf plain: _ServiceEntryBase? = nil
    ) {
        while true {
            let slots = lock.withLock { forwardSlotsLocked(of: key) }
            if let plain, slots.own !== plain { return }
            if addDecoratedForward(type, key: key, to: target, inPlaceOf: slots) { return }
        }
    }

    /// What this container holds under `key` and under the key its decorated forward reaches its target by; the
    /// caller holds `lock`.
    func forwardSlotsLocked(of key: ServiceKey) -> ForwardSlots {
        let targetKey = forwardedKey(of: key, to: nil)
        return ForwardSlots(
            own: services[key], target: services[targetKey],
            targetWrites: compositions?.placements.writes(under: targetKey) ?? 0)
    }

    /// The registration of the decorated forward of `key` to `target`, not yet decorated: its factory resolves
    /// `target` under the forwarded key, with the runtime arguments it receives; nil when `target`'s factory
    /// cannot be forwarded to (one registered by an extension, with its arguments as one value).
    private func forwardEntry<Type>(_ type: Type.Type, key: ServiceKey, to target: _ServiceEntryBase)
        -> ServiceEntry<Type>?
    {
        let name = key.name
        let option: any ServiceKeyOption = ForwardedOption(target: target.serviceType)
        guard key.argumentsType == noArguments else {
            guard let box = target.factory as? any DecoratableFactory else { return nil }
            let forward = ServiceEntry(
                serviceType: type, argumentsType: key.argumentsType,
                factory: box.forwarding(type, name: name, option: option), objectScope: .transient)
            if target.asyncFactory != nil {
                forward.asyncFactory = box.asyncForwarding(type, name: name, option: option)
            }
            return forward
        }
        let forward = ServiceEntry(
            serviceType: type,
            plainFactory: { resolver in
                guard let container = resolver as? Container else {
                    throw ResolutionError.fromInsideFactory(.typeMismatch, serviceType: type)
                }
                return try container.make(Type.self, name: name, option: option)
            },
            objectScope: .transient)
        if target.asyncFactory != nil {
            forward.asyncFactory = TypedAsyncFactory { resolver in
                try await resolver.require(Type.self, name: name, option: option)
            }
        }
        return forward
    }
}

/// What a container holds under a forwarded type's key (`own`) and under the key by which its decorated forward
/// reaches the registration it forwards to (`target`), read in one hold of its lock.
struct ForwardSlots {
    let own: _ServiceEntryBase?
    let target: _ServiceEntryBase?
    /// How many times the key of `target` was written, as of the reading (see ``Placements/writes(under:)``).
    let targetWrites: UInt64
}

/// A registration whose scope another follows: a decorated forward keeps its instances in the scope of the
/// registration it forwards to, and is told when that scope changes.
protocol ScopeFollowing: AnyObject {
    @discardableResult func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self
    /// Whether the follower follows nothing any more (a decorated copy or forward whose container went).
    var isGone: Bool { get }
    /// The registration that follows (a box's content, or the follower itself).
    var followed: AnyObject? { get }
}

extension ScopeFollowing {
    var isGone: Bool { false }
    var followed: AnyObject? { self }
}

/// A decorated forward among the followers of the registration it forwards to, kept weakly: its container keeps
/// it, and a container that goes must not leave it, with the instances it keeps, to that registration.
final class WeakFollower: ScopeFollowing {
    private weak var follower: (any ScopeFollowing)?

    init(_ follower: any ScopeFollowing) {
        self.follower = follower
    }

    var isGone: Bool { follower == nil }
    var followed: AnyObject? { follower }

    @discardableResult
    func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        follower?.inObjectScope(objectScope)
        return self
    }
}

/// What a registration does as the target of a decorated forward, whatever its type.
protocol ForwardTarget: _ServiceEntryBase {
    /// Adds this registration to `container` under `key`.
    func add(to container: Container, under key: ServiceKey)
    /// Adds this registration to `container` under `key` without telling the behaviors (a decorated copy stored
    /// under a type an ancestor forwards, see `InheritedDecoration.swift`).
    func addQuietly(to container: Container, under key: ServiceKey)
    /// Keeps `follower`, the decorated forward of `key` (in place of an earlier one), to set its scope when this
    /// registration's changes; returns the scope now, and the follower it displaced.
    func followedBy(_ follower: any ScopeFollowing, key: ServiceKey)
        -> (scope: any ObjectScopeProtocol, displaced: (any ScopeFollowing)?)
    /// Stops setting the scope of `follower`, a decorated forward that no longer resolves (refused as it was
    /// published, or replaced since), when it still follows this registration; `restoring` takes its place.
    func unfollow(_ follower: AnyObject, restoring: (any ScopeFollowing)?)
    /// Publishes in `container`, a descendant of this registration's container, a copy of this registration under
    /// `key`, as a decorated copy of an ancestor's registration made with `ticket` (see
    /// ``Container/shareDecoratedForward(under:ticket:)``).
    func publishInheritedCopy(in container: Container, under key: ServiceKey, ticket: UInt64)
}

extension ServiceEntry: ScopeFollowing, ForwardTarget {
    func add(to container: Container, under key: ServiceKey) {
        container.add(self, as: Service.self, key: key)
    }

    func addQuietly(to container: Container, under key: ServiceKey) {
        container.add(self, as: Service.self, key: key, quietly: true)
    }

    func publishInheritedCopy(in container: Container, under key: ServiceKey, ticket: UInt64) {
        container.publishDecoratedCopy(of: self, with: [], key: key, inheritedTicket: ticket)
    }

    /// The registration following this one's scope as a decorated forward of `key`, of any container; for tests.
    func scopeFollower(under key: ServiceKey) -> AnyObject? {
        lock.withLock {
            scopeFollowers?.first { entry in
                entry.key.serviceType == key.serviceType && entry.key.argumentsType == key.argumentsType
                    && entry.key.name == key.name && (entry.key.option as? FollowerOption)?.kind == .decoratedForward
            }?.value.followed
        }
    }

    func unfollow(_ follower: AnyObject, restoring: (any ScopeFollowing)?) {
        lock.lock()
        let key = scopeFollowers?.first { $0.value.followed === follower }?.key
        let removed = key.flatMap { key in
            restoring.map { scopeFollowers?.updateValue($0, forKey: key) } ?? scopeFollowers?.removeValue(forKey: key)
        }
        lock.unlock()
        // Released outside the lock: the last reference to a registration releases the instances it keeps.
        withExtendedLifetime(removed) {}
    }

    func followedBy(_ follower: any ScopeFollowing, key: ServiceKey)
        -> (scope: any ObjectScopeProtocol, displaced: (any ScopeFollowing)?)
    {
        lock.lock()
        // Those of containers that went are dropped (see `DecoratedCopy`).
        var followers = (scopeFollowers ?? [:]).filter { !$0.value.isGone }
        let replaced = followers.updateValue(WeakFollower(follower), forKey: key)
        scopeFollowers = followers
        let scope = configuration.scope
        lock.unlock()
        // Released by the caller, outside the lock: the last reference to a registration releases its instances.
        return (scope, replaced)
    }
}

/// Tells apart the key under which a decorated forward reaches the registration it forwards to. All are equal:
/// forwarding the type again replaces the registration under it.
struct ForwardedOption: ServiceKeyOption {
    /// The type of the registration forwarded to, for paths and the dependency graph.
    let target: Any.Type

    var description: String { "forwarded to \(target)" }

    func isEqualTo(_ another: any ServiceKeyOption) -> Bool {
        another is ForwardedOption
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(0x466f_7277)
    }
}

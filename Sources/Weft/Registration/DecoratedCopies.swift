/// A registration that exists when its decorator is declared is replaced by a decorated copy (its factory cannot
/// change once it is published). The `ServiceEntry` that `register` returned stays in the user's hands, so the copy
/// follows it: a scope set or a callback added on the registration afterwards applies to the copy that resolves,
/// as it would have had it been configured before the decorator (see ``Container/decorate(_:name:decorator:)``).
extension Container {
    /// Publishes under `key` a copy of `entry`, which is registered under `key` here or in a parent, wrapped in
    /// `decorators`; the copy follows `entry`'s configuration from now on. `inheritedTicket`, for an ancestor's
    /// registration, is the ticket taken before reading it (see ``CompositionTable/takeTicket()``).
    @discardableResult
    func publishDecoratedCopy<Service>(
        of entry: ServiceEntry<Service>,
        with decorators: [Decorator<Service>],
        key: ServiceKey,
        inheritedTicket: UInt64? = nil
    ) -> ServiceEntry<Service>? {
        guard let copy = entry.decoratedCopy(with: decorators) else { return nil }
        entry.keepFollowing(copy, key: key, in: self)
        lock.withLock {
            if let ticket = inheritedTicket {
                compositions?.expectInheritedCopy(copy, of: entry.serial, ticket: ticket)
            }
            // The types forwarded to `entry` resolve the copy from now on: the decorated instance is the service's
            // instance, whatever type asks for it.
            compositions?.expectCopyInPlace(copy, of: entry)
        }
        add(copy, as: Service.self, key: key)
        return copy
    }

    /// When `copy`, just added, is a decorated copy published in place of a registration (see
    /// ``CompositionTable/expectCopyInPlace(_:of:)``), stores it under the other keys this container holds that
    /// registration (or the copy it takes over from) under: the types forwarded to it, and the key a decorated
    /// forward reaches it under. Every type then resolves the one registration and shares its instances. The
    /// caller holds `lock`; the descendants that decorate are told, as of any registration.
    func moveForwardsLocked<Service>(to copy: ServiceEntry<Service>, reference: ContainerReference) {
        guard let compositions, let (original, previous) = compositions.takeCopyInPlace(copy) else { return }
        let forwarded = services.keys { _, entry in
            entry === original || (entry === previous && entry !== copy)
        }
        for other in forwarded {
            guard let moved = services.updateValue(copy, forKey: other) else { continue }
            if copy.owner === reference { copy.keyCount += 1 }
            if moved.owner === reference { moved.keyCount -= 1 }
            compositions.noteMoved(to: other)
        }
    }
}

/// A decorated copy of a registration, which follows the registration's configuration.
final class DecoratedCopy<Service>: ScopeFollowing, CallbackFollowing {
    let copy: ServiceEntry<Service>

    init(_ copy: ServiceEntry<Service>) {
        self.copy = copy
    }

    @discardableResult
    func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        copy.inObjectScope(objectScope)
        return self
    }

    func followInitCompleted(_ completed: Any) {
        guard let completed = completed as? (any Resolver, Service) throws -> Void else { return }
        copy.initCompleted(completed)
    }
}

/// A follower of a registration's configuration that also takes its `initCompleted` callbacks (a decorated copy;
/// a decorated forward follows the scope alone, its callbacks being those of the registration it resolves).
protocol CallbackFollowing: ScopeFollowing {
    /// Adds `completed`, a callback just added to the registration followed, to the follower's.
    func followInitCompleted(_ completed: Any)
}

/// Tells apart, among a registration's followers, its decorated copy published by one container.
struct DecoratedCopyOption: ServiceKeyOption {
    let container: ObjectIdentifier

    var description: String { "decorated copy" }

    func isEqualTo(_ another: any ServiceKeyOption) -> Bool {
        (another as? DecoratedCopyOption)?.container == container
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(container)
    }
}

extension ServiceEntry {
    /// Makes `copy`, a decorated copy of this registration that `container` is about to publish under `key`,
    /// follow this registration's configuration: its scope and callbacks are taken again, under the lock that
    /// keeps the followers, so that no change made meanwhile is missed.
    func keepFollowing(_ copy: ServiceEntry<Service>, key: ServiceKey, in container: Container) {
        let follower = DecoratedCopy(copy)
        let followerKey = ServiceKey(
            serviceType: key.serviceType, argumentsType: key.argumentsType, name: key.name,
            option: DecoratedCopyOption(container: ObjectIdentifier(container)))
        lock.lock()
        var followers = scopeFollowers ?? [:]
        let replaced = followers.updateValue(follower, forKey: followerKey)
        scopeFollowers = followers
        // The copy's lock inside this one's: the copy is not published yet, and a change of this registration's
        // configuration reaches the copy only after it lets go of this lock.
        copy.lock.withLock {
            (copy.scope, copy.behavior) = (scope, behavior)
            copy.policy = Self.policy(of: behavior)
            (copy.initCompletedActions, copy.hasCallbacks) = (initCompletedActions, hasCallbacks)
        }
        lock.unlock()
        // Released outside the lock: the last reference to a registration releases the instances it keeps.
        withExtendedLifetime(replaced) {}
    }
}

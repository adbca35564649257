/// A registration that exists when its decorator is declared is replaced by a decorated copy (its factory cannot
/// change once it is published). The `ServiceEntry` that `register` returned stays in the user's hands, so the copy
/// follows it: a scope set or a callback added on the registration afterwards applies to the copy that resolves,
/// as it would have had it been configured before the decorator (see ``Container/decorate(_:name:decorator:)``).
extension Container {
    /// Publishes under `key` a copy of `entry`, which is registered under `key` here or in a parent, wrapped in
    /// `decorators`; the copy follows `entry`'s configuration from now on. `inheritedTicket`, for an ancestor's
    /// registration, is the ticket taken before reading it (see ``CompositionTable/takeTicket()``); without one,
    /// `entry` is this container's own and the copy is published only in its place. Returns the copy, or nil when
    /// it was not published (see ``CompositionTable/noteAdded(_:key:current:)``) or `entry` cannot be decorated.
    /// `applied` counts, for a copy of the container's own, the container's decorators of `key` it carries.
    @discardableResult
    func publishDecoratedCopy<Service>(
        of entry: ServiceEntry<Service>,
        with decorators: [Decorator<Service>],
        key: ServiceKey,
        inheritedTicket: UInt64? = nil,
        applied: Int = 0
    ) -> ServiceEntry<Service>? {
        guard let copy = entry.decoratedCopy(with: decorators) else { return nil }
        lock.withLock {
            guard let compositions else { return }
            if let ticket = inheritedTicket {
                compositions.expectInheritedCopy(copy, under: key, of: entry.serial, ticket: ticket)
                compositions.placements.awaitVerdict(on: copy, under: key)
            } else {
                compositions.placements.expect(copy, under: key, inPlaceOf: entry)
                compositions.placements.setApplied(applied, in: copy)
            }
            // The types forwarded to `entry` resolve the copy from now on: the decorated instance is the service's
            // instance, whatever type asks for it.
            compositions.expectCopyInPlace(copy, of: entry)
        }
        add(copy, as: Service.self, key: key)
        // A refused copy does not follow `entry`: it would take the place of the published one among its followers.
        guard !lock.withLock({ compositions?.placements.takeRefused(copy, under: key) ?? false }) else { return nil }
        entry.keepFollowing(copy, key: key, in: self, ticket: inheritedTicket ?? 0)
        // Other containers that forward to this container's registration follow it onto the copy.
        if inheritedTicket == nil { tellForeignHolders(of: entry, copy: copy) }
        return copy
    }

    /// Publishes in place of this container's own registration under `key` a decorated copy wrapped in the
    /// decorators of `decoratorKey` that it lacks (a registration is wrapped in those declared before it is added;
    /// a copy in those of the registration it copies and its own). The registration and the decorators are read in
    /// one hold of the lock, and the copy is published only if `key` still holds that registration: when another
    /// thread publishes there meanwhile (a decorator's copy, a replacement, `removeAll()`), the copy is made again
    /// from what `key` holds then, so that each decorator wraps what resolves exactly once.
    func decorateOwn<Service>(_ serviceType: Service.Type, key: ServiceKey, decoratorKey: ServiceKey) {
        while true {
            let read: (entry: ServiceEntry<Service>, decorators: [AnyObject], applied: Int)? = lock.withLock {
                guard let compositions, compositions.inheritedSource(of: key) == nil,
                    let entry = services[key] as? ServiceEntry<Service>, !entry.isDecoratedForward
                else { return nil }
                let own = entry.owner === referenceLocked(in: registrationRecordLocked())
                let applied = compositions.placements.applied(in: entry, own: own)
                return (entry, compositions.decorators(for: decoratorKey), applied)
            }
            guard let (entry, all, applied) = read, entry.isDecoratable else { return }
            let missing = all.dropFirst(applied).compactMap { $0 as? Decorator<Service> }
            guard !missing.isEmpty else { return }
            if publishDecoratedCopy(of: entry, with: missing, key: key, applied: applied + missing.count) != nil {
                return
            }
        }
    }
}

/// A decorated copy of a registration, which follows the registration's configuration.
final class DecoratedCopy<Service>: ScopeFollowing, CallbackFollowing {
    /// A copy of the container's own registration, kept: a later copy follows this one, which the container
    /// retires, and the registration `register` returned must still reach it.
    private let own: ServiceEntry<Service>?
    /// A copy of an ancestor's registration, kept weakly: the descendant that published it keeps it, and a
    /// descendant that goes must not leave its copy, with the instances it keeps, to the ancestor's registration.
    private weak var inherited: ServiceEntry<Service>?
    /// The ticket of a copy of an ancestor's registration (0 for the container's own): a copy published later, with
    /// a later ticket, is not displaced among the followers by one that comes to follow after it.
    let ticket: UInt64

    private var copy: ServiceEntry<Service>? { own ?? inherited }

    init(_ copy: ServiceEntry<Service>, ticket: UInt64) {
        own = ticket == 0 ? copy : nil
        inherited = ticket == 0 ? nil : copy
        self.ticket = ticket
    }

    var isGone: Bool { copy == nil }
    var followed: AnyObject? { copy }

    @discardableResult
    func inObjectScope(_ objectScope: any ObjectScopeProtocol) -> Self {
        copy?.inObjectScope(objectScope)
        return self
    }

    func followInitCompleted(_ completed: Any) {
        guard let completed = completed as? (any Resolver, Service) throws -> Void else { return }
        copy?.initCompleted(completed)
    }
}

/// A follower of a registration's configuration that also takes its `initCompleted` callbacks (a decorated copy;
/// a decorated forward follows the scope alone, its callbacks being those of the registration it resolves).
protocol CallbackFollowing: ScopeFollowing {
    /// Adds `completed`, a callback just added to the registration followed, to the follower's.
    func followInitCompleted(_ completed: Any)
}

/// Tells apart, among a registration's followers, what one container made of it: its decorated copy, or the
/// decorated forward of a type to it.
struct FollowerOption: ServiceKeyOption {
    enum Kind: Hashable {
        case decoratedCopy
        case decoratedForward
    }

    let kind: Kind
    let container: ObjectIdentifier

    var description: String { kind == .decoratedCopy ? "decorated copy" : "decorated forward" }

    func isEqualTo(_ another: any ServiceKeyOption) -> Bool {
        guard let another = another as? FollowerOption else { return false }
        return another.kind == kind && another.container == container
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(container)
    }
}

extension ServiceEntry {
    /// Makes `copy`, a decorated copy of this registration that `container` just published under `key` (with
    /// `ticket`, see ``DecoratedCopy/ticket``), follow this registration's configuration: its scope and callbacks
    /// are taken again, under the lock that keeps the followers, so that no change made meanwhile is missed.
    func keepFollowing(_ copy: ServiceEntry<Service>, key: ServiceKey, in container: Container, ticket: UInt64) {
        let follower = DecoratedCopy(copy, ticket: ticket)
        let followerKey = ServiceKey(
            serviceType: key.serviceType, argumentsType: key.argumentsType, name: key.name,
            option: FollowerOption(kind: .decoratedCopy, container: ObjectIdentifier(container)))
        lock.lock()
        // The copies of containers that went follow nothing: dropped, so that the followers do not grow with the
        // children that decorate, and so that one of them does not pass for a later copy of a container made since
        // at the same address.
        var followers = (scopeFollowers ?? [:]).filter { !$0.value.isGone }
        if let later = followers[followerKey] as? DecoratedCopy<Service>, later.ticket > ticket {
            lock.unlock()
            return
        }
        let replaced = followers.updateValue(follower, forKey: followerKey)
        scopeFollowers = followers
        let scope = configuration.scope
        // The copy's lock inside this one's: a change of this registration's configuration reaches the copy only
        // after it lets go of this lock.
        let rescoped = copy.lock.withLock {
            copy.configuration = copy.configuration.withCallbacks(of: configuration)
            return copy.configuration.scope !== scope
        }
        lock.unlock()
        // Released outside the lock: the last reference to a registration releases the instances it keeps.
        withExtendedLifetime(replaced) {}
        // A scope set between the copy and its publication; set as a scope is, letting go of the instances the copy
        // kept meanwhile, until the copy has the one this registration has (a later change is also sent to it).
        var next: (any ObjectScopeProtocol)? = rescoped ? scope : nil
        while let scope = next {
            copy.inObjectScope(scope)
            next = lock.withLock { configuration.scope !== scope ? configuration.scope : nil }
        }
    }

    /// Whether ``decoratedCopy(with:)`` can wrap this registration's factory.
    var isDecoratable: Bool {
        isPlain || erasedFactory?.value is any DecoratableFactory
    }
}

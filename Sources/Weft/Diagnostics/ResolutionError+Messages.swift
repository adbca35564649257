/// The words of every ``ResolutionError``: its headline for each reason, the path and the fix it suggests. Kept
/// beside the other user-facing texts (verification reports, log lines), so that they are worded together.
extension ResolutionError: CustomStringConvertible {
    /// The full message: identifier, what failed, the resolution path and what exists instead.
    public var description: String {
        var lines = ["[\(identifier)] " + headline]
        if reason == .tooDeep {
            lines.append("Resolution path: " + Self.shortened(path))
        } else if path.count > (reason == .circularDependency ? cycleLength : 1) {
            lines.append("Resolution path: " + path.joined(separator: " -> "))
        }
        if !suggestions.isEmpty {
            lines.append("Registered instead: " + suggestions.joined(separator: "; "))
        }
        if takingArguments.count > 1 {
            lines.append(
                "Each of " + takingArguments.joined(separator: " and ") + " takes these arguments: Swift passes an "
                    + "argument held as a protocol type as its concrete type, so the request names no registration "
                    + "and Weft does not guess between them. Pass each argument as the type the one you mean declares, "
                    + "e.g. `resolve(Service.self, argument: value as any Protocol)`.")
        }
        return lines.joined(separator: "\n")
    }

    /// How many steps of the path form the cycle: from the previous occurrence of the last step.
    fileprivate var cycleLength: Int {
        guard let last = path.last, let previous = path.dropLast().lastIndex(of: last) else { return 0 }
        return path.count - previous
    }

    fileprivate var headline: String {
        switch reason {
        case .missingRegistration:
            return "No registration for \(request)" + (requestedAs.map { " (requested as \($0))." } ?? ".")
        case .circularDependency:
            let cycle = Array(path.suffix(cycleLength))
            let closing = Self.spoken(cycle.count >= 2 ? cycle[cycle.count - 2] : serviceType)
            let wrapped =
                name.map { "Lazy<\(serviceType)> or Provider<\(serviceType)> (named \"\($0)\")" }
                ?? "Lazy<\(serviceType)> or Provider<\(serviceType)>"
            if let selfAskingScope, cycle.count == 2 {
                let scope =
                    switch selfAskingScope {
                    case "graph": ".graph (the default scope)"
                    case "": "in a custom scope"
                    default: ".\(selfAskingScope)"
                    }
                return "Circular dependency: \(cycle.joined(separator: " -> ")).\n"
                    + "\(serviceType) is \(scope), so its instance is shared whatever its runtime arguments: asking "
                    + "for \(serviceType) again with other arguments asks for the instance its factory is making.\n"
                    + "To build a structure level by level (a tree, a list), register \(serviceType) "
                    + "`.inObjectScope(.transient)`: a transient factory with runtime arguments may ask for itself."
            }
            if cycleThroughCallbacks {
                return "Circular dependency: \(cycle.joined(separator: " -> ")).\n"
                    + "These services ask for each other again and again: none of them is shared within the "
                    + "object graph, so every request makes a new instance that asks once more.\n"
                    + "Break it by giving one of them a shared scope (.graph, the default, or .container), "
                    + "or let \(closing) take \(wrapped)."
            }
            let threads =
                acrossThreads
                ? "The cycle closes across threads: each thread was making one of these services and waiting for "
                    + "another thread to finish the next.\n" : ""
            if let closingWrapper {
                return "Circular dependency: \(cycle.joined(separator: " -> ")).\n" + threads
                    + "\(Self.capitalized(closing)) already takes \(closingWrapper), but reads it (`instance` or `get()`) before its "
                    + "factory returns, so the cycle is still closed in the factory.\n"
                    + "Break it by reading \(closingWrapper) later, after \(closing) is made (on first use), or by "
                    + "setting that reference in initCompleted."
            }
            return "Circular dependency: \(cycle.joined(separator: " -> ")).\n" + threads
                + "Each factory on this cycle needs the next service before it can return, "
                + "so none of them can be made first.\n"
                + "Break it by setting one of these references in initCompleted instead of in the factory, "
                + "or let \(closing) take \(wrapped)."
        case .factoryFailed where thrownByDecorator:
            return "A decorator of \(request) threw (its factory had returned): \(underlyingText)"
        case .factoryFailed:
            return "The factory of \(request) threw: \(underlyingText)"
        case .initCompletedFailed:
            return "An initCompleted callback of \(request) threw: \(underlyingText)"
        case .typeMismatch:
            guard let madeType else { return "The registration used for \(request) made an instance of another type." }
            return
                "The registration used for \(request) made an instance of \(madeType), which is not a \(serviceType)."
        case .notOnMainActor:
            let headline =
                "The factory of \(request) is @MainActor, but it was resolved off the main actor, where it "
                + "cannot run.\n"
            // An element is made with its collection, which is what the caller resolves (a Lazy of the element
            // type would not be one of the collection's elements).
            if let contribution = key?.option as? ContributionOption {
                let collection = String(describing: contribution.collection)
                let named = name.map { ", name: \(String(reflecting: $0))" } ?? ""
                return headline
                    + "Resolve \(contribution.collectionLabel(name: name)) from main-actor code (a @MainActor "
                    + "function, or inside `await MainActor.run { }`), or from async code: "
                    + "`try await container.async.require(\(collection).self\(named))` makes the element on the main "
                    + "actor."
            }
            return headline
                + "Resolve it from main-actor code (a @MainActor function, or inside `await MainActor.run { }`), "
                + "or inject Lazy<\(serviceType)> and read it on the main actor."
        case .requiresAsync where asyncInFlight:
            return "The factory of \(request) is async, and a synchronous resolve asked for it while an async "
                + "resolve is still completing it (running its initCompleted callbacks).\n"
                + "Resolve it from async code: `try await container.async.require(\(serviceType).self)` waits for "
                + "it; synchronous code can use it once the async resolve has finished."
        case .requiresAsync:
            return "The factory of \(request) is async, and a synchronous resolve needed a new instance of it.\n"
                + "Resolve it from async code: `try await container.async.require(\(serviceType).self)`, or in an "
                + "async factory `try await r.require(\(serviceType).self)`. (Once an async resolve has made a "
                + ".container instance, synchronous code can use that instance.)"
        case .outsideScope, .scopeEnded, .captiveDependency:
            return scopeHeadline
        case .tooDeep where stackUse == nil:
            return "Resolving \(request) went \(path.count) services deep: a transient factory with runtime "
                + "arguments asked for itself \(Container.asyncRecursionLimit) times in async code, where no thread's "
                + "stack stops a recursion that never ends, so the resolve stops here.\n"
                + "If the depth is meant, build the structure in a loop rather than one resolve per level; if not, "
                + "look for the arguments that never reach the case where the factory stops asking."
        case .tooDeep:
            let stack = stackUse.map { " (\($0.used >> 10) KiB of its \($0.size >> 10) KiB)" } ?? ""
            return "Resolving \(request) went \(path.count) services deep, and this thread's stack is nearly "
                + "used up\(stack): going deeper would crash the program, so the resolve stops here.\n"
                + "Each service on the path is made by a factory that asks for the next one. If the depth is "
                + "meant, resolve on a thread with a larger stack, or build the chain in a loop rather than one "
                + "factory per link; if not, look for registrations that keep asking for one more."
        }
    }

    /// A long path with its middle left out: the first and last few steps and how many are between.
    fileprivate static func shortened(_ path: [String]) -> String {
        guard path.count > 12 else { return path.joined(separator: " -> ") }
        let head = path.prefix(5).joined(separator: " -> ")
        let tail = path.suffix(5).joined(separator: " -> ")
        return "\(head) -> ... (\(path.count - 10) more) ... -> \(tail)"
    }

    fileprivate var scopeHeadline: String {
        switch reason {
        case .outsideScope where belowScope:
            return "\(request) is .scoped (one instance per scope), and it is registered in a child container made "
                + "with Container(parent:) below the scope it was resolved through: a scope keeps instances only of "
                + "registrations made in it or in a container above it.\n"
                + "Register \(serviceType) in the scope or in a container above it, or make the child with "
                + "`scope.makeScope()` (a nested scope, which keeps its own .scoped instances)."
        case .outsideScope:
            return "\(request) is .scoped (one instance per scope), and it was resolved outside any scope.\n"
                + "Resolve it from a scope: `let scope = container.makeScope()`, then `scope.require(...)` or "
                + "`try await scope.async.require(...)`, and `try await scope.end()` when the unit of work is done."
        case .scopeEnded:
            return "\(request) is .scoped, and the scope it was resolved from has ended (its instances are torn "
                + "down). Make a new scope for new work."
        default:
            let holder = captor ?? (path.count >= 2 ? path[path.count - 2] : "A shared service")
            // The services between the holder and the scoped one are made for the holder and kept with it.
            let between = path.dropLast().lastIndex(of: holder).map { Array(path[($0 + 1)..<(path.count - 1)]) } ?? []
            let through = between.isEmpty ? "" : " (through \(between.joined(separator: " -> ")))"
            let named = Self.spoken(holder)
            return "\(Self.capitalized(named)) is kept beyond one scope (it is shared, e.g. .container), and it was "
                + "being made with \(request)\(through), which is .scoped: it would keep the instance of one scope "
                + "after that scope ends.\n"
                + "Make \(named) .scoped or .transient too, or pass it what it needs per call instead of at creation."
        }
    }

    /// A step of a path as the subject of a sentence: a list's element, which no request spells
    /// (`Array<Plugin>#2`, `Array<Plugin>#audit`), in words (`the 2nd element contributed to Array<Plugin>`, see
    /// ``ContributionOption/elementDescription(name:)``); any other step as the path writes it.
    fileprivate static func spoken(_ step: String) -> String {
        guard step.hasPrefix("Array<"), let mark = step.lastIndex(of: "#") else { return step }
        let collection = String(step[..<mark])
        let place = String(step[step.index(after: mark)...])
        guard let position = Int(place) else { return "the element \"\(place)\" contributed to \(collection)" }
        return "the \(ContributionOption.ordinal(position)) element contributed to \(collection)"
    }

    /// A subject from ``spoken(_:)`` at the start of a sentence: `The 2nd element ...`; a type's name as it is.
    fileprivate static func capitalized(_ subject: String) -> String {
        subject.hasPrefix("the ") ? "The " + subject.dropFirst(4) : subject
    }

    fileprivate var underlyingText: String {
        underlyingError.map { String(describing: $0) } ?? "an unknown error"
    }
}

extension ContributionOption {
    /// The element in words, for messages: `the 2nd element contributed to Array<Plugin>`, `the element "audit"
    /// contributed to ...`, `the element for key "users" of Dictionary<String, Handler>`, and where it was
    /// contributed when that was not a container without a parent (its elements come first, a child's after them,
    /// each numbered on its own).
    func elementDescription(name: String?) -> String {
        let collection = collectionLabel(name: name)
        let element: String
        switch place {
        case .position(let position): element = "the \(Self.ordinal(position)) element contributed to \(collection)"
        case .id(let id): element = "the element \"\(id)\" contributed to \(collection)"
        case .key(let key): element = "the element for key \(String(reflecting: key)) of \(collection)"
        }
        switch level {
        case 0: return element
        case 1: return element + " in a child container"
        default: return element + " in a child container \(level) levels below the root"
        }
    }

    /// The collection as paths write it: `Array<Plugin>`, `Array<Plugin>["named"]`.
    func collectionLabel(name: String?) -> String {
        String(describing: collection) + (name.map { "[\"\($0)\"]" } ?? "")
    }

    /// `1st`, `2nd`, `3rd`, `4th`, ..., `11th`, `21st`.
    static func ordinal(_ number: Int) -> String {
        let suffix: String
        switch (number % 10, number % 100) {
        case (_, 11...13): suffix = "th"
        case (1, _): suffix = "st"
        case (2, _): suffix = "nd"
        case (3, _): suffix = "rd"
        default: suffix = "th"
        }
        return "\(number)\(suffix)"
    }
}
